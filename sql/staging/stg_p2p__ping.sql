-- grain: one row per ping run (one file) between two regions in a p2p campaign
-- A run with no reply keeps NULL RTTs (never zero): the delay is unknown, not small.
with source as (
    select * from raw_ping
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
        files.receiver,
        files.sender,
        files.path,
        source.packets_transmitted,
        source.packets_received,
        source.packet_loss_fraction,
        ms_to_s(source.rtt_avg_ms) as rtt_avg_s,
        -- iputils' mdev and BSD's stddev are the same population deviation of the replies'
        -- times (sqrt(mean(t^2) - mean(t)^2)); the raw table keeps each under its own name
        ms_to_s(coalesce(source.rtt_mdev_ms, source.rtt_stddev_ms)) as rtt_mdev_s
    from source
    join files on files.source_file = source.source_file
    join campaigns on campaigns.campaign = source.campaign
    where files.receiver is not null and files.sender is not null
)
select * from renamed
order by campaign, receiver, sender, source_file
