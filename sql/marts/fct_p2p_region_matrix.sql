-- grain: one row per campaign and cell of its region x region matrix (receiver row, sender column)
-- key: campaign, receiver, sender
-- Every combination of the regions seen, so a pair without measurements is an empty cell,
-- never a missing or shifted one; the diagonal is marked, not measured.
-- column receiver: the cell's row: the receiving region
-- column sender: the cell's column: the sending region
-- column is_diagonal: true where receiver and sender are the same region (marked, not measured)
-- column rtt_avg_s: the pair's average ping RTT (empty when the pair was not pinged)
-- column nccl_bits_per_s: the pair's NCCL bandwidth (empty when not measured)
with regions as (
    select * from dim_p2p_regions
),
pairs as (
    select * from fct_p2p_region_pairs
),
final as (
    select
        recv.campaign,
        recv.region as receiver,
        recv.region_name as receiver_name,
        recv.region_order as receiver_order,
        send.region as sender,
        send.region_name as sender_name,
        send.region_order as sender_order,
        recv.region = send.region as is_diagonal,
        pairs.rtt_avg_s,
        pairs.nccl_bits_per_s,
        pairs.nccl_asymmetry_fraction,
        pairs.window_bytes,
        pairs.source_files
    from regions as recv
    join regions as send on send.campaign = recv.campaign
    left join pairs on pairs.campaign = recv.campaign and pairs.receiver = recv.region
        and pairs.sender = send.region
)
select * from final
order by campaign, receiver_order, sender_order
