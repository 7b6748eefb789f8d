-- grain: one row per campaign, measured window (prefill, kv_snapshot), host and 50 Hz interval
-- key: campaign, window_kind, host, interface, start_s
-- why: the utilisation charts of §0 draw each host's link rate over a measured window, so the
-- ubatch bursts of the prefill and the saturated KV snapshot are visible. Only the measured
-- link's interface in the capture matched to the window (int_deployment__window_traffic) is
-- kept, from chart_margin_s before the window to chart_margin_s after it, so the idle edges
-- show while the row count stays small. Rates are the interval's byte delta over its own
-- length (intervals are ~20 ms but not exact); the fraction is of the rate the link was
-- shaped to (tc), else of the negotiated speed ethtool reported for that host's interface.
-- column window_kind: the measured window the interval belongs to: prefill or kv_snapshot
-- column host: the host whose counters the row is
-- column host_role: the host's role in the deployment: head or worker
-- column link_id: the link the window's traffic crossed
-- column source_file: the /proc/net/dev capture the interval was read from
-- column start_s: the interval's start, seconds after the window's start (negative in the margin
--    before it)
-- column end_s: the interval's end, seconds after the window's start
-- column window_s: the window's length
-- column interval_s: the interval's own length (about 20 ms at 50 Hz, not exact)
-- column tx_bytes: bytes the interface sent in the interval (counter delta, wraps handled)
-- column rx_bytes: bytes the interface received in the interval
-- column tx_bits_per_s: the interval's transmit rate: tx bytes x 8 / its length
-- column rx_bits_per_s: the interval's receive rate
-- column negotiated_bits_per_s: the interface's negotiated speed (ethtool)
-- column chart_rate_bits_per_s: the rate the fractions are of: the link's shaped rate (tc), else
--    the negotiated speed
-- column tx_line_rate_fraction: the transmit rate over that rate
-- column rx_line_rate_fraction: the receive rate over that rate
with windows as (
    select campaign, window_kind, host, link_id, interface, source_file, start_unix_s, end_unix_s
    from int_deployment__window_traffic
),
roles as (
    select campaign, host, role
    from int_deployment__host_roles
),
speed as (
    select campaign, host, interface, negotiated_bits_per_s, busy_rate_bits_per_s
    from int_deployment__interface_rates
),
margin as (
    select value::double as margin_s
    from ref_measurement_params
    where parameter = 'chart_margin_s'
),
intervals as (
    select
        w.campaign,
        w.window_kind,
        w.host,
        roles.role as host_role,
        w.link_id,
        w.interface,
        w.source_file,
        w.start_unix_s as window_start_unix_s,
        w.end_unix_s as window_end_unix_s,
        i.start_unix_s,
        i.end_unix_s,
        i.interval_s,
        i.tx_bytes,
        i.rx_bytes,
        speed.negotiated_bits_per_s,
        speed.busy_rate_bits_per_s as chart_rate_bits_per_s
    from windows as w
    cross join margin
    join int_netdev__intervals as i
        on i.source_file = w.source_file and i.interface = w.interface
        and i.end_unix_s > w.start_unix_s - margin.margin_s
        and i.start_unix_s < w.end_unix_s + margin.margin_s
    left join roles on roles.campaign = w.campaign and roles.host = w.host
    left join speed on speed.campaign = w.campaign and speed.host = w.host
        and speed.interface = w.interface
),
final as (
    select
        campaign,
        window_kind,
        host,
        host_role,
        link_id,
        interface,
        source_file,
        start_unix_s - window_start_unix_s as start_s,
        end_unix_s - window_start_unix_s as end_s,
        window_end_unix_s - window_start_unix_s as window_s,
        interval_s,
        tx_bytes,
        rx_bytes,
        bytes_to_bits(tx_bytes) / interval_s as tx_bits_per_s,
        bytes_to_bits(rx_bytes) / interval_s as rx_bits_per_s,
        negotiated_bits_per_s,
        chart_rate_bits_per_s,
        bytes_to_bits(tx_bytes) / interval_s / chart_rate_bits_per_s as tx_line_rate_fraction,
        bytes_to_bits(rx_bytes) / interval_s / chart_rate_bits_per_s as rx_line_rate_fraction
    from intervals
)
select * from final
order by campaign, window_kind, host, start_s
