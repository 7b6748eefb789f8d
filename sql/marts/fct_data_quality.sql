-- grain: one row per data-quality finding (a file that was not ingested, a failed check, or a measurement note)
-- Nothing is dropped silently: a file without context, a file that could not be parsed, a
-- duplicate, a check that failed and a measurement that has no value (a ping with every reply
-- lost) each appear here with the reason.
with files as (
    select
        'file' as finding_kind,
        campaign,
        source_file as subject,
        status,
        reason as detail
    from fct_data_sources
    where status not in ('ok', 'listed')
),
checks as (
    select
        'check' as finding_kind,
        null as campaign,
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
        issue as detail
    from fct_p2p_data_quality
    where source_file not in (select subject from files)
),
final as (
    select * from files
    union all select * from checks
    union all select * from notes
)
select * from final
order by finding_kind, campaign nulls first, subject
