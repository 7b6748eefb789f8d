-- grain: one row per lab series campaign, request (prefill, decode, KV snapshot) and direction
-- key: campaign, request, direction
-- The bytes a lab series put on its link, per unit of work, from the head's netdev capture
-- (int_lab__series_traffic): per prefill position, per decode step, per KV snapshot token;
-- the runs' median, quartiles and extremes over every rate (the bytes of a request do not
-- depend on the rate it crossed at; the spread shows whether they did). A series without a
-- netdev capture has no rows: its bytes are not measured.
-- column series: the lab series (manifest params.lab_series)
-- column request: prefill, decode or kv_snapshot
-- column sort_order: the request's order: prefill, decode, KV snapshot
-- column direction: head_to_worker (the head's veth end sent it) or worker_to_head (it received it)
-- column unit: what one unit of work is: a prompt position, a decode step, a snapshot token
-- column runs: runs whose request window lay inside the capture
-- column median_bytes: the runs' median of (bytes in the window / units), L2 frames
--    as /proc/net/dev counts them (TCP/IP headers and ACKs included)
-- column q1_bytes: first quartile (linear interpolation)
-- column q3_bytes: third quartile (linear interpolation)
-- column min_bytes: the smallest run
-- column max_bytes: the largest run
-- column median_units: the runs' median count of units (positions, steps or tokens)
-- column counter_anomalies: sampling intervals in the windows whose counters wrapped or reset
-- column idle_bytes_per_s: what crossed the link before the first request (both directions),
--    the background the windows were not corrected for
with traffic as (
    select * from int_lab__series_traffic
),
runs as (
    select campaign, series, run from int_lab__series_runs
),
long as (
    select t.campaign, r.series, t.run, t.request, t.sort_order, t.unit, t.units,
           'head_to_worker' as direction, t.head_to_worker_per_unit as per_unit,
           t.counter_anomalies, t.idle_bytes / t.idle_s as idle_bytes_per_s
    from traffic as t
    join runs as r using (campaign, run)
    union all
    select t.campaign, r.series, t.run, t.request, t.sort_order, t.unit, t.units,
           'worker_to_head', t.worker_to_head_per_unit, t.counter_anomalies,
           t.idle_bytes / t.idle_s
    from traffic as t
    join runs as r using (campaign, run)
),
final as (
    select
        campaign, series, request, sort_order, direction, unit,
        count(*) as runs,
        median(per_unit) as median_bytes,
        quantile_cont(per_unit, 0.25) as q1_bytes,
        quantile_cont(per_unit, 0.75) as q3_bytes,
        min(per_unit) as min_bytes,
        max(per_unit) as max_bytes,
        median(units) as median_units,
        sum(counter_anomalies) as counter_anomalies,
        max(idle_bytes_per_s) as idle_bytes_per_s
    from long
    where per_unit is not null
    group by all
)
select * from final
order by campaign, sort_order, direction
