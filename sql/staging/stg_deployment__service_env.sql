-- grain: one row per campaign, host and env-file key
-- The env file is the service's configuration as deployed; the manifest says on which host
-- it lives and which hosts the TENSOR_SPLIT entries refer to (llama.cpp lists devices, not hosts).
with source as (
    select * from raw_env
),
files as (
    select * from stg_raw__file_context
),
renamed as (
    select
        source.campaign,
        source.source_file,
        source.source_line,
        files.host,
        files.split_hosts,
        source.key,
        source.value
    from source
    join files on files.source_file = source.source_file
)
select * from renamed
order by campaign, host, key
