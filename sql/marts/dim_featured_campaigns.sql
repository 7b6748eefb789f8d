-- grain: one row per featured slot (the deployment of §0, the tc and cross-region campaigns of Point to Point)
-- key: slot
-- scope: comparison
-- The seed pages keep their structure by showing one campaign in each slot: the declared one
-- (ref_featured_campaigns) when it is published and has the data the slot needs, else the
-- newest published campaign that has it. Every other campaign has its own page.
-- column slot: the place on a shared page that shows one campaign (deployment, p2p_tc, p2p_regions)
-- column campaign: the campaign shown in the slot: the declared one when it qualifies, else the
--    newest published one with the data
-- column is_declared: true when featured_campaigns.csv names the campaign shown
-- column candidates: how many published campaigns have the data the slot needs
with declared as (
    select slot, campaign from ref_featured_campaigns
),
candidates as (
    select 'deployment' as slot, campaign, campaign_date
    from fct_deployment_constants
    where wire_bytes_per_position_head_to_worker is not null
    union all
    select 'p2p_tc', campaign, campaign_date from fct_p2p_campaigns where n_tc_transfers > 0
    union all
    select 'p2p_regions', campaign, campaign_date from fct_p2p_campaigns where n_region_files > 0
),
slots as (
    select distinct slot from declared
    union
    select distinct slot from candidates
),
final as (
    select
        slots.slot,
        coalesce(
            (select c.campaign from candidates as c join declared as d
                 on d.slot = c.slot and d.campaign = c.campaign where c.slot = slots.slot),
            (select c.campaign from candidates as c where c.slot = slots.slot
             order by c.campaign_date desc nulls last, c.campaign limit 1)) as campaign,
        exists (select 1 from candidates as c join declared as d
                    on d.slot = c.slot and d.campaign = c.campaign where c.slot = slots.slot)
            as is_declared,
        (select count(*) from candidates as c where c.slot = slots.slot) as candidates
    from slots
)
select * from final
order by slot
