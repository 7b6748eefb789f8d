-- grain: one row per lab series campaign, link (rate), measured quantity and model
-- key: campaign, link_id, quantity, model
-- Each rate's measured median (fct_lab_series_rates) beside what each model fitted on the
-- calibration runs (int_lab__series_fit) predicts for that rate's TCP rate, with the model's
-- range. Prefill is published as tok/s: tokens / predicted prompt time, its range tokens /
-- (time x (1 +/- h)); a decode step and a snapshot in seconds, time x (1 +/- h).
-- column series: the lab series (manifest params.lab_series)
-- column link_id: the rate's link (veth_tbf<R>, or veth unshaped)
-- column shaped_rate_bits_per_s: the tbf rate, empty when unshaped
-- column tcp_bits_per_s: the link's measured TCP rate (mean of the two iperf3 directions)
-- column quantity: prefill (tok/s), decode step (s) or KV snapshot (s)
-- column sort_order: the quantity's order: prefill, decode step, KV snapshot
-- column unit: tok/s or s
-- column model: additive (compute + every wire byte) or corrected (two regimes either side of a
--    knee rate for the prefill and the decode step; for a snapshot the same as additive)
-- column role: calibration (the fit saw this rate's runs) or validation (it did not)
-- column runs: the rate's runs
-- column measured: the runs' median, in unit
-- column ci_low: the exact bootstrap 95 % interval of the median, lower end
-- column ci_high: the exact bootstrap 95 % interval of the median, upper end
-- column predicted: the model's prediction for the rate, in unit
-- column predicted_low: the lower end of the model's range, in unit
-- column predicted_high: the upper end of the model's range, in unit
-- column range_fraction: h, the range's half-width as a fraction of the predicted time
-- column error_fraction: predicted / measured - 1
-- column inside_range: true when the measured median lies inside [predicted_low, predicted_high]
with rates as (
    select * from fct_lab_series_rates
),
fit as (
    select * from int_lab__series_fit
),
points as (
    select campaign, link_id, quantity, any_value(role) as role, median(tokens) as tokens
    from int_lab__series_points
    group by all
),
predicted as (
    select
        r.*,
        f.model,
        p.role,
        p.tokens,
        f.range_fraction,
        f.intercept + f.slope / bits_to_bytes(r.tcp_bits_per_s)
            + f.knee_slope * greatest(1 / bits_to_bytes(r.tcp_bits_per_s) - f.knee, 0) as time_s
    from rates as r
    join fit as f using (campaign, quantity)
    join points as p using (campaign, link_id, quantity)
),
published as (
    select
        *,
        case when unit = 'tok/s' then tokens / time_s else time_s end as predicted,
        case when unit = 'tok/s' then tokens / (time_s * (1 + range_fraction))
             else time_s * (1 - range_fraction) end as predicted_low,
        case when unit = 'tok/s' then tokens / (time_s * (1 - range_fraction))
             else time_s * (1 + range_fraction) end as predicted_high
    from predicted
),
final as (
    select
        campaign,
        series,
        link_id,
        shaped_rate_bits_per_s,
        tcp_bits_per_s,
        quantity,
        sort_order,
        unit,
        model,
        role,
        runs,
        median as measured,
        ci_low,
        ci_high,
        predicted,
        predicted_low,
        predicted_high,
        range_fraction,
        predicted / median - 1 as error_fraction,
        -- (a relative 1e-9 of slack: a zero-width range holds a median equal to it up to rounding)
        median between predicted_low * (1 - 1e-9) and predicted_high * (1 + 1e-9) as inside_range,
        source_files
    from published
)
select * from final
order by campaign, sort_order, model, shaped_rate_bits_per_s nulls last, link_id
