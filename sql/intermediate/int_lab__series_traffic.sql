-- grain: one row per run of a lab series campaign and request (prefill, decode, kv_snapshot)
-- The bytes each request of a run put on the lab's links, all hops together
-- (int_lab__hop_traffic summed over the hops: head_to_worker is what the head sent to any
-- worker, worker_to_head what it received from any). A request counts only when every hop of
-- its campaign was counted in the same capture: a total never leaves a hop out.
with hops as (
    select * from int_lab__hop_traffic
),
hop_count as (
    select campaign, count(distinct interface) as hops from hops group by all
),
summed as (
    select
        campaign, run, rate_mbit, link_id, request, sort_order, units, unit, start_unix_s,
        end_unix_s, source_file,
        count(*) as hops,
        max(widest_interval_s) as widest_interval_s,
        sum(head_to_worker_bytes) as head_to_worker_bytes,
        sum(worker_to_head_bytes) as worker_to_head_bytes,
        max(intervals) as intervals,
        sum(counter_anomalies) as counter_anomalies,
        sum(idle_bytes) as idle_bytes,
        max(idle_s) as idle_s
    from hops
    group by all
),
final as (
    select
        s.campaign, s.run, s.rate_mbit, s.link_id, s.request, s.sort_order, s.units, s.unit,
        s.start_unix_s, s.end_unix_s, s.source_file, s.hops, s.widest_interval_s,
        s.head_to_worker_bytes, s.worker_to_head_bytes, s.intervals, s.counter_anomalies,
        (s.head_to_worker_bytes + s.worker_to_head_bytes) / s.units as bytes_per_unit,
        s.head_to_worker_bytes / s.units as head_to_worker_per_unit,
        s.worker_to_head_bytes / s.units as worker_to_head_per_unit,
        s.idle_bytes, s.idle_s
    from summed as s
    join hop_count as h on h.campaign = s.campaign and h.hops = s.hops
)
select * from final
order by campaign, run, sort_order
