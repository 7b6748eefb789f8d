-- grain: one row per lab run (fct_lab_rpc_runs) and predicted quantity
-- key: campaign, quantity
-- scope: comparison
-- The §0.3 model checked against real runs: the runs of one series are compared on purpose
-- (every published campaign is read; series never mix). It is calibrated on one run of each series, the
-- one on the fastest link (highest measured TCP rate, so its time is mostly compute), and
-- predicts every other run by swapping only the wire time, with the calibration run's bytes:
--   prefill:  a ubatch takes residual + ubatch_bytes / tcp rate, residual = the calibration
--             run's measured ubatch time minus its own wire time; tok/s = ubatch / that;
--   decode:   a step takes residual + RTT + step bytes (verify positions x the prefill's wire
--             bytes per position, both ways) / tcp rate;
--   snapshot: the copy takes residual + copied bytes / tcp rate.
-- error_fraction = predicted / measured - 1 (the calibration run is 0 by construction).
-- column series: the lab series the run belongs to; a run is predicted from its own series'
--    calibration run only
-- column quantity: what is predicted: prefill (tok/s), decode step (s) or KV snapshot (s)
-- column sort_order: the quantity's order: prefill, decode step, KV snapshot
-- column unit: the unit of measured and predicted: tok/s or s
-- column link_label: the run's link label from its manifest
-- column tcp_bits_per_s: the run's measured TCP rate (mean of the two iperf3 directions)
-- column calibration_campaign: the series' run on the fastest link, whose residual every prediction
--    uses
-- column is_calibration: true on the calibration run itself (its error is 0 by construction)
-- column measured: the quantity as the run measured it, in unit
-- column predicted: the quantity the model predicts for the run, in unit: the calibration's
--    residual + this run's wire time (+ RTT for a decode step)
-- column predicted_wire_s: the wire time in the prediction: the calibration run's bytes / this
--    run's TCP rate
-- column error_fraction: predicted / measured - 1
-- column model_verdict: pessimistic (predicted slower than it ran) or optimistic; empty on the
--    calibration run
-- column is_largest_error: true on the run with its quantity's largest absolute error in the series
-- column predicted_runs: how many runs of the series the quantity was predicted for (calibration
--    excluded)
with runs as (
    select * from fct_lab_rpc_runs
),
calibration as (
    select *
    from runs
    where tcp_bytes_per_s is not null
    qualify row_number() over (partition by series order by tcp_bytes_per_s desc, campaign) = 1
),
base as (
    select
        r.campaign,
        r.series,
        r.shaped_rate_bits_per_s,
        r.link_label,
        r.tcp_bytes_per_s,
        r.rtt_avg_s,
        c.campaign as calibration_campaign,
        r.campaign = c.campaign as is_calibration,
        r.ubatch_tokens,
        r.prefill_tokens_per_s,
        r.decode_step_s,
        r.snapshot_s,
        c.ubatch_bytes as cal_ubatch_bytes,
        c.ubatch_s - c.ubatch_bytes / c.tcp_bytes_per_s as prefill_residual_s,
        c.decode_step_wire_bytes as cal_step_bytes,
        c.decode_step_s - c.rtt_avg_s - c.decode_step_wire_bytes / c.tcp_bytes_per_s
            as decode_residual_s,
        c.snapshot_bytes as cal_snapshot_bytes,
        c.snapshot_s - c.snapshot_bytes / c.tcp_bytes_per_s as snapshot_residual_s,
        r.source_files
    from runs as r
    join calibration as c on c.series = r.series
),
quantities as (
    select *, 'prefill' as quantity, 1 as sort_order, 'tok/s' as unit,
           prefill_tokens_per_s as measured,
           ubatch_tokens / (prefill_residual_s + cal_ubatch_bytes / tcp_bytes_per_s) as predicted,
           cal_ubatch_bytes / tcp_bytes_per_s as predicted_wire_s
    from base
    union all
    select *, 'decode step', 2, 's',
           decode_step_s,
           decode_residual_s + rtt_avg_s + cal_step_bytes / tcp_bytes_per_s,
           cal_step_bytes / tcp_bytes_per_s
    from base
    union all
    select *, 'KV snapshot', 3, 's',
           snapshot_s,
           snapshot_residual_s + cal_snapshot_bytes / tcp_bytes_per_s,
           cal_snapshot_bytes / tcp_bytes_per_s
    from base
),
final as (
    select
        campaign,
        series,
        quantity,
        sort_order,
        unit,
        shaped_rate_bits_per_s,
        link_label,
        bytes_to_bits(tcp_bytes_per_s) as tcp_bits_per_s,
        rtt_avg_s,
        calibration_campaign,
        is_calibration,
        measured,
        predicted,
        predicted_wire_s,
        predicted / measured - 1 as error_fraction,
        -- pessimistic: the model has the run slower than it ran (fewer tok/s, a longer time)
        case when predicted / measured - 1 is null or is_calibration then null
             when (unit = 's') = (predicted > measured) then 'pessimistic'
             else 'optimistic' end as model_verdict,
        -- the run with the largest error of its quantity (calibration run excluded)
        not is_calibration and predicted / measured - 1 is not null
            and row_number() over (partition by series, quantity
                                   order by is_calibration, abs(predicted / measured - 1) desc nulls last,
                                            campaign) = 1 as is_largest_error,
        count(predicted / measured - 1) filter (where not is_calibration)
            over (partition by series, quantity) as predicted_runs,
        source_files
    from quantities
)
select * from final
order by series, sort_order, tcp_bits_per_s, campaign
