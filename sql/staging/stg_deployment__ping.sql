-- grain: one row per ping run (one file)
-- A deployment's ping summaries with the host, link and direction the manifest gives each file;
-- iputils' mdev and BSD's stddev in one column; a run without replies keeps its packet counts.
with source as (
    select * from raw_ping
),
files as (
    select * from stg_raw__file_context
),
renamed as (
    select
        source.campaign,
        source.source_file,
        files.link_id,
        files.sender,
        files.receiver,
        source.packets_transmitted,
        source.packets_received,
        source.packet_loss_fraction,
        ms_to_s(source.rtt_min_ms) as rtt_min_s,
        ms_to_s(source.rtt_avg_ms) as rtt_avg_s,
        ms_to_s(source.rtt_max_ms) as rtt_max_s,
        -- iputils' mdev and BSD's stddev are the same population deviation of the replies'
        -- times (sqrt(mean(t^2) - mean(t)^2)); the raw table keeps each under its own name
        ms_to_s(coalesce(source.rtt_mdev_ms, source.rtt_stddev_ms)) as rtt_mdev_s
    from source
    join files on files.source_file = source.source_file
    join raw_campaigns as c on c.campaign = source.campaign
    where c.kind = 'deployment'
)
select * from renamed
order by campaign, link_id, sender
