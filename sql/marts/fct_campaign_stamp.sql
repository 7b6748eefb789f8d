-- grain: one row per campaign
-- key: campaign
-- The stamp at the foot of a campaign's page: when its newest measurement was taken and which
-- inputs the page was built from. inputs_digest is the sha256 of the campaign's files (its
-- manifest and raw files), one line "<path>:<sha256>" each in path order (the Data sources page
-- lists both), so the same files give the same digest on any machine, and a file added,
-- removed or changed gives another.
-- column newest_measurement_date: the campaign's date from its manifest (when its measurements were
--    taken)
-- column raw_files: how many files the digest covers (the manifest and every raw file)
-- column inputs_digest: sha256 of one "<path>:<sha256>" line per file in path order: the same files
--    give the same digest anywhere
with campaigns as (
    select * from stg_raw__campaigns
),
files as (
    select campaign, source_file, sha256 from stg_raw__files
    union all
    select campaign, manifest_file as source_file, manifest_sha256 as sha256 from stg_raw__campaigns
    where manifest_sha256 is not null
),
final as (
    select
        campaigns.campaign,
        campaigns.date as newest_measurement_date,
        (select count(*) from files where files.campaign = campaigns.campaign) as raw_files,
        (select sha256(string_agg(files.source_file || ':' || coalesce(files.sha256, '-'), chr(10)
                               order by files.source_file))
         from files where files.campaign = campaigns.campaign) as inputs_digest
    from campaigns
)
select * from final
order by campaign
