-- grain: one row per region that appears in a cross-region measurement
-- Names and order come from the reference list; a region missing there keeps its code and
-- sorts last rather than disappearing.
with seen as (
    select receiver as region from stg_p2p__ping
    union select sender from stg_p2p__ping
    union select receiver from int_p2p__pair_nccl
    union select sender from int_p2p__pair_nccl
    union select receiver from stg_p2p__iperf3
    union select sender from stg_p2p__iperf3
),
regions as (
    select * from ref_aws_regions
),
final as (
    select
        seen.region,
        coalesce(regions.name, seen.region) as region_name,
        row_number() over (order by coalesce(regions.sort_order, 1e9), seen.region) as region_order
    from seen
    left join regions on regions.region = seen.region
    where seen.region is not null
)
select * from final
order by region_order
