-- grain: one row per deployment campaign and Ethernet link class
-- key: campaign, link_class
-- scope: comparison
-- A deployment's KV snapshot what-if (fct_kv_snapshot_what_if: the copy keeps the share of the
-- usable rate it reached on the measured link, so its duration scales as 1 / the rate) with the
-- range the lab series measured for that model (fct_lab_snapshot_model, fct_pipeline_model_range
-- model 'snapshot'): a duration predicted at T lies within T x (1 +/- h). Published only while
-- the snapshot model meets the publishing targets on the lab series; otherwise the range is
-- empty. It holds for a snapshot of the size measured (its saved tokens) and one request at a
-- time.
-- column link_label: the class's label
-- column sort_order: the class's order, slowest first
-- column is_measured: the class of the link the snapshot was measured on
-- column duration_s: fct_kv_snapshot_what_if's duration on this class
-- column low_s: the range's short end (T (1 - h)); empty on the measured class and when the
--    model is not published
-- column high_s: the range's long end (T (1 + h))
-- column range_fraction: h (fct_pipeline_model_range, model snapshot)
-- column model_series: the lab series that tested the model
-- column model_predictions: the (measured, predicted) pairs of lab rates it was tested on
-- column model_meets_targets: the model met the publishing targets on them
with what_if as (
    select * from fct_kv_snapshot_what_if
),
model as (
    select * from fct_pipeline_model_range where model = 'snapshot'
),
gated as (
    -- h where a range is published: the model met its targets, on a class not measured
    select w.*, m.range_fraction, m.series as model_series, m.rates as model_predictions,
           coalesce(m.meets_targets, false) as model_meets_targets,
           case when m.meets_targets and not w.is_measured then m.range_fraction end as h
    from what_if as w
    left join model as m on true
),
final as (
    select
        campaign, link_class, link_label, sort_order, is_measured, duration_s,
        duration_s * (1 - h) as low_s,
        duration_s * (1 + h) as high_s,
        range_fraction, model_series, model_predictions, model_meets_targets
    from gated
)
select * from final
order by campaign, sort_order
