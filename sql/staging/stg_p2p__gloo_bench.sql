-- grain: one row per timed p2p_bench transfer on the receiving rank, in a p2p campaign
-- Only the receiver's lines count: the seed's results are "from the recv side" (tc shapes it).
with source as (
    select * from raw_gloo_bench
),
files as (
    select * from stg_raw__file_context
),
campaigns as (
    select campaign from stg_p2p__campaigns
),
renamed as (
    select
        source.campaign,
        source.source_file,
        source.source_line,
        source.backend,
        files.setting_id,
        files.tc_delay_s,
        files.tc_rate_bits_per_s,
        files.tc_command,
        source.size_bytes,
        source.iteration,
        source.time_s
    from source
    join files on files.source_file = source.source_file
    join campaigns on campaigns.campaign = source.campaign
    where source.op = 'recv'
)
select * from renamed
order by campaign, source_file, source_line
