-- grain: one row per nccl-tests result (file x size x cycle x placement) in a p2p campaign
-- Context the log lacks (tc setting, backend, receiver/sender region, path, series) comes from
-- the manifest via raw_files. Out-of-place and in-place results are both timed transfers. The
-- collective is the log's own ("# Collective test starting: sendrecv_perf"), else the file's
-- context.collective, else the test the campaign's params.commands.nccl runs (<name>_perf).
with source as (
    select * from raw_nccl_tests
),
files as (
    select * from stg_raw__file_context
),
campaigns as (
    select campaign, regexp_extract(params->'commands'->>'nccl', '(\w+?)_perf', 1) as command_collective
    from stg_p2p__campaigns
),
renamed as (
    select
        source.campaign,
        source.source_file,
        source.source_line,
        'nccl' as backend,
        files.setting_id,
        files.tc_delay_s,
        files.tc_rate_bits_per_s,
        files.tc_command,
        files.receiver,
        files.sender,
        files.path,
        files.series,
        source.size_bytes,
        source.cycle,
        source.placement,
        source.time_s,
        source.busbw_bytes_per_s,
        coalesce(source.collective, files.collective, nullif(campaigns.command_collective, ''))
            as collective,
        case when source.collective is not null then 'log'
             when files.collective is not null then 'manifest context'
             when nullif(campaigns.command_collective, '') is not null then 'manifest command'
        end as collective_basis
    from source
    join files on files.source_file = source.source_file
    join campaigns on campaigns.campaign = source.campaign
)
select * from renamed
order by campaign, source_file, source_line, placement
