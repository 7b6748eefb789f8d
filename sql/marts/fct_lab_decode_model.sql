-- grain: one row per published one-worker lab series with counted decode bytes both ways and an unshaped run, and shaped rate with a known tbf bucket
-- key: campaign, link_id
-- scope: comparison
-- The decode model a deployment uses (fct_decode_what_if), tested on the lab: a decode step
-- waits for its bytes (the next token needs this one's logits), so a step is compute + one
-- round trip + the step's bytes / the TCP rate, nothing hidden. It takes what a deployment has,
-- one measured step on one link, its bytes each way and the link's RTT, and predicts the step on
-- another link: compute = the anchor step - its RTT - its wire time, then step = compute + RTT +
-- wire. c comes from the series' unshaped run; nothing is fitted, so every shaped rate is a
-- prediction. The lab's links are tbf shapers, and tbf is a token bucket: while both hosts
-- compute, each shaped end gathers tokens at its rate up to its bucket, and that many of the
-- next bytes leave at once. So on a lab link each direction's first min(bucket, rate x compute)
-- bytes cost no wire time (macro token_bucket_free_bytes); an Ethernet link has no bucket (a
-- deployment's what-if counts every byte). The range: h is the ceil(q (n + 1))-th smallest of
-- the n absolute errors of the other series' rates (leave one series out, q the
-- lab_model_range_quantile), as for the prefill pipeline model (fct_lab_pipeline_model).
-- column series: the lab series (manifest params.lab_series)
-- column shaped_rate_bits_per_s: the tbf rate of this link
-- column tcp_bits_per_s: the link's TCP rate (iperf3, the mean of both directions)
-- column rtt_s: the link's ping average
-- column step_bytes: a decode step's bytes, both directions (the series' netdev medians)
-- column anchor_step_s: the unshaped run's median decode step (the one measurement used)
-- column compute_s: the anchor step minus its RTT and its wire time
-- column bucket_free_bytes: per direction, the bytes the bucket lets out at once after the
--    compute: min(bucket, shaped rate x compute)
-- column wire_s: each direction's bytes past the bucket / this link's TCP rate, summed
-- column predicted_s: compute + RTT + wire on this link
-- column measured_s: the median decode step of this rate's runs
-- column runs: runs behind the median
-- column error_fraction: predicted / measured - 1
-- column range_fraction: h from the other series' errors (empty when they are too few)
-- column inside_range: the measured median lies within predicted x (1 +/- h)
with campaigns as (
    select campaign, series from fct_lab_series_campaigns where workers = 1
),
params as (
    select
        max(value::double) filter (where parameter = 'lab_model_range_quantile') as q
    from ref_measurement_params
),
rates as (
    select r.campaign, r.link_id, l.shaped_rate_bits_per_s, l.shaped_burst_bytes,
           l.tcp_bytes_per_s, l.rtt_avg_s, median(r.decode_step_s) as measured_s, count(*) as runs
    from int_lab__series_runs as r
    join int_lab__series_links as l using (campaign, link_id)
    where r.decode_step_s > 0 and l.tcp_bytes_per_s > 0 and l.rtt_avg_s is not null
    group by all
),
bytes as (
    select campaign,
           max(median_bytes) filter (where direction = 'head_to_worker') as to_worker_bytes,
           max(median_bytes) filter (where direction = 'worker_to_head') as to_head_bytes
    from fct_lab_series_traffic
    where request = 'decode'
    group by all
    having count(distinct direction) = 2
),
anchor as (
    select r.campaign, c.series, b.to_worker_bytes, b.to_head_bytes,
           b.to_worker_bytes + b.to_head_bytes as step_bytes, r.measured_s as anchor_step_s,
           r.measured_s - r.rtt_avg_s - (b.to_worker_bytes + b.to_head_bytes) / r.tcp_bytes_per_s
               as compute_s
    from rates as r
    join campaigns as c using (campaign)
    join bytes as b using (campaign)
    where r.shaped_rate_bits_per_s is null
),
free as (
    select a.*, r.link_id, r.shaped_rate_bits_per_s, r.shaped_burst_bytes, r.tcp_bytes_per_s,
           r.rtt_avg_s, r.measured_s, r.runs,
           token_bucket_free_bytes(r.shaped_burst_bytes, r.shaped_rate_bits_per_s, a.compute_s)
               as bucket_free_bytes
    from anchor as a
    join rates as r using (campaign)
    where r.shaped_rate_bits_per_s is not null and r.shaped_burst_bytes is not null
),
predicted as (
    select campaign, series, link_id, shaped_rate_bits_per_s, shaped_burst_bytes,
           bytes_to_bits(tcp_bytes_per_s) as tcp_bits_per_s, rtt_avg_s as rtt_s,
           step_bytes, anchor_step_s, compute_s, bucket_free_bytes,
           (greatest(to_worker_bytes - bucket_free_bytes, 0)
            + greatest(to_head_bytes - bucket_free_bytes, 0)) / tcp_bytes_per_s as wire_s,
           measured_s, runs
    from free
),
stepped as (
    select campaign, series, link_id, shaped_rate_bits_per_s, shaped_burst_bytes, tcp_bits_per_s,
           rtt_s, step_bytes, anchor_step_s, compute_s, bucket_free_bytes, wire_s,
           compute_s + rtt_s + wire_s as predicted_s, measured_s, runs
    from predicted
),
errors as (
    select *, predicted_s / measured_s - 1 as error_fraction
    from stepped
),
ranged as (
    -- each series' h: from the absolute errors of every other series' rates
    select e.*, left_out_range(e.campaign, e.error_fraction, params.q) as range_fraction
    from errors as e, params
),
final as (
    select e.*,
           within_range(e.measured_s, e.predicted_s, e.range_fraction) as inside_range
    from ranged as e
)
select * from final
order by campaign, shaped_rate_bits_per_s
