-- grain: one row per campaign and ordered region pair (receiver, sender) with a measurement
-- key: campaign, receiver, sender
-- Adds the reverse direction (B->A against A->B) and bandwidth x delay: the bytes in flight a
-- transfer keeps on the path at that rate and round trip (its effective window).
-- column ping_packets_transmitted: the ping packets sent over the pair, every run summed
-- column ping_packets_received: the replies received, every run summed
-- column rtt_avg_s: the average ping RTT of the pair: the mean of the runs that got replies
-- column nccl_size_bytes: the sendrecv message size the pair's NCCL figure is of: the size the
--    campaign declares (params.sizes_bytes) when measured, else the largest measured
-- column nccl_size_is_declared: true when that size is one params.sizes_bytes declares
-- column nccl_collective_basis: where the log's collective (sendrecv) was read: the log, the
--    manifest's file context, or the campaign's nccl command
-- column nccl_median_time_s: the median transfer time over every cycle of the pair's logs
-- column nccl_dumped_bits_per_s: the NCCL bandwidth of the pair's second series of logs (context
--    series: dumped, over the VPN), kept apart from the main series
-- column iperf3_public_bits_per_s: the iperf3 TCP rate over the public IP path
-- column iperf3_vpn_bits_per_s: the iperf3 TCP rate over the VPN path
-- column reverse_rtt_avg_s: the average RTT of the reverse pair (sender and receiver swapped)
-- column reverse_nccl_bits_per_s: the NCCL bandwidth of the reverse pair
-- column rtt_asymmetry_s: this direction's average RTT minus the reverse direction's
with pairs as (
    select * from int_p2p__pair_measurements
),
regions as (
    select * from dim_p2p_regions
),
final as (
    select
        pairs.campaign,
        pairs.receiver,
        recv.region_name as receiver_name,
        recv.region_order as receiver_order,
        pairs.sender,
        send.region_name as sender_name,
        send.region_order as sender_order,
        pairs.ping_packets_transmitted,
        pairs.ping_packets_received,
        pairs.rtt_avg_s,
        pairs.nccl_size_bytes,
        pairs.nccl_median_time_s,
        pairs.nccl_size_is_declared,
        pairs.nccl_collective_basis,
        pairs.nccl_bits_per_s,
        pairs.nccl_dumped_bits_per_s,
        pairs.iperf3_public_bits_per_s,
        pairs.iperf3_vpn_bits_per_s,
        reverse.rtt_avg_s as reverse_rtt_avg_s,
        reverse.nccl_bits_per_s as reverse_nccl_bits_per_s,
        pairs.rtt_avg_s - reverse.rtt_avg_s as rtt_asymmetry_s,
        pairs.nccl_bits_per_s / reverse.nccl_bits_per_s - 1 as nccl_asymmetry_fraction,
        bits_to_bytes(pairs.nccl_bits_per_s * pairs.rtt_avg_s) as window_bytes,
        pairs.source_files
    from pairs
    join regions as recv on recv.campaign = pairs.campaign and recv.region = pairs.receiver
    join regions as send on send.campaign = pairs.campaign and send.region = pairs.sender
    left join pairs as reverse
        on reverse.campaign = pairs.campaign and reverse.receiver = pairs.sender
        and reverse.sender = pairs.receiver
)
select * from final
order by campaign, receiver_order, sender_order
