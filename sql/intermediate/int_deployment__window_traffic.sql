-- grain: one row per campaign, measured window (prefill, decode, kv_snapshot) and host
-- Bytes each host sent and received on the measured link inside a journal window, with the
-- idle background removed: the idle rate is measured in the same capture, from its start up
-- to idle_guard_s before the first window the capture holds (a capture may hold several: the
-- prefill, then the KV snapshot; the traffic of an earlier window, and of a decode between
-- them, is not idle), and subtracted for the window's length. A sampling interval counts
-- when it overlaps the window, the ones cut by its start and its end both whole: a burst that
-- ends in the window's last milliseconds is counted (a KV copy on an unshaped veth lasts a
-- few ms, under one 5 ms interval); the windows the lab measures have quiet links around them.
with prefill as (
    select campaign, 'prefill' as window_kind, prefill_start_unix_s as start_unix_s,
           prefill_end_unix_s as end_unix_s
    from int_deployment__journal_runs
),
decode as (
    select campaign, 'decode' as window_kind, decode_start_unix_s as start_unix_s,
           decode_end_unix_s as end_unix_s
    from int_deployment__journal_runs
    where decode_start_unix_s is not null
),
snapshot as (
    select campaign, 'kv_snapshot' as window_kind, start_unix_s, end_unix_s
    from int_deployment__kv_snapshots
    qualify row_number() over (partition by campaign order by saved_tokens desc, end_unix_s) = 1
),
windows as (
    select * from prefill
    union all
    select * from decode
    union all
    select * from snapshot
),
captures as (
    select source_file, campaign, host, link_id, interface,
           min(start_unix_s) as first_unix_s, max(end_unix_s) as last_unix_s
    from int_netdev__intervals
    group by all
),
matched as (
    select windows.*, captures.source_file, captures.host, captures.link_id, captures.interface
    from windows
    join captures
        on captures.campaign = windows.campaign
        and captures.first_unix_s <= windows.start_unix_s
        and captures.last_unix_s >= windows.end_unix_s
    join int_deployment__link_interfaces as ends
        on ends.campaign = captures.campaign and ends.link_id = captures.link_id
        and ends.host = captures.host and ends.interface = captures.interface
),
first_window as (
    select source_file, min(start_unix_s) as first_start_unix_s
    from matched
    group by source_file
),
guard as (
    select value::double as idle_guard_s
    from ref_measurement_params
    where parameter = 'idle_guard_s'
),
sums as (
    select
        m.campaign, m.window_kind, m.host, m.link_id, m.interface, m.source_file,
        m.start_unix_s, m.end_unix_s,
        sum(i.tx_bytes) filter (where i.end_unix_s > m.start_unix_s and i.start_unix_s < m.end_unix_s)
            as tx_window_bytes,
        sum(i.rx_bytes) filter (where i.end_unix_s > m.start_unix_s and i.start_unix_s < m.end_unix_s)
            as rx_window_bytes,
        sum(i.tx_bytes) filter (where i.end_unix_s <= f.first_start_unix_s - g.idle_guard_s) as tx_idle_bytes,
        sum(i.rx_bytes) filter (where i.end_unix_s <= f.first_start_unix_s - g.idle_guard_s) as rx_idle_bytes,
        sum(i.interval_s) filter (where i.end_unix_s <= f.first_start_unix_s - g.idle_guard_s) as idle_s,
        count(*) filter (where i.end_unix_s > m.start_unix_s and i.start_unix_s < m.end_unix_s
                         and (i.tx_status <> 'ok' or i.rx_status <> 'ok')) as counter_anomalies
    from matched as m
    join int_netdev__intervals as i on i.source_file = m.source_file and i.interface = m.interface
    join first_window as f on f.source_file = m.source_file
    cross join guard as g
    group by all
),
final as (
    select
        *,
        end_unix_s - start_unix_s as window_s,
        tx_idle_bytes / idle_s as tx_idle_bytes_per_s,
        rx_idle_bytes / idle_s as rx_idle_bytes_per_s,
        tx_window_bytes - tx_idle_bytes / idle_s * (end_unix_s - start_unix_s) as tx_bytes,
        rx_window_bytes - rx_idle_bytes / idle_s * (end_unix_s - start_unix_s) as rx_bytes
    from sums
)
select * from final
order by campaign, window_kind, host
