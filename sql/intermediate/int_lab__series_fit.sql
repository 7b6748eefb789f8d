-- grain: one row per lab series campaign, measured quantity and model
-- The two models fitted on the calibration runs only (int_lab__series_points):
--   additive:  y = a + S x            compute plus all the wire time (least squares);
--   corrected: y = a + S x + K max(0, x - k) for the prefill, llama.cpp's pipeline: a
--              micro-batch's transfer overlaps the head's compute of the next one, so above the
--              knee rate (x < k) only S, the bytes nothing overlaps (the last micro-batch's),
--              cost wire time, and below it every byte does (S + K). k is the candidate of
--              ref_measurement_params.lab_kink_grid_points (between an unshaped link and the
--              slowest calibration rate) with the least squared error; a, S and K are least
--              squares for that k, both slopes at least 0.
--              A decode step has the same two regimes on a tbf-shaped link for another reason:
--              tbf lets a burst (its bucket, 64 KiB here) through at once when the bucket has
--              refilled between steps, so on fast links only the step's bytes beyond the burst
--              cost wire time (S), while on slow links the bucket never refills and every byte
--              does (S + K: then a step takes about its bytes / rate, the logits included).
--              A KV snapshot (one copy of megabytes, far beyond the burst) keeps the additive
--              form.
-- Fits minimise relative squared errors (weight 1 / y^2). The range: the prediction times
-- (1 +/- h). Each calibration rate between two others is predicted by the same model fitted
-- without that rate (leave one rate out), which gives n absolute relative errors at rates the
-- fit did not see, inside the span it was calibrated on. h is the k-th smallest of them, k =
-- ceil(q (n + 1)) for q the lab_range_quantile (split-conformal's rule: a new rate's error is
-- as likely to rank anywhere among the n + 1, so it exceeds the k-th with probability at most
-- 1 - q). When k > n no error of the n is large enough to promise q: the model has no range
-- (for q = 0.9, n must be at least 9). This rule was fixed before the series that tests it was
-- captured (issue 37). The range is for a rate's median run; each rate's spread is in
-- fct_lab_series_rates.
with points as (
    select * from int_lab__series_points where role = 'calibration'
),
params as (
    select
        max(value::double) filter (where parameter = 'lab_range_quantile') as range_quantile,
        max(value::double) filter (where parameter = 'lab_kink_grid_points') as grid_points
    from ref_measurement_params
),
folds as (
    -- '' is the published fit on every calibration rate; each other fold leaves one calibration
    -- rate out, so that rate can be predicted by a fit that never saw it (the range's residuals)
    select distinct campaign, quantity, '' as fold from points
    union all
    -- only a rate between two others is left out: the range is for rates inside the
    -- calibrated span, where the model interpolates (leaving out an end would extrapolate)
    select distinct campaign, quantity, link_id from points
    qualify x > min(x) over (partition by campaign, quantity)
        and x < max(x) over (partition by campaign, quantity)
),
weighted as (
    select f.fold, p.*, 1 / (p.y * p.y) as w
    from folds as f
    join points as p using (campaign, quantity)
    where p.y > 0 and p.link_id <> f.fold
),
grid as (
    -- knee candidates per campaign and quantity: i / grid_points of the slowest calibration x
    select p.campaign, p.quantity, p.fold, max(p.x) * g.i / params.grid_points as knee
    from weighted as p, params, range(1, 10001) as g(i)
    where g.i < params.grid_points
    group by p.campaign, p.quantity, p.fold, g.i, params.grid_points
),
moments as (
    -- weighted least squares with two regressors, x and z = max(0, x - knee), from the
    -- weighted covariances; weight 1 / y^2, so the fit minimises relative errors (a 15 ms
    -- snapshot on the unshaped link counts as much as a 3 s one at 25 Mbit/s)
    select
        grid.campaign, grid.quantity, grid.fold, grid.knee,
        sum(p.w * p.x * p.x) / sum(p.w) - power(sum(p.w * p.x) / sum(p.w), 2) as sxx,
        sum(p.w * power(greatest(p.x - grid.knee, 0), 2)) / sum(p.w)
            - power(sum(p.w * greatest(p.x - grid.knee, 0)) / sum(p.w), 2) as szz,
        sum(p.w * p.x * greatest(p.x - grid.knee, 0)) / sum(p.w)
            - sum(p.w * p.x) / sum(p.w) * sum(p.w * greatest(p.x - grid.knee, 0)) / sum(p.w) as sxz,
        sum(p.w * p.x * p.y) / sum(p.w) - sum(p.w * p.x) / sum(p.w) * sum(p.w * p.y) / sum(p.w) as sxy,
        sum(p.w * greatest(p.x - grid.knee, 0) * p.y) / sum(p.w)
            - sum(p.w * greatest(p.x - grid.knee, 0)) / sum(p.w) * sum(p.w * p.y) / sum(p.w) as szy,
        sum(p.w * p.x) / sum(p.w) as mx,
        sum(p.w * greatest(p.x - grid.knee, 0)) / sum(p.w) as mz,
        sum(p.w * p.y) / sum(p.w) as my
    from grid
    join weighted as p using (campaign, quantity, fold)
    group by all
),
candidates as (
    select
        campaign, quantity, fold, knee,
        (szz * sxy - sxz * szy) / (sxx * szz - sxz * sxz) as slope,
        (sxx * szy - sxz * sxy) / (sxx * szz - sxz * sxz) as knee_slope,
        mx, mz, my
    from moments
    where sxx * szz - sxz * sxz > 1e-12 * sxx * szz
),
scored as (
    select
        c.campaign, c.quantity, c.fold, c.knee, c.slope, c.knee_slope,
        c.my - c.slope * c.mx - c.knee_slope * c.mz as intercept,
        sum(p.w * power(p.y - (c.my - c.slope * c.mx - c.knee_slope * c.mz) - c.slope * p.x
                        - c.knee_slope * greatest(p.x - c.knee, 0), 2)) as sse
    from candidates as c
    join weighted as p using (campaign, quantity, fold)
    -- a byte cannot save time: both slopes at least 0
    where c.slope >= 0 and c.knee_slope >= 0
    group by all
),
linear as (
    -- the same weighted least squares with x alone
    select
        campaign, quantity, fold,
        (sum(w * x * y) / sum(w) - sum(w * x) / sum(w) * sum(w * y) / sum(w))
            / (sum(w * x * x) / sum(w) - power(sum(w * x) / sum(w), 2)) as slope,
        sum(w * y) / sum(w) - sum(w * x) / sum(w)
            * (sum(w * x * y) / sum(w) - sum(w * x) / sum(w) * sum(w * y) / sum(w))
            / (sum(w * x * x) / sum(w) - power(sum(w * x) / sum(w), 2)) as intercept
    from weighted
    group by all
),
linear_scored as (
    -- the additive fit as one more candidate of the corrected one (no knee): with too few rates
    -- for a knee (no candidate with both slopes at least 0) the corrected model is the additive
    select l.campaign, l.quantity, l.fold, 0.0 as knee, l.slope, 0.0 as knee_slope, l.intercept,
           sum(p.w * power(p.y - l.intercept - l.slope * p.x, 2)) as sse
    from linear as l
    join weighted as p using (campaign, quantity, fold)
    group by all
),
fits as (
    select campaign, quantity, fold, 'additive' as model, 0.0 as knee, slope, 0.0 as knee_slope,
           intercept
    from linear
    union all
    select campaign, quantity, fold, 'corrected', knee, slope, knee_slope, intercept
    from (select campaign, quantity, fold, knee, slope, knee_slope, intercept, sse from scored
          union all
          select campaign, quantity, fold, knee, slope, knee_slope, intercept, sse from linear_scored)
    where quantity in ('prefill', 'decode step')
    qualify row_number() over (partition by campaign, quantity, fold order by sse, knee) = 1
    union all
    select campaign, quantity, fold, 'corrected', 0.0, slope, 0.0, intercept
    from linear where quantity not in ('prefill', 'decode step')
),
medians as (
    -- each calibration rate's median run: the range is for the median run of a rate
    select campaign, quantity, link_id, any_value(tcp_bytes_per_s) as tcp_bytes_per_s,
           any_value(x) as x, median(y) as y, count(*) as runs
    from points
    group by all
),
span as (
    select
        campaign, quantity,
        count(*) as calibration_rates,
        sum(runs) as calibration_runs,
        min(tcp_bytes_per_s) as calibrated_min_bytes_per_s,
        max(tcp_bytes_per_s) as calibrated_max_bytes_per_s
    from medians
    group by all
),
residuals as (
    -- each interior calibration rate's median against the fit that left that rate out
    select
        f.campaign, f.quantity, f.model,
        list_sort(list(abs((f.intercept + f.slope * m.x + f.knee_slope * greatest(m.x - f.knee, 0))
                           / m.y - 1))) as sorted_residuals,
        count(*) as left_out_rates
    from fits as f
    join medians as m on m.campaign = f.campaign and m.quantity = f.quantity and m.link_id = f.fold
    group by all
),
ranked as (
    -- the rank k = ceil(q (n + 1)) whose error is h (a hair under, so 0.9 x 10 is 9, not 10)
    select
        r.*,
        params.range_quantile,
        ceil(params.range_quantile * (r.left_out_rates + 1) - 1e-9)::int as range_rank
    from residuals as r, params
),
range_width as (
    select
        *,
        case when range_rank <= left_out_rates then sorted_residuals[range_rank] end as range_fraction
    from ranked
),
final as (
    select
        f.campaign,
        f.quantity,
        f.model,
        f.intercept,
        f.slope,
        f.knee_slope,
        f.knee,
        r.range_fraction,
        params.range_quantile,
        coalesce(r.left_out_rates, 0) as left_out_rates,
        r.sorted_residuals as left_out_errors,
        -- the fewest left-out rates with k <= n: n >= q / (1 - q)
        ceil(params.range_quantile / (1 - params.range_quantile) - 1e-9)::int as min_left_out_rates,
        span.calibration_runs,
        span.calibration_rates,
        span.calibrated_min_bytes_per_s,
        span.calibrated_max_bytes_per_s
    from fits as f
    join span using (campaign, quantity)
    cross join params
    left join range_width as r using (campaign, quantity, model)
    where f.fold = ''
)
select * from final
order by campaign, quantity, model
