-- grain: one row per campaign and ordered region pair (receiver, sender) with a measurement
-- Each source contributes its own columns; a pair with no file of a kind keeps NULL there.
with pings as (
    select
        campaign,
        receiver,
        sender,
        list(source_file) as source_files,
        sum(packets_transmitted) as ping_packets_transmitted,
        sum(packets_received) as ping_packets_received,
        -- the mean of the runs that got replies; a run with 100% loss has no RTT to average
        avg(rtt_avg_s) as rtt_avg_s
    from stg_p2p__ping
    group by campaign, receiver, sender
),
nccl as (
    select campaign, receiver, sender, bits_per_s as nccl_bits_per_s,
           median_time_s as nccl_median_time_s, size_bytes as nccl_size_bytes,
           size_is_declared as nccl_size_is_declared, collective_basis as nccl_collective_basis,
           source_files
    from int_p2p__pair_nccl
    where series = 'main' and is_chosen
),
dumped as (
    select campaign, receiver, sender, bits_per_s as nccl_dumped_bits_per_s, source_files
    from int_p2p__pair_nccl
    where series = 'dumped' and is_chosen
),
iperf as (
    select
        campaign,
        receiver,
        sender,
        list(source_file) as source_files,
        avg(received_bits_per_s) filter (where path = 'public') as iperf3_public_bits_per_s,
        avg(received_bits_per_s) filter (where path = 'vpn') as iperf3_vpn_bits_per_s
    from stg_p2p__iperf3
    group by campaign, receiver, sender
),
pairs as (
    select campaign, receiver, sender from pings
    union select campaign, receiver, sender from nccl
    union select campaign, receiver, sender from dumped
    union select campaign, receiver, sender from iperf
),
final as (
    select
        pairs.campaign,
        pairs.receiver,
        pairs.sender,
        list_sort(list_distinct(flatten([coalesce(pings.source_files, []), coalesce(nccl.source_files, []),
            coalesce(dumped.source_files, []), coalesce(iperf.source_files, [])]))) as source_files,
        pings.ping_packets_transmitted,
        pings.ping_packets_received,
        pings.rtt_avg_s,
        nccl.nccl_size_bytes,
        nccl.nccl_median_time_s,
        nccl.nccl_size_is_declared,
        nccl.nccl_collective_basis,
        nccl.nccl_bits_per_s,
        dumped.nccl_dumped_bits_per_s,
        iperf.iperf3_public_bits_per_s,
        iperf.iperf3_vpn_bits_per_s
    from pairs
    left join pings on pings.campaign = pairs.campaign and pings.receiver = pairs.receiver and pings.sender = pairs.sender
    left join nccl on nccl.campaign = pairs.campaign and nccl.receiver = pairs.receiver and nccl.sender = pairs.sender
    left join dumped on dumped.campaign = pairs.campaign and dumped.receiver = pairs.receiver and dumped.sender = pairs.sender
    left join iperf on iperf.campaign = pairs.campaign and iperf.receiver = pairs.receiver and iperf.sender = pairs.sender
)
select * from final
order by campaign, receiver, sender
