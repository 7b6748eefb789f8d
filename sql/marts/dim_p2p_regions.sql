-- grain: one row per campaign and region that appears in its cross-region measurements
-- key: campaign, region
-- Names and order come from the reference list; a region missing there keeps its code and
-- sorts last rather than disappearing.
with seen as (
    select campaign, receiver as region from stg_p2p__ping
    union select campaign, sender from stg_p2p__ping
    union select campaign, receiver from int_p2p__pair_nccl
    union select campaign, sender from int_p2p__pair_nccl
    union select campaign, receiver from stg_p2p__iperf3
    union select campaign, sender from stg_p2p__iperf3
),
regions as (
    select * from ref_aws_regions
),
final as (
    select
        seen.campaign,
        seen.region,
        coalesce(regions.name, seen.region) as region_name,
        row_number() over (partition by seen.campaign order by coalesce(regions.sort_order, 1e9), seen.region) as region_order
    from seen
    left join regions on regions.region = seen.region
    where seen.region is not null
)
select * from final
order by campaign, region_order
