-- grain: one row per iperf3 run (one file) between two regions in a p2p campaign
-- Throughput is what the server (the receiver) got: end.sum_received, summed over -P streams.
with source as (
    select * from raw_iperf3
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
        source.protocol,
        source.num_streams,
        source.duration_s,
        source.received_bytes,
        source.received_bits_per_s
    from source
    join files on files.source_file = source.source_file
    join campaigns on campaigns.campaign = source.campaign
    where files.receiver is not null and files.sender is not null
      -- a UDP run measures loss and jitter at a chosen rate, not the link's TCP throughput
      and coalesce(source.protocol, 'TCP') = 'TCP'
)
select * from renamed
order by campaign, receiver, sender, path
