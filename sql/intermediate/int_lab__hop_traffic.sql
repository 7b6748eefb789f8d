-- grain: one row per run of a lab series campaign, request (prefill, decode, kv_snapshot) and hop
-- The bytes each request of a run put on each of the lab's links, from the head's netdev capture
-- (a hop is one worker's link to the head; the head's end carries both directions: tx is head ->
-- worker, rx is worker -> head). A split over one worker has one hop; over two, llama.cpp's RPC
-- client copies from one worker to the next through the head, so each hop carries its own
-- worker's inputs and outputs. A request's window is what llama-server timed: the task's prompt
-- eval and eval time up to its timing lines; for the snapshot, from the start of the
-- prompt-cache update (its line's instant minus its duration) to the snapshot task's timing
-- lines. The window reaches lab_window_margin_s further both ways: the driver leaves a quiet
-- second between requests, so a sampling interval that the window touches holds this request's
-- bytes or none, and the margin takes the bytes that the log's line instants (written a moment
-- after the work) would cut off. No idle background is subtracted: the lab's veths carry nothing
-- else (the idle_bytes column shows what crossed each in the capture's first quiet seconds).
with runs as (
    select * from int_lab__series_runs
),
journal as (
    select campaign, source_file, source_line, task_id, event, unix_s, duration_s
    from stg_deployment__journal
),
margin as (
    select value::double as margin_s from ref_measurement_params where parameter = 'lab_window_margin_s'
),
task_time as (
    select campaign, source_file, task_id,
           max(unix_s) filter (where event in ('prompt_eval', 'eval')) as timed_unix_s,
           sum(duration_s) filter (where event in ('prompt_eval', 'eval')) as busy_s
    from journal
    where task_id is not null
    group by all
),
windows as (
    -- prefill and decode: the task's own timing, whichever of the run's two tasks it is
    select r.campaign, r.run, r.rate_mbit, r.link_id, q.request, q.sort_order,
           case q.request when 'prefill' then r.prefill_tokens else r.decode_tokens end as units,
           q.unit, t.timed_unix_s - t.busy_s as start_unix_s, t.timed_unix_s as end_unix_s
    from runs as r
    cross join (values ('prefill', 1, 'position'), ('decode', 2, 'step')) as q(request, sort_order, unit)
    join task_time as t on t.campaign = r.campaign and t.source_file = r.journal_file
        and t.task_id = case q.request when 'prefill' then r.prefill_task else r.decode_task end
    union all
    select r.campaign, r.run, r.rate_mbit, r.link_id, 'kv_snapshot', 3, r.snapshot_tokens, 'token',
           u.unix_s - u.duration_s, t.timed_unix_s
    from runs as r
    join journal as u on u.campaign = r.campaign and u.source_file = r.journal_file
        and u.source_line = r.snapshot_update_line
    join task_time as t on t.campaign = r.campaign and t.source_file = r.journal_file
        and t.task_id = r.snapshot_task
),
head_end as (
    -- the head's end of each hop (every rate of a hop is the same veth pair) and the worker at
    -- the hop's other end
    select i.campaign, i.host, i.interface, max(w.host) as worker_host
    from int_deployment__link_interfaces as i
    join stg_raw__campaigns as c using (campaign)
    join int_deployment__host_roles as h on h.campaign = i.campaign and h.host = i.host
    left join int_deployment__link_interfaces as w
        on w.campaign = i.campaign and w.link_id = i.link_id and w.host <> i.host
    where c.kind = 'lab_series' and h.role = 'head' and i.interface is not null
    group by all
),
intervals as (
    select n.campaign, n.source_file, n.interface, e.worker_host, n.start_unix_s, n.end_unix_s,
           n.tx_bytes, n.rx_bytes, n.tx_status, n.rx_status
    from int_netdev__intervals as n
    join head_end as e on e.campaign = n.campaign and e.host = n.host and e.interface = n.interface
),
captures as (
    select campaign, source_file, interface, worker_host, min(start_unix_s) as first_unix_s,
           max(end_unix_s) as last_unix_s, max(end_unix_s - start_unix_s) as widest_interval_s
    from intervals
    group by all
),
idle as (
    -- what crossed the link before the first request (the capture's quiet lead)
    select i.source_file, i.interface, sum(i.tx_bytes + i.rx_bytes) as idle_bytes,
           sum(i.end_unix_s - i.start_unix_s) as idle_s
    from intervals as i
    join (select campaign, min(start_unix_s) as first_start from windows group by all) as w
        on w.campaign = i.campaign and i.end_unix_s <= w.first_start
    group by all
),
counted as (
    select w.campaign, w.run, w.rate_mbit, w.link_id, w.request, w.sort_order, w.units, w.unit,
           w.start_unix_s, w.end_unix_s, c.source_file, c.interface, c.worker_host,
           c.widest_interval_s,
           sum(i.tx_bytes) as head_to_worker_bytes,
           sum(i.rx_bytes) as worker_to_head_bytes,
           count(*) as intervals,
           count(*) filter (where i.tx_status <> 'ok' or i.rx_status <> 'ok') as counter_anomalies
    from windows as w
    cross join margin as m
    join captures as c on c.campaign = w.campaign
        and c.first_unix_s <= w.start_unix_s - m.margin_s and c.last_unix_s >= w.end_unix_s + m.margin_s
    join intervals as i on i.source_file = c.source_file and i.interface = c.interface
        and i.end_unix_s > w.start_unix_s - m.margin_s and i.start_unix_s < w.end_unix_s + m.margin_s
    group by all
),
final as (
    select counted.*,
           (head_to_worker_bytes + worker_to_head_bytes) / units as bytes_per_unit,
           head_to_worker_bytes / units as head_to_worker_per_unit,
           worker_to_head_bytes / units as worker_to_head_per_unit,
           idle.idle_bytes, idle.idle_s
    from counted
    left join idle using (source_file, interface)
)
select * from final
order by campaign, run, sort_order, worker_host
