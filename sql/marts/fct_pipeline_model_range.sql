-- grain: one row per lab-tested deployment model (the prefill pipeline, the decode step, the KV snapshot) that a lab series can test
-- key: model
-- scope: comparison
-- What the lab series say about the models a deployment's what-ifs use: the prefill pipeline
-- model (fct_lab_pipeline_model, behind fct_prefill_pipeline_what_if) and the decode step
-- (fct_lab_decode_model, behind fct_decode_what_if) and the KV snapshot (fct_lab_snapshot_model,
-- behind fct_kv_snapshot_what_if): how far their predictions fell from the
-- measured medians, the range published with every prediction, and whether each met the
-- publishing targets (ref_measurement_params lab_target_*). The published h is the
-- ceil(q (n + 1))-th smallest absolute error of all n rates (macro conformal_half_width); the
-- share inside comes from the leave-one-series-out ranges (each series judged by a range made
-- without it), so it is not the published range scoring itself. No row for a model no lab
-- series can test.
-- column model: pipeline (prefill), decode or snapshot
-- column series: lab series behind it
-- column exposed_wire_fraction: the prefill pipeline's phi fitted on every series' rates;
--    empty for decode, which fits nothing
-- column wire_wait_fraction: the prefill pipeline's psi, likewise
-- column bucket_refills: the prefill pipeline's m, likewise (the lab's tbf buckets alone)
-- column rates: predictions tested: shaped rates (for snapshot, pairs of a measured and a
--    predicted shaped rate), none of them used to fit anything
-- column median_abs_error_fraction: the median |predicted / measured - 1| over those rates
-- column max_abs_error_fraction: the largest of them
-- column range_fraction: h over every series' rates; empty when there are too few (fewer
--    than q / (1 - q))
-- column range_quantile: q, the share of rates the range is meant to hold (lab_model_range_quantile)
-- column inside_range_fraction: the share of rates whose median lies inside the range made
--    without its series
-- column max_range_half_width_fraction: the widest range, the published one and every
--    leave-one-series-out one
-- column meets_targets: there is a range, and median error, share inside and range width are all
--    within lab_target_*
with rows as (
    select 'pipeline' as model, campaign, error_fraction, range_fraction, inside_range,
           published_exposed_wire_fraction, published_wire_wait_fraction, published_bucket_refills
    from fct_lab_pipeline_model
    union all
    select 'decode' as model, campaign, error_fraction, range_fraction, inside_range,
           null::double, null::double, null::bigint
    from fct_lab_decode_model
    union all
    select 'snapshot' as model, campaign, error_fraction, range_fraction, inside_range,
           null::double, null::double, null::bigint
    from fct_lab_snapshot_model
),
params as (
    select
        max(value::double) filter (where parameter = 'lab_model_range_quantile') as q,
        max(value::double) filter (where parameter = 'lab_target_median_error') as median_error,
        max(value::double) filter (where parameter = 'lab_target_inside_range') as inside_range,
        max(value::double) filter (where parameter = 'lab_target_half_width') as half_width
    from ref_measurement_params
),
pooled as (
    select
        model,
        count(distinct campaign) as series,
        count(*) as rates,
        median(abs(error_fraction)) as median_abs_error_fraction,
        max(abs(error_fraction)) as max_abs_error_fraction,
        list(abs(error_fraction)) as abs_errors,
        avg(inside_range::int) as inside_range_fraction,
        max(range_fraction) as widest_left_out_fraction,
        max(published_exposed_wire_fraction) as exposed_wire_fraction,
        max(published_wire_wait_fraction) as wire_wait_fraction,
        max(published_bucket_refills) as bucket_refills
    from rows
    group by model
),
ranged as (
    select pooled.*, params.*, conformal_half_width(pooled.abs_errors, params.q) as h
    from pooled
    cross join params
),
final as (
    select
        model,
        series,
        exposed_wire_fraction,
        wire_wait_fraction,
        bucket_refills,
        rates,
        median_abs_error_fraction,
        max_abs_error_fraction,
        h as range_fraction,
        q as range_quantile,
        inside_range_fraction,
        greatest(h, widest_left_out_fraction) as max_range_half_width_fraction,
        coalesce(h is not null
                 and median_abs_error_fraction <= median_error
                 and inside_range_fraction >= inside_range
                 and greatest(h, widest_left_out_fraction) <= half_width, false) as meets_targets
    from ranged
)
select * from final
order by model
