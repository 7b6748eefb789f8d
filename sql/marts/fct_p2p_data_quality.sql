-- grain: one row per data-quality note on a point-to-point file
-- What the page must say instead of a number: pings that got no reply (delay left empty,
-- not zero) and files the manifest or a parser could not use.
with no_reply as (
    select
        campaign,
        source_file,
        receiver,
        sender,
        'ping got no reply to ' || packets_transmitted || ' packet(s); the delay is left empty'
            as issue
    from stg_p2p__ping
    where packets_received = 0
),
campaigns as (
    select campaign from stg_p2p__campaigns
),
unusable as (
    select
        files.campaign,
        files.source_file,
        files.context->>'receiver' as receiver,
        files.context->>'sender' as sender,
        coalesce(registry.reason, files.reason) as issue
    from raw_files as files
    join campaigns on campaigns.campaign = files.campaign
    left join ingest_registry as registry on registry.source_file = files.source_file
    where files.manifest_status <> 'listed' or registry.status in ('quarantined', 'duplicate')
),
final as (
    select * from no_reply
    union all
    select * from unusable
)
select * from final
order by campaign, source_file
