-- grain: one row per point-to-point campaign
-- key: campaign
-- Says which part of the page each campaign feeds (tc experiments, region matrix), so the
-- template picks campaigns by what they measured, not by a typed name.
-- column title: the campaign's title from its manifest
-- column n_tc_transfers: the transfers the campaign timed under tc settings (0: it feeds no tc
--    table)
-- column n_region_files: the ping, nccl-tests and iperf3 files between regions (0: it feeds no
--    region table)
-- column instance_type: the instance type the manifest names (params.instance_type)
-- column gpu: the GPU the manifest names (params.gpu)
-- column tc_side: which end the tc settings were applied on (params.tc_side)
-- column transfer: what one timed transfer is, in the manifest's words (params.transfer)
with campaigns as (
    select * from stg_p2p__campaigns
),
tc as (
    select campaign, count(*) as n_tc_transfers from int_p2p__tc_transfers group by campaign
),
regions as (
    select campaign, count(*) as n_region_files from (
        select campaign, source_file from stg_p2p__ping
        union select campaign, source_file from stg_p2p__nccl_tests where receiver is not null
        union select campaign, source_file from stg_p2p__iperf3
    ) group by campaign
),
final as (
    select
        campaigns.campaign,
        campaigns.title,
        campaigns.campaign_date,
        campaigns.provenance,
        coalesce(tc.n_tc_transfers, 0) as n_tc_transfers,
        coalesce(regions.n_region_files, 0) as n_region_files,
        campaigns.params->>'instance_type' as instance_type,
        campaigns.params->>'gpu' as gpu,
        campaigns.params->>'tc_side' as tc_side,
        campaigns.params->>'transfer' as transfer
    from campaigns
    left join tc on tc.campaign = campaigns.campaign
    left join regions on regions.campaign = campaigns.campaign
)
select * from final
order by campaign
