-- grain: one row per cell of the region x region matrix (receiver row, sender column)
-- Every combination of the regions seen, so a pair without measurements is an empty cell,
-- never a missing or shifted one; the diagonal is marked, not measured.
with regions as (
    select * from dim_p2p_regions
),
pairs as (
    select * from fct_p2p_region_pairs
),
final as (
    select
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
        pairs.window_bytes
    from regions as recv
    cross join regions as send
    left join pairs on pairs.receiver = recv.region and pairs.sender = send.region
)
select * from final
order by receiver_order, sender_order
