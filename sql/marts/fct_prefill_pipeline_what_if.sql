-- grain: one row per published deployment campaign with a prefill what-if and Ethernet link class
-- key: campaign, link_class
-- scope: comparison
-- The deployment's prefill on each link class from the pipeline model that the lab series
-- validated (fct_lab_pipeline_model, fct_pipeline_model_range): the measured prefill (T0, on the
-- measured class) gives one micro-batch's compute c (macro pipeline_compute_s), and the
-- prefill on another class is T = c + w + (n - 1) max(s c + phi w, w + psi s c) (macro
-- pipeline_prefill_s; n the prompt's micro-batches, w a micro-batch's measured wire bytes in the
-- busier direction / the class's usable rate, every byte counted (an Ethernet link has no token
-- bucket), s the larger of the head's and the worker's share of the decoder blocks, phi and psi
-- the model's fitted constants). Every prediction carries
-- the model's range, T x (1 +/- h); a faster link's gain is T0 / T - 1 with its range. The
-- predictions are published only while the model meets the publishing targets on the lab
-- series; otherwise they are empty, and the additive bound (fct_prefill_what_if) stands alone.
-- They hold for the workload measured (the server's parallel slots, one prompt of
-- prefill_tokens in micro-batches of ubatch_tokens) and assume the compute divides between the
-- hosts as their blocks do.
-- column link_label: the class's label
-- column sort_order: the class's order, slowest first
-- column is_measured: the class of the link the prefill was measured on
-- column micro_batches: n, the prompt's micro-batches (prompt / ubatch, rounded up)
-- column largest_share: s, the larger share of the decoder blocks, head's or worker's
-- column exposed_wire_fraction: phi, the share of a micro-batch's wire time a compute stage
--    cannot hide (fitted on the lab series, fct_pipeline_model_range)
-- column wire_wait_fraction: psi, the share of a compute stage's time the wire waits (fitted on
--    the lab series, fct_pipeline_model_range)
-- column compute_s: c, one micro-batch's compute, from the measured prefill
-- column wire_s: w, one micro-batch's wire time on this class
-- column predicted_prefill_s: T on this class (the measured time on the measured class)
-- column predicted_tokens_per_s: prompt positions / T
-- column low_tokens_per_s: the range's lower end (positions / (T (1 + h))); empty on the measured
--    class and when the model is not published
-- column high_tokens_per_s: the range's upper end (positions / (T (1 - h)))
-- column gain_vs_measured_fraction: T0 / T - 1: what this class buys (or costs) against the
--    measured one
-- column gain_low_fraction: the gain at the range's slow end
-- column gain_high_fraction: the gain at the range's fast end
-- column additive_gain_vs_measured_fraction: the additive model's gain on this class (its bound,
--    fct_prefill_what_if)
-- column range_fraction: h (fct_pipeline_model_range)
-- column model_series: the lab series that validated the model
-- column model_rates: the lab rates it was validated on
-- column model_meets_targets: the model met the publishing targets on them
-- column model_inside_range_fraction: the share of those rates inside a range made without their series
-- column parallel_slots: the server's parallel slots during the measured prefill
-- column prefill_tokens: the prompt positions the measured prefill evaluated
-- column ubatch_tokens: the micro-batch
-- column provenance: captured or reconstructed (the campaign's manifest)
with what_if as (
    select * from fct_prefill_what_if
),
k as (
    select campaign, prefill_tokens, ubatch_tokens, prefill_tokens_per_s,
           -- the busier direction: each direction of a full-duplex link is its own wire
           greatest(ubatch_bytes_head_to_worker, ubatch_bytes_worker_to_head) as ubatch_bytes,
           greatest(layers_head - coalesce(mtp_layers_head, 0), layers_worker - coalesce(mtp_layers_worker, 0))
               / nullif(layers_head - coalesce(mtp_layers_head, 0) + layers_worker - coalesce(mtp_layers_worker, 0), 0)
               as largest_share
    from fct_deployment_constants
),
model as (
    select * from fct_pipeline_model_range where model = 'pipeline'
),
anchor as (
    select w.campaign, w.usable_bytes_per_s as measured_bytes_per_s,
           k.prefill_tokens / k.prefill_tokens_per_s as measured_prefill_s,
           ceil(k.prefill_tokens / k.ubatch_tokens) as micro_batches, k.largest_share, k.ubatch_bytes,
           m.exposed_wire_fraction as phi, m.wire_wait_fraction as psi
    from what_if as w
    join k using (campaign)
    left join model as m on true
    where w.is_measured and k.prefill_tokens > 0 and k.ubatch_tokens > 0 and k.prefill_tokens_per_s > 0
),
calibrated as (
    select *,
           pipeline_compute_s(measured_prefill_s, ubatch_bytes / measured_bytes_per_s, micro_batches,
                              largest_share, phi, psi) as compute_s
    from anchor
),
per_class as (
    select
        w.campaign, w.link_class, w.link_label, w.sort_order, w.is_measured,
        a.micro_batches, a.largest_share, a.phi, a.psi, a.compute_s, a.measured_prefill_s,
        a.ubatch_bytes / w.usable_bytes_per_s as wire_s,
        case when w.is_measured then a.measured_prefill_s
             else pipeline_prefill_s(a.compute_s, a.ubatch_bytes / w.usable_bytes_per_s,
                                     a.micro_batches, a.largest_share, a.phi, a.psi) end
            as predicted_prefill_s,
        w.gain_vs_measured_fraction as additive_gain_vs_measured_fraction,
        w.parallel_slots, w.prefill_tokens, w.ubatch_tokens, w.provenance
    from what_if as w
    join calibrated as a using (campaign)
),
final as (
    select
        p.campaign, p.link_class, p.link_label, p.sort_order, p.is_measured, p.micro_batches,
        p.largest_share, p.phi as exposed_wire_fraction, p.psi as wire_wait_fraction, p.compute_s, p.wire_s,
        case when m.meets_targets or p.is_measured then p.predicted_prefill_s end as predicted_prefill_s,
        case when m.meets_targets or p.is_measured then p.prefill_tokens / p.predicted_prefill_s end
            as predicted_tokens_per_s,
        case when m.meets_targets and not p.is_measured
             then p.prefill_tokens / (p.predicted_prefill_s * (1 + m.range_fraction)) end as low_tokens_per_s,
        case when m.meets_targets and not p.is_measured
             then p.prefill_tokens / (p.predicted_prefill_s * (1 - m.range_fraction)) end as high_tokens_per_s,
        case when m.meets_targets or p.is_measured
             then p.measured_prefill_s / p.predicted_prefill_s - 1 end as gain_vs_measured_fraction,
        case when m.meets_targets and not p.is_measured
             then p.measured_prefill_s / (p.predicted_prefill_s * (1 + m.range_fraction)) - 1 end
            as gain_low_fraction,
        case when m.meets_targets and not p.is_measured
             then p.measured_prefill_s / (p.predicted_prefill_s * (1 - m.range_fraction)) - 1 end
            as gain_high_fraction,
        p.additive_gain_vs_measured_fraction,
        m.range_fraction,
        m.series as model_series,
        m.rates as model_rates,
        coalesce(m.meets_targets, false) as model_meets_targets,
        m.inside_range_fraction as model_inside_range_fraction,
        p.parallel_slots, p.prefill_tokens, p.ubatch_tokens, p.provenance
    from per_class as p
    left join model as m on true
)
select * from final
order by campaign, sort_order
