-- grain: one row per published one-worker lab series with counted prefill bytes and an unshaped run, and shaped rate with a known tbf bucket
-- key: campaign, link_id
-- scope: comparison
-- The prefill model a deployment can use, tested on the lab: it takes what a deployment has (one
-- measured prefill on one link, the bytes it put on the wire, the prompt's micro-batches and
-- the layer split) and predicts the prefill on another link. A prompt of n micro-batches passes
-- three stages, the head's compute, the wire and the worker's compute; each stage works on the
-- next micro-batch while the following stage takes this one. A compute stage also carries the
-- share phi of the wire time it cannot hide, and the wire stage the share psi of a compute
-- stage's time that it waits, so T = c + w + (n - 1) max(s c + phi w, w + psi s c) (macro
-- pipeline_prefill_s: c the compute of one micro-batch, split between head and worker by their
-- blocks, s the larger share; w one micro-batch's bytes in the busier direction / TCP rate, the
-- two directions of a full-duplex link being separate wires). c comes from the series' unshaped
-- run (macro pipeline_compute_s). The lab's links are tbf shapers, and tbf is a token bucket:
-- while the wire waits (psi s c a micro-batch, in m spells, one per RPC call that waits) the
-- bucket fills, each spell at most to its size, and that many bytes then leave at once. So on a
-- lab link a micro-batch's first min(m x bucket, rate x psi s c) bytes cost no wire time (macro
-- token_bucket_free_bytes); an Ethernet link has no bucket, and a deployment's what-if counts
-- every byte. phi, psi and m are the fitted constants: the point of the grid (phi 0, step, ...,
-- max, lab_overlap_grid_*; psi likewise, lab_wait_grid_*; m 0, 1, ..., lab_bucket_refills_max)
-- with the least sum of squared errors over the shaped rates of the other series (leave one
-- series out), so no series is predicted with constants its own rates chose. The range: h is the
-- ceil(q (n + 1))-th smallest of the n absolute errors of the other series' rates (q the
-- lab_model_range_quantile), so each series is also judged by a range it did not shape.
-- column series: the lab series (manifest params.lab_series)
-- column shaped_rate_bits_per_s: the tbf rate of this link
-- column shaped_burst_bytes: the tbf bucket of this link
-- column tcp_bits_per_s: the link's TCP rate (iperf3, the mean of both directions)
-- column micro_batches: n, the prompt's micro-batches (prompt / ubatch, rounded up)
-- column largest_share: s, the larger of the head's and the worker's share of the blocks
-- column wire_bytes: the bytes a prefill put on the wire in the busier direction (the series'
--    netdev; head to worker on every shipped series)
-- column anchor_prefill_s: the unshaped run's median prefill time (the one measurement used)
-- column exposed_wire_fraction: phi, fitted on the other series
-- column wire_wait_fraction: psi, fitted on the other series
-- column bucket_refills: m, fitted on the other series
-- column compute_s: c, one micro-batch's compute, from the anchor
-- column bucket_free_bytes: a micro-batch's bytes the bucket lets out at once on this link
-- column wire_s: w, one micro-batch's wire time at this rate (its bytes past the bucket)
-- column predicted_s: the model's prefill time at this rate
-- column measured_s: the median prefill time of this rate's runs
-- column runs: runs behind the median
-- column error_fraction: predicted / measured - 1 (its absolute value is what h ranks)
-- column range_fraction: h from the other series' errors (empty when they are too few: fewer
--    than q / (1 - q))
-- column inside_range: the measured median lies within predicted x (1 +/- h)
-- column published_exposed_wire_fraction: phi fitted on every series' rates, the one a
--    deployment's what-if uses (fct_pipeline_model_range)
-- column published_wire_wait_fraction: psi fitted on every series' rates, likewise
-- column published_bucket_refills: m fitted on every series' rates (the lab's alone: a
--    deployment's link has no bucket)
with campaigns as (
    select campaign, series, prompt_tokens, ubatch_tokens, block_count, worker_blocks
    from fct_lab_series_campaigns
    where workers = 1 and prompt_tokens > 0 and ubatch_tokens > 0 and block_count > 0
),
params as (
    select
        max(value::double) filter (where parameter = 'lab_model_range_quantile') as q,
        max(value::double) filter (where parameter = 'lab_overlap_grid_step') as phi_step,
        max(value::double) filter (where parameter = 'lab_overlap_grid_max') as phi_max,
        max(value::double) filter (where parameter = 'lab_wait_grid_step') as psi_step,
        max(value::double) filter (where parameter = 'lab_wait_grid_max') as psi_max,
        max(value::double) filter (where parameter = 'lab_bucket_refills_max') as refills_max
    from ref_measurement_params
),
grid as (
    -- i x step for i = 0 .. floor(max / step) (a hair added so 0.5 / 0.01 is 50, not 49); no
    -- grid, so no prediction, when a parameter is missing
    select round(phi.i * phi_step, 9) as phi, round(psi.i * psi_step, 9) as psi, refills.i as refills
    from params,
         unnest(range(0::bigint, floor(phi_max / phi_step + 1e-9)::bigint + 1)) as phi(i),
         unnest(range(0::bigint, floor(psi_max / psi_step + 1e-9)::bigint + 1)) as psi(i),
         unnest(range(0::bigint, floor(refills_max + 1e-9)::bigint + 1)) as refills(i)
    where phi_step > 0 and phi_max >= 0 and psi_step > 0 and psi_max >= 0 and refills_max >= 0
),
rates as (
    select r.campaign, r.link_id, l.shaped_rate_bits_per_s, l.shaped_burst_bytes, l.tcp_bytes_per_s,
           median(r.prefill_s) as measured_s, count(*) as runs
    from int_lab__series_runs as r
    join int_lab__series_links as l using (campaign, link_id)
    where r.prefill_s > 0 and l.tcp_bytes_per_s > 0
    group by all
),
anchor as (
    select campaign, measured_s as anchor_s, tcp_bytes_per_s as anchor_bytes_per_s
    from rates
    where shaped_rate_bits_per_s is null
),
wire as (
    -- the busier direction: each direction of a full-duplex link is its own wire
    select campaign, max(bytes) as wire_bytes
    from (select campaign, direction, sum(median_bytes * median_units) as bytes
          from fct_lab_series_traffic
          where request = 'prefill'
          group by all)
    group by all
),
setup as (
    select c.campaign, c.series, a.anchor_s, a.anchor_bytes_per_s, w.wire_bytes,
           ceil(c.prompt_tokens / c.ubatch_tokens) as micro_batches,
           greatest(c.block_count - c.worker_blocks, c.worker_blocks) / c.block_count as largest_share
    from campaigns as c
    join anchor as a using (campaign)
    join wire as w using (campaign)
),
calibrated as (
    -- c for every point of the grid, from the unshaped run (no bucket there)
    select k.*, g.phi, g.psi, g.refills,
           pipeline_compute_s(k.anchor_s, k.wire_bytes / k.micro_batches / k.anchor_bytes_per_s,
                              k.micro_batches, k.largest_share, g.phi, g.psi) as compute_s
    from setup as k
    cross join grid as g
),
candidates as (
    -- every shaped rate with a known bucket predicted at every point of the grid
    select k.campaign, k.series, r.link_id, r.shaped_rate_bits_per_s, r.shaped_burst_bytes,
           r.tcp_bytes_per_s, k.micro_batches, k.largest_share, k.wire_bytes, k.anchor_s,
           k.phi, k.psi, k.refills, k.compute_s,
           token_bucket_free_bytes(k.refills * r.shaped_burst_bytes, r.shaped_rate_bits_per_s,
                                   k.psi * k.largest_share * k.compute_s) as bucket_free_bytes,
           r.measured_s, r.runs
    from calibrated as k
    join rates as r using (campaign)
    where r.shaped_rate_bits_per_s is not null and r.shaped_burst_bytes is not null
),
candidate_wires as (
    select *, greatest(wire_bytes / micro_batches - bucket_free_bytes, 0) / tcp_bytes_per_s as wire_s
    from candidates
),
candidate_errors as (
    select *, pipeline_prefill_s(compute_s, wire_s, micro_batches, largest_share, phi, psi) as predicted_s
    from candidate_wires
),
series_sse as (
    -- each series' squared errors at each point, and every series' (rounded to 1e-12, so a sum
    -- that parallel threads add in another order cannot break a tie differently)
    select campaign, phi, psi, refills, sse,
           round(sum(sse) over (partition by phi, psi, refills) - sse, 12) as others_sse,
           round(sum(sse) over (partition by phi, psi, refills), 12) as all_sse
    from (select campaign, phi, psi, refills,
                 sum((predicted_s / measured_s - 1) * (predicted_s / measured_s - 1)) as sse
          from candidate_errors
          group by all)
),
left_out_fits as (
    -- each series' constants: the point with the least squared error over the other series
    select campaign, first({'phi': phi, 'psi': psi, 'refills': refills}
                           order by others_sse, phi, psi, refills) as fit
    from series_sse
    group by all
),
published_fit as (
    select first({'phi': phi, 'psi': psi, 'refills': refills} order by all_sse, phi, psi, refills) as fit
    from series_sse
),
errors as (
    select e.*, e.predicted_s / e.measured_s - 1 as error_fraction
    from candidate_errors as e
    join left_out_fits as f
      on f.campaign = e.campaign and f.fit.phi = e.phi and f.fit.psi = e.psi and f.fit.refills = e.refills
),
ranged as (
    -- each series' h: from the absolute errors of every other series' rates
    select e.*, left_out_range(e.campaign, e.error_fraction, params.q) as range_fraction
    from errors as e, params
),
final as (
    select e.campaign, e.series, e.link_id, e.shaped_rate_bits_per_s, e.shaped_burst_bytes,
           bytes_to_bits(e.tcp_bytes_per_s) as tcp_bits_per_s,
           e.micro_batches, e.largest_share, e.wire_bytes, e.anchor_s as anchor_prefill_s,
           e.phi as exposed_wire_fraction, e.psi as wire_wait_fraction, e.refills as bucket_refills,
           e.compute_s, e.bucket_free_bytes, e.wire_s, e.predicted_s, e.measured_s, e.runs,
           e.error_fraction, e.range_fraction,
           within_range(e.measured_s, e.predicted_s, e.range_fraction) as inside_range,
           p.fit.phi as published_exposed_wire_fraction,
           p.fit.psi as published_wire_wait_fraction,
           p.fit.refills as published_bucket_refills
    from ranged as e
    cross join published_fit as p
)
select * from final
order by campaign, shaped_rate_bits_per_s
