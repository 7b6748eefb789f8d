-- grain: one row per point-to-point campaign
-- key: campaign
-- Says which part of the page each campaign feeds (tc experiments, region matrix), so the
-- template picks campaigns by what they measured, not by a typed name.
with campaigns as (
    select * from stg_p2p__campaigns
),
tc as (
    select campaign, count(*) as n_tc_transfers from int_p2p__tc_transfers group by campaign
),
regions as (
    select campaign, count(*) as n_region_files from (
        select campaign, source_file from stg_p2p__ping
        union select campaign, source_file from stg_p2p__nccl_tests where receiver is not null
        union select campaign, source_file from stg_p2p__iperf3
    ) group by campaign
),
final as (
    select
        campaigns.campaign,
        campaigns.title,
        campaigns.campaign_date,
        campaigns.provenance,
        coalesce(tc.n_tc_transfers, 0) as n_tc_transfers,
        coalesce(regions.n_region_files, 0) as n_region_files,
        campaigns.params->>'instance_type' as instance_type,
        campaigns.params->>'gpu' as gpu,
        campaigns.params->>'tc_side' as tc_side,
        campaigns.params->>'transfer' as transfer
    from campaigns
    left join tc on tc.campaign = campaigns.campaign
    left join regions on regions.campaign = campaigns.campaign
)
select * from final
order by campaign
