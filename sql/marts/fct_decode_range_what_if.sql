-- grain: one row per deployment campaign and Ethernet link class
-- key: campaign, link_class
-- scope: comparison
-- A deployment's decode what-if (fct_decode_what_if: a step is compute + RTT + the step's
-- bytes / the class's usable rate, nothing hidden) with the range the lab series measured for
-- that model (fct_lab_decode_model, fct_pipeline_model_range model 'decode'): a step predicted
-- at T lies within T x (1 +/- h), so the rate within rate / (1 +/- h). Published only while
-- the decode model meets the publishing targets on the lab series; otherwise the range is
-- empty and the what-if stays a bound. They hold for the workload measured (its
-- parallel slots, its verify positions per step).
-- column link_label: the class's label
-- column sort_order: the class's order, slowest first
-- column is_measured: the class of the link decode was measured on
-- column predicted_tokens_per_s: fct_decode_what_if's rate on this class
-- column low_tokens_per_s: the range's slow end (rate / (1 + h)); empty on the measured class and
--    when the model is not published
-- column high_tokens_per_s: the range's fast end (rate / (1 - h))
-- column gain_vs_measured_fraction: fct_decode_what_if's gain against the measured class
-- column gain_low_fraction: the gain at the range's slow end
-- column gain_high_fraction: the gain at the range's fast end
-- column range_fraction: h (fct_pipeline_model_range, model decode)
-- column model_series: the lab series that tested the model
-- column model_rates: the lab rates it was tested on
-- column model_meets_targets: the model met the publishing targets on them
-- column model_inside_range_fraction: the share of those rates inside a range made without their series
-- column parallel_slots: the server's parallel slots during the measured decode
-- column provenance: captured or reconstructed (the campaign's manifest)
with what_if as (
    select * from fct_decode_what_if
),
model as (
    select * from fct_pipeline_model_range where model = 'decode'
),
gated as (
    -- h where a range is published: the model met its targets, on a class not measured
    select w.*, m.range_fraction, m.series as model_series, m.rates as model_rates,
           coalesce(m.meets_targets, false) as model_meets_targets,
           m.inside_range_fraction as model_inside_range_fraction,
           case when m.meets_targets and not w.is_measured then m.range_fraction end as h
    from what_if as w
    left join model as m on true
),
final as (
    select
        campaign, link_class, link_label, sort_order, is_measured, predicted_tokens_per_s,
        predicted_tokens_per_s / (1 + h) as low_tokens_per_s,
        predicted_tokens_per_s / (1 - h) as high_tokens_per_s,
        gain_vs_measured_fraction,
        (1 + gain_vs_measured_fraction) / (1 + h) - 1 as gain_low_fraction,
        (1 + gain_vs_measured_fraction) / (1 - h) - 1 as gain_high_fraction,
        range_fraction, model_series, model_rates, model_meets_targets, model_inside_range_fraction,
        parallel_slots, provenance
    from gated
)
select * from final
order by campaign, sort_order
