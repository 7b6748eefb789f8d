-- grain: one row per campaign, host and interface
with source as (
    select * from raw_ethtool
),
files as (
    select * from stg_raw__file_context
),
final as (
    select
        source.campaign,
        source.source_file,
        files.host,
        source.interface,
        source.speed_mbit_per_s::bigint * 1000000 as negotiated_bits_per_s,
        source.duplex,
        source.link_detected
    from source
    join files on files.source_file = source.source_file
)
select * from final
order by campaign, host, interface
