-- grain: one row per lab series campaign split over two or more workers and timed quantity
-- key: campaign, quantity
-- scope: comparison
-- Whether the hops' wire times add. Every hop of the split is shaped alike, so a run's time
-- against 1 / rate has a slope in bytes (fct_lab_series_fit, corrected model: S + K, the bytes
-- that cost wire time on slow links). If the hops' transfers follow one another (head to the
-- first worker, back, on to the second, back) that slope counts the bytes of every hop; if they
-- ran side by side it would count only the largest hop's. So the slope is set against both
-- sums of the bytes the series counted (int_lab__hop_traffic medians, per prompt, step or copy),
-- and the share it takes of them against the same share on the one-worker series (which
-- measures how much of a link's counted bytes cost wire time when there is one hop: framing
-- and overlap included). hops_add: the share of the hops' sum lies nearer the one-worker share
-- than the share of the largest hop does.
-- column series: the lab series (manifest params.lab_series)
-- column quantity: prefill, decode step or KV snapshot
-- column sort_order: the quantity's order
-- column hops: links (workers) the split used
-- column slow_side_bytes: S + K of the corrected fit: bytes that cost wire time on slow links
-- column summed_hop_bytes: the bytes counted on every hop, both directions, added
-- column largest_hop_bytes: the bytes counted on the busiest hop
-- column share_of_sum: slow_side_bytes / summed_hop_bytes
-- column share_of_largest: slow_side_bytes / largest_hop_bytes
-- column one_worker_share: the median slow-side share of wire over the one-worker series with
--    counted bytes (fct_lab_series_fit, corrected); empty when there is none
-- column one_worker_series: the one-worker series behind that median
-- column hops_add: share_of_sum is nearer one_worker_share than share_of_largest is (empty
--    without a one-worker share)
with campaigns as (
    select campaign, workers, prompt_tokens from fct_lab_series_campaigns
),
fit as (
    select f.*, c.workers
    from fct_lab_series_fit as f
    join campaigns as c using (campaign)
    where f.model = 'corrected'
),
per_request as (
    -- each hop's bytes per request: the runs' median per unit, both directions, times the
    -- request's units (fct_lab_series_fit's measure, one hop at a time)
    select campaign, worker_host, request,
           median(head_to_worker_bytes / units) as forward_per_unit,
           median(worker_to_head_bytes / units) as return_per_unit,
           median(units) as units
    from int_lab__hop_traffic
    group by all
),
per_hop as (
    select campaign, worker_host,
           case request when 'prefill' then 'prefill' when 'decode' then 'decode step'
                else 'KV snapshot' end as quantity,
           (forward_per_unit + return_per_unit)
               * case request when 'decode' then 1 else units end as hop_bytes
    from per_request
),
hops as (
    select campaign, quantity, count(*) as hops, sum(hop_bytes) as summed_hop_bytes,
           max(hop_bytes) as largest_hop_bytes
    from per_hop
    group by all
),
one_worker as (
    select quantity, median(slow_side_share_of_wire) as one_worker_share,
           count(*) as one_worker_series
    from fit
    where workers = 1 and slow_side_share_of_wire is not null
    group by all
),
final as (
    select
        f.campaign, f.series, f.quantity, f.sort_order, h.hops,
        f.slope_bytes + f.knee_slope_bytes as slow_side_bytes,
        h.summed_hop_bytes,
        h.largest_hop_bytes,
        (f.slope_bytes + f.knee_slope_bytes) / h.summed_hop_bytes as share_of_sum,
        (f.slope_bytes + f.knee_slope_bytes) / h.largest_hop_bytes as share_of_largest,
        o.one_worker_share,
        coalesce(o.one_worker_series, 0) as one_worker_series,
        abs((f.slope_bytes + f.knee_slope_bytes) / h.summed_hop_bytes - o.one_worker_share)
            < abs((f.slope_bytes + f.knee_slope_bytes) / h.largest_hop_bytes - o.one_worker_share)
            as hops_add
    from fit as f
    join hops as h using (campaign, quantity)
    left join one_worker as o using (quantity)
    where f.workers >= 2
)
select * from final
order by campaign, sort_order
