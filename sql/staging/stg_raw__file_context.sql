-- grain: one row per raw file listed in a campaign manifest
-- The one place where manifest context keys become typed columns, so that every staging model
-- joins the same names (host, link, direction, tc setting …) instead of re-reading the JSON.
with source as (
    select * from raw_files
),
renamed as (
    select
        source_file,
        campaign,
        format,
        context->>'host' as host,
        context->>'interface' as interface,
        context->>'link' as link_id,
        context->>'sender' as sender,
        context->>'receiver' as receiver,
        context->>'split_hosts' as split_hosts,
        context->>'path' as path,
        coalesce(context->>'series', 'main') as series,
        context->>'setting' as setting_id,
        ms_to_s(cast(context->>'tc_delay_ms' as double)) as tc_delay_s,
        gbit_to_bits(cast(context->>'tc_rate_gbit' as double)) as tc_rate_bits_per_s,
        context->>'tc_command' as tc_command,
        -- an nccl-tests log's collective when the log does not say (nccl-tests before 2.13)
        context->>'collective' as collective,
        -- the collector's `<tool> --version` line, e.g. "ethtool version 6.11"
        context->>'tool_version' as tool_version,
        regexp_extract(context->>'tool_version', '(\d+\.\d+)', 1) as tool_release
    from source
)
select * from renamed
order by source_file
