-- grain: one row per backend and transfer size measured under tc (a column of the tc table)
-- Columns go by size, then backend, as in the seed (Gloo-64, NCCL-64, Gloo-128, NCCL-128).
with pairs as (
    select distinct backend, size_bytes from int_p2p__tc_transfers
),
final as (
    select
        backend,
        size_bytes,
        row_number() over (order by size_bytes, backend) as column_order
    from pairs
)
select * from final
order by column_order
