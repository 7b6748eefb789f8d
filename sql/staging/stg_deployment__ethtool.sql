-- grain: one row per campaign, host and interface
-- The negotiated line rate, duplex, link state and PHY address ethtool reported for each
-- interface of a deployment's hosts; the line rate bounds every throughput on the pages.
with source as (
    select * from raw_ethtool
),
files as (
    select * from stg_raw__file_context
),
renamed as (
    select
        source.campaign,
        source.source_file,
        files.host,
        source.interface,
        mbit_to_bits(source.speed_mbit_per_s::bigint) as negotiated_bits_per_s,
        source.duplex,
        source.link_detected,
        -- ethtool 6.11 printed PHYAD as bare hex ("%x"); 6.1, 6.14.2 and 6.15 print "%u"; the
        -- versions in between are not known here, so their multi-digit PHYAD stays NULL
        coalesce(source.phyad, case
            when files.tool_release = '6.11' then try_cast('0x' || source.phyad_printed as integer)
            when files.tool_release in ('6.12', '6.13', '') then null
            when files.tool_release is not null then try_cast(source.phyad_printed as integer)
        end) as phyad
    from source
    join files on files.source_file = source.source_file
)
select * from renamed
order by campaign, host, interface
