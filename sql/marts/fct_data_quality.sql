-- grain: one row per data-quality finding (a withheld campaign, a file that was not ingested, a failed check, a measurement note, or a choice the figures make)
-- key: finding_kind, campaign, subject
-- scope: inventory
-- Nothing is dropped silently: a withheld campaign (with what withheld it), a file without
-- context, a file that could not be parsed or was refused, a duplicate, a check that failed
-- and a measurement that has no value (a ping with every reply lost) each appear here with the
-- reason. Withheld campaigns are included: this is where they are named.
with withheld as (
    select campaign, unnest(reasons->'$[*]') as reason
    from meta_campaign_status
    where status <> 'published'
),
campaigns as (
    select
        'campaign' as finding_kind,
        campaign,
        campaign as subject,
        'withheld' as status,
        string_agg((reason->>'subject') || ': ' || (reason->>'detail'), '; ') as detail
    from withheld
    group by campaign
),
files as (
    select
        'file' as finding_kind,
        campaign,
        source_file as subject,
        status,
        reason as detail
    from int_inventory__data_files
    where status not in ('ok', 'listed')
),
checks as (
    select
        'check' as finding_kind,
        campaign,
        sql_file as subject,
        case when blocking then 'failed (blocking)' else 'failed' end as status,
        statement || ' — ' || failing_rows || ' offending row(s): ' || first_rows as detail
    from meta_check_results
    where not passed
),
notes as (
    select
        'measurement' as finding_kind,
        campaign,
        source_file as subject,
        'note' as status,
        detail
    from fct_campaign_file_notes
    where status = 'no value'
),
choices as (
    -- a silent choice the figures make, said aloud: an anchor task in several journals, a
    -- featured campaign shown in place of the declared one
    select 'choice' as finding_kind, campaign, source_file as subject, 'warning' as status, detail
    from fct_campaign_file_notes
    where status = 'choice'
    union all
    select
        'choice', f.campaign, 'reference/featured_campaigns.csv', 'warning',
        'featured_campaigns.csv names ' || d.campaign || ' for the ' || f.slot || ' slot, which is '
            || case when d.campaign not in (select campaign from meta_campaign_status)
                    then 'not a campaign of raw_data/'
                    when d.campaign in (select campaign from meta_campaign_status where status <> 'published')
                    then 'withheld'
                    else 'published without the data the slot needs' end
            || coalesce('; ' || f.campaign || ' is shown instead', '; the slot is empty')
    from dim_featured_campaigns as f
    join ref_featured_campaigns as d on d.slot = f.slot
    where not f.is_declared
),
final as (
    select * from campaigns
    union all select * from files
    union all select * from checks
    union all select * from notes
    union all select * from choices
)
select * from final
order by finding_kind, campaign nulls first, subject
