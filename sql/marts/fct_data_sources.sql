-- grain: one row per raw file (measurement, manifest or declared parameter)
-- key: source_file
-- scope: inventory
-- Every file the site is built from, with its content hash, what became of it and which pages
-- show figures derived from it.
-- column note: what the figures made of an ingested file they read in part, not at all, or by
--    a choice (fct_campaign_file_notes); empty when they read all of it
with files as (
    -- the pages' sources (meta_page_sources) are recorded by the renders that publish them
    select * from int_inventory__data_files
),
used as (
    select source_file, string_agg(distinct page_title, ', ' order by page_title) as used_by
    from meta_page_sources
    group by source_file
),
notes as (
    -- an ingested file the figures read in part, not at all, or by a choice
    select source_file, string_agg(status || ': ' || detail, '; ' order by status) as note
    from fct_campaign_file_notes
    where status in ('not used', 'partly used', 'choice')
    group by source_file
),
final as (
    select
        files.*,
        coalesce(used.used_by, '') as used_by,
        notes.note
    from files
    left join used on used.source_file = files.source_file
    left join notes on notes.source_file = files.source_file
)
select * from final
order by campaign nulls first, source_file
