-- grain: one row per campaign, ordered region pair (receiver, sender), NCCL series, collective and transfer size
-- Bandwidth = bytes x 8 / median transfer time over every cycle and placement of the pair's
-- logs of one collective and one size: the median, not the mean, so one slow cycle does not
-- move the figure. A log of several sizes (-b 64M -e 128M) gives a row per size. The pair's
-- figure on the pages (is_chosen) is a sendrecv row: of the size the campaign declares
-- (params.sizes_bytes, the largest declared that was measured), else the largest measured. A
-- log of another collective (all_reduce_perf …) or one that does not say which it ran is
-- never taken for point-to-point; fct_campaign_file_notes names it.
with results as (
    select * from stg_p2p__nccl_tests
    where receiver is not null and sender is not null
),
declared as (
    select campaign, try_cast(unnest(from_json(params->'sizes_bytes', '["json"]')) as bigint) as size_bytes
    from stg_p2p__campaigns
),
grouped as (
    select
        campaign,
        receiver,
        sender,
        series,
        collective,
        max(collective_basis) as collective_basis,
        size_bytes,
        count(*) as n_transfers,
        median(time_s) as median_time_s,
        bytes_to_bits(size_bytes) / median(time_s) as bits_per_s,
        list(distinct source_file order by source_file) as source_files
    from results
    group by campaign, receiver, sender, series, collective, size_bytes
),
flagged as (
    select
        g.*,
        exists (select 1 from declared as d
                where d.campaign = g.campaign and d.size_bytes = g.size_bytes) as is_declared_size
    from grouped as g
),
ranked as (
    select
        *,
        row_number() over (
            partition by campaign, receiver, sender, series, collective = 'sendrecv'
            order by is_declared_size desc, size_bytes desc) as size_rank
    from flagged
),
final as (
    select
        campaign, receiver, sender, series, collective, collective_basis, size_bytes, n_transfers,
        median_time_s, bits_per_s, source_files,
        case when collective = 'sendrecv' then is_declared_size end as size_is_declared,
        coalesce(collective = 'sendrecv' and size_rank = 1, false) as is_chosen
    from ranked
)
select * from final
order by campaign, receiver, sender, series, collective, size_bytes
