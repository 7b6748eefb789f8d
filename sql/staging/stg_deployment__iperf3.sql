-- grain: one row per iperf3 run (one file)
-- Throughput is what the receiver got (end.sum_received), the figure iperf3 prints last.
with source as (
    select * from raw_iperf3
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
        source.protocol,
        source.num_streams,
        source.duration_s,
        source.received_bytes,
        source.received_bits_per_s,
        bits_to_bytes(source.received_bits_per_s) as received_bytes_per_s,
        source.retransmits
    from source
    join files on files.source_file = source.source_file
    join raw_campaigns as c on c.campaign = source.campaign
    where c.kind = 'deployment'
      -- a UDP run measures loss and jitter at a chosen rate, not the link's TCP throughput
      and coalesce(source.protocol, 'TCP') = 'TCP'
)
select * from renamed
order by campaign, link_id, sender
