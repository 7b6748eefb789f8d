-- grain: one row per campaign and region that appears in its cross-region measurements
-- key: campaign, region
-- Names and order come from the reference list; a region missing there keeps its code and
-- sorts last rather than disappearing.
-- column region: the region code the campaign's files use (an AWS region such as us-east-1)
-- column region_name: the region's name from aws_regions.csv, or its code when the list lacks it
-- column region_order: the order the pages list the campaign's regions in (reference order, unknown
--    regions last)
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
        row_number() over (partition by seen.campaign order by regions.sort_order nulls last, seen.region) as region_order
    from seen
    left join regions on regions.region = seen.region
    where seen.region is not null
)
select * from final
order by campaign, region_order
