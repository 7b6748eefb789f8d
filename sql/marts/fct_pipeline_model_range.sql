-- grain: one row: the prefill pipeline model as the lab series validated it
-- key: model
-- scope: comparison
-- What fct_lab_pipeline_model's rates say about the model a deployment's prefill what-if uses
-- (fct_prefill_pipeline_what_if): how far its predictions fell from the measured medians, the
-- range published with every prediction, and whether it met the publishing targets
-- (ref_measurement_params lab_target_*). The published h is the ceil(q (n + 1))-th smallest
-- absolute error of all n rates; the share inside comes from the leave-one-series-out ranges
-- (each series judged by a range made without it), so it is not the published range scoring
-- itself. Empty (no row) when no lab series can test it.
-- column model: always 'pipeline'
-- column series: lab series behind it
-- column exposed_wire_fraction: phi fitted on every series' rates (the model's one constant)
-- column rates: shaped rates predicted (none of them used to fit anything)
-- column median_abs_error_fraction: the median |predicted / measured - 1| over those rates
-- column max_abs_error_fraction: the largest of them
-- column range_fraction: h over every series' rates; empty when there are too few (fewer than
--    q / (1 - q))
-- column range_quantile: q, the share of rates the range is meant to hold (lab_range_quantile)
-- column inside_range_fraction: the share of rates whose median lies inside the range made
--    without its series (fct_lab_pipeline_model.inside_range)
-- column max_range_half_width_fraction: the widest range, the published one and every
--    leave-one-series-out one
-- column meets_targets: there is a range, and median error, share inside and range width are all
--    within lab_target_*
with rows as (
    select * from fct_lab_pipeline_model
),
params as (
    select
        max(value::double) filter (where parameter = 'lab_range_quantile') as q,
        max(value::double) filter (where parameter = 'lab_target_median_error') as median_error,
        max(value::double) filter (where parameter = 'lab_target_inside_range') as inside_range,
        max(value::double) filter (where parameter = 'lab_target_half_width') as half_width
    from ref_measurement_params
),
pooled as (
    select
        count(distinct campaign) as series,
        count(*) as rates,
        median(abs(error_fraction)) as median_abs_error_fraction,
        max(abs(error_fraction)) as max_abs_error_fraction,
        list_sort(list(abs(error_fraction))) as sorted_errors,
        avg(inside_range::int) as inside_range_fraction,
        max(range_fraction) as widest_left_out_fraction,
        max(published_exposed_wire_fraction) as exposed_wire_fraction
    from rows
    having count(*) > 0
),
ranked as (
    select pooled.*, params.*,
           ceil(params.q * (pooled.rates + 1) - 1e-9)::bigint as rank_k
    from pooled
    cross join params
),
final as (
    select
        'pipeline' as model,
        series,
        exposed_wire_fraction,
        rates,
        median_abs_error_fraction,
        max_abs_error_fraction,
        case when rank_k <= rates then sorted_errors[rank_k] end as range_fraction,
        q as range_quantile,
        inside_range_fraction,
        greatest(case when rank_k <= rates then sorted_errors[rank_k] end,
                 widest_left_out_fraction) as max_range_half_width_fraction,
        coalesce(rank_k <= rates
                 and median_abs_error_fraction <= median_error
                 and inside_range_fraction >= inside_range
                 and greatest(case when rank_k <= rates then sorted_errors[rank_k] end,
                              widest_left_out_fraction) <= half_width, false) as meets_targets
    from ranked
)
select * from final
