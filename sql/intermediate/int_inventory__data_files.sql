-- grain: one row per raw file (measurement, manifest or declared parameter)
-- key: source_file
-- scope: inventory
-- Every file the site is built from, with its content hash and what became of it; the pages
-- that show it are added by fct_data_sources, once the pages have rendered (Home's stamp and
-- Data quality read this model, so they never wait for the pages that record their sources).
with measured as (
    select
        f.source_file,
        f.campaign,
        coalesce(f.format, '(none)') as kind,
        f.size_bytes,
        f.sha256,
        coalesce(r.status, f.manifest_status) as status,
        coalesce(r.reason, f.reason) as reason,
        r.rows_ingested
    from stg_raw__files as f
    left join stg_raw__registry as r on r.source_file = f.source_file
),
declared as (
    select
        d.source_file,
        c.campaign,
        d.kind,
        d.size_bytes,
        d.sha256,
        'ok' as status,
        null as reason,
        d.rows_ingested
    from meta_declared_files as d
    left join stg_raw__campaigns as c on c.manifest_file = d.source_file
),
rejected as (
    -- entries that cannot be campaigns (a symlinked folder, a bad name): named, never read
    select source_file, null as campaign, '(none)' as kind, null::bigint as size_bytes,
           null as sha256, status, reason, null::bigint as rows_ingested
    from meta_rejected_paths
),
final as (
    select
        files.*,
        coalesce(files.campaign, case when files.kind = '(none)' then 'not a campaign'
                                      else 'declared parameters' end) as group_label
    from (select * from measured union all select * from declared
          union all select * from rejected) as files
)
select * from final
