-- grain: one row per campaign, backend and transfer size measured under tc (a column of its tc table)
-- key: campaign, backend, size_bytes
-- Columns go by size, then backend, as in the seed (Gloo-64, NCCL-64, Gloo-128, NCCL-128).
-- column column_order: the column's place in the tc table (by size, then backend)
with pairs as (
    select distinct campaign, backend, size_bytes from int_p2p__tc_transfers
),
final as (
    select
        campaign,
        backend,
        size_bytes,
        row_number() over (partition by campaign order by size_bytes, backend) as column_order
    from pairs
)
select * from final
order by campaign, column_order
