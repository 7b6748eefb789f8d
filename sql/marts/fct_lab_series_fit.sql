-- grain: one row per lab series campaign, measured quantity and model
-- key: campaign, quantity, model
-- Each model's fit and how it did on the rates it never saw (fct_lab_series_validation):
-- median absolute error, how many validated medians its range holds, and the range's width.
-- The targets (ref_measurement_params lab_target_*: median absolute error <= 5 %, >= 90 % of
-- validated medians inside, range <= +/-10 % at every rate); meets_targets says whether all hold.
-- column series: the lab series (manifest params.lab_series)
-- column quantity: prefill, decode step or KV snapshot
-- column sort_order: the quantity's order: prefill, decode step, KV snapshot
-- column model: additive or corrected (int_lab__series_fit: two regimes either side of a knee rate
--    for the prefill and the decode step)
-- column intercept_s: the fitted time with no wire time (compute and fixed costs), seconds
-- column slope_bytes: the fitted bytes per run of the quantity that cost wire time (prefill: the
--    whole prompt; decode: one step; snapshot: the copy)
-- column knee_slope_bytes: the further bytes that cost wire time below the knee rate (K; 0 for a
--    model without a knee)
-- column knee_bits_per_s: the TCP rate 1/k between the two regimes (above it only slope_bytes cost
--    wire time); empty when the model has no knee
-- column range_fraction: h, the range's half-width as a fraction of the predicted time: the k-th
--    smallest of the left-out calibration rates' absolute relative errors, k = ceil(q (n + 1));
--    empty when k > n (too few left-out rates to promise q)
-- column range_quantile: q, the share of rates the range is meant to hold (the lab_range_quantile
--    parameter of measurement_params.csv)
-- column left_out_rates: n, the calibration rates between two others, each predicted by a fit
--    without it
-- column min_left_out_rates: the fewest left-out rates that give a range at q (q / (1 - q),
--    rounded up: 9 for 0.9)
-- column calibration_runs: runs the fit saw
-- column calibration_rates: rates (links) the fit saw, the unshaped link included
-- column calibrated_min_bits_per_s: the slowest calibrated TCP rate: the range of rates the model
--    holds for starts here
-- column calibrated_max_bits_per_s: the fastest calibrated TCP rate (the unshaped veth)
-- column validated_rates: rates the model predicted without seeing them
-- column median_abs_error_fraction: the median of |predicted / measured - 1| over the validated rates
-- column max_abs_error_fraction: the largest |predicted / measured - 1| over the validated rates
-- column inside_range_fraction: the share of validated medians inside the model's range
-- column max_range_half_width_fraction: the widest half-width of the published range, relative to
--    the prediction, over every rate
-- column meets_targets: the three lab_target_* parameters hold (median error, share inside,
--    half-width); false when no rate was validated
-- column measured_wire_bytes: the bytes the quantity's request put on the link, both directions,
--    as the series' netdev counted them (fct_lab_series_traffic medians: per prompt for the
--    prefill, per step for the decode, per copy for the snapshot); empty without a capture.
--    Frames with their headers, while the slopes count bytes at iperf3's TCP goodput, so a model
--    whose every byte costs wire time has a slope a few percent below it
-- column slope_share_of_wire: slope_bytes / measured_wire_bytes: the share of the bytes that cost
--    wire time above the knee (all of them for the additive model)
-- column slow_side_share_of_wire: (slope + knee slope) / measured_wire_bytes: the share that costs
--    wire time below the knee (near 1 when every byte does)
with targets as (
    select
        max(value::double) filter (where parameter = 'lab_target_median_error') as median_error,
        max(value::double) filter (where parameter = 'lab_target_inside_range') as inside_range,
        max(value::double) filter (where parameter = 'lab_target_half_width') as half_width
    from ref_measurement_params
),
fit as (
    select * from int_lab__series_fit
),
validation as (
    select * from fct_lab_series_validation
),
wire as (
    select campaign,
           case request when 'prefill' then 'prefill' when 'decode' then 'decode step'
                else 'KV snapshot' end as quantity,
           sum(median_bytes * case request when 'decode' then 1 else median_units end)
               as measured_wire_bytes
    from fct_lab_series_traffic
    group by all
),
scores as (
    select
        campaign, quantity, model,
        any_value(series) as series,
        any_value(sort_order) as sort_order,
        count(*) filter (where role = 'validation') as validated_rates,
        median(abs(error_fraction)) filter (where role = 'validation') as median_abs_error_fraction,
        max(abs(error_fraction)) filter (where role = 'validation') as max_abs_error_fraction,
        avg(inside_range::int) filter (where role = 'validation') as inside_range_fraction,
        max(greatest(predicted_high / predicted - 1, 1 - predicted_low / predicted))
            as max_range_half_width_fraction
    from validation
    group by all
),
final as (
    select
        f.campaign,
        s.series,
        f.quantity,
        s.sort_order,
        f.model,
        f.intercept as intercept_s,
        f.slope as slope_bytes,
        f.knee_slope as knee_slope_bytes,
        case when f.knee > 0 then bytes_to_bits(1 / f.knee) end as knee_bits_per_s,
        f.range_fraction,
        f.range_quantile,
        f.left_out_rates,
        f.min_left_out_rates,
        f.calibration_runs,
        f.calibration_rates,
        bytes_to_bits(f.calibrated_min_bytes_per_s) as calibrated_min_bits_per_s,
        bytes_to_bits(f.calibrated_max_bytes_per_s) as calibrated_max_bits_per_s,
        s.validated_rates,
        s.median_abs_error_fraction,
        s.max_abs_error_fraction,
        s.inside_range_fraction,
        s.max_range_half_width_fraction,
        coalesce(s.median_abs_error_fraction <= t.median_error
                 and s.inside_range_fraction >= t.inside_range
                 and s.max_range_half_width_fraction <= t.half_width, false) as meets_targets,
        w.measured_wire_bytes,
        f.slope / w.measured_wire_bytes as slope_share_of_wire,
        (f.slope + f.knee_slope) / w.measured_wire_bytes as slow_side_share_of_wire
    from fit as f
    join scores as s using (campaign, quantity, model)
    cross join targets as t
    left join wire as w using (campaign, quantity)
)
select * from final
order by campaign, sort_order, model
