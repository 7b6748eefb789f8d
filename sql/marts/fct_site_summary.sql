-- grain: one row (the whole site)
-- key:
-- scope: inventory
-- What the home page says about the data as a whole: the newest measurement date comes from
-- the data (campaign dates), so rebuilding the same inputs gives the same page. inputs_digest,
-- on the stamp at the foot of every shared page, is the sha256 of every raw file the site is
-- built from, one line "<path>:<sha256>" each in path order (the Data sources page lists both):
-- the same inputs give the same digest on any machine, a changed file another.
with campaigns as (
    select * from stg_raw__campaigns
),
files as (
    select * from int_inventory__data_files
),
final as (
    select
        (select max(date) from campaigns) as newest_measurement_date,
        (select count(*) from campaigns) as campaigns,
        (select count(*) from campaigns where provenance = 'captured') as captured_campaigns,
        (select count(*) from files) as raw_files,
        (select count(*) from files where status not in ('ok', 'listed')) as files_not_ingested,
        (select count(*) from meta_check_results where not passed) as failed_checks,
        (select count(*) from meta_check_results) as checks,
        (select count(*) from meta_check_results where passed) as passing_checks,
        (select sha256(string_agg(source_file || ':' || coalesce(sha256, '-'), chr(10)
                               order by source_file)) from files) as inputs_digest
)
select * from final
