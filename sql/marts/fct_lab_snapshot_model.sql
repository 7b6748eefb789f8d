-- grain: one row per published one-worker lab series, shaped rate it was anchored on and other shaped rate it predicts
-- key: campaign, anchor_link_id, link_id
-- scope: comparison
-- The KV snapshot model a deployment uses (fct_kv_snapshot_what_if), tested on the lab: a
-- snapshot copies its bytes at the same share of the link's rate on every link, so its duration
-- scales as 1 / the rate: a deployment measures it on one link and predicts it on another as
-- T x rate / other rate. A lab series has many shaped links, so each one in turn is the
-- measured link and every other shaped link of the series a prediction (the lab's rates span
-- 16x, a deployment's classes 10x at most); nothing is fitted. The TCP rate (iperf3) stands for
-- a class's usable rate. The unshaped link is left out: its copy is bounded by the hosts, not by
-- a rate. tbf's bucket is not counted: a snapshot is megabytes, a bucket 4 to 64 KiB. The range:
-- h is the ceil(q (n + 1))-th smallest of the n absolute errors of the other series'
-- predictions (leave one series out, q the lab_model_range_quantile), as for the decode model.
-- column series: the lab series (manifest params.lab_series)
-- column anchor_link_id: the shaped link whose snapshot is the one measurement used
-- column anchor_tcp_bits_per_s: its TCP rate (iperf3, the mean of both directions)
-- column anchor_s: the median snapshot time of its runs
-- column link_id: the shaped link predicted
-- column shaped_rate_bits_per_s: its tbf rate
-- column tcp_bits_per_s: its TCP rate
-- column predicted_s: anchor_s x anchor TCP rate / this link's TCP rate
-- column measured_s: the median snapshot time of this link's runs
-- column runs: runs behind that median
-- column error_fraction: predicted / measured - 1
-- column range_fraction: h from the other series' errors (empty when they are too few)
-- column inside_range: the measured median lies within predicted x (1 +/- h)
-- column series_predictions: the series' predictions (a series of many rates makes many pairs,
--    so it weighs most in the pooled figures of fct_pipeline_model_range)
-- column series_median_abs_error_fraction: the median |error| of the series' predictions
-- column series_max_abs_error_fraction: the largest of them
-- column series_inside_range_fraction: the share of them inside their range
with campaigns as (
    select campaign, series from fct_lab_series_campaigns where workers = 1
),
params as (
    select max(value::double) filter (where parameter = 'lab_model_range_quantile') as q
    from ref_measurement_params
),
rates as (
    select r.campaign, r.link_id, l.shaped_rate_bits_per_s, l.tcp_bytes_per_s,
           median(r.snapshot_s) as measured_s, count(*) as runs
    from int_lab__series_runs as r
    join int_lab__series_links as l using (campaign, link_id)
    where r.snapshot_s > 0 and l.tcp_bytes_per_s > 0 and l.shaped_rate_bits_per_s is not null
    group by all
),
pairs as (
    select c.campaign, c.series, a.link_id as anchor_link_id, a.tcp_bytes_per_s as anchor_bytes_per_s,
           a.measured_s as anchor_s, b.link_id, b.shaped_rate_bits_per_s, b.tcp_bytes_per_s,
           a.measured_s * a.tcp_bytes_per_s / b.tcp_bytes_per_s as predicted_s,
           b.measured_s, b.runs
    from campaigns as c
    join rates as a using (campaign)
    join rates as b on b.campaign = a.campaign and b.link_id <> a.link_id
),
errors as (
    select *, predicted_s / measured_s - 1 as error_fraction
    from pairs
),
ranged as (
    -- each series' h: from the absolute errors of every other series' predictions
    select e.*, left_out_range(e.campaign, e.error_fraction, params.q) as range_fraction
    from errors as e, params
),
predictions as (
    select campaign, series, anchor_link_id, bytes_to_bits(anchor_bytes_per_s) as anchor_tcp_bits_per_s,
           anchor_s, link_id, shaped_rate_bits_per_s, bytes_to_bits(tcp_bytes_per_s) as tcp_bits_per_s,
           predicted_s, measured_s, runs, error_fraction, range_fraction,
           within_range(measured_s, predicted_s, range_fraction) as inside_range
    from ranged
),
final as (
    select *,
           count(*) over w as series_predictions,
           median(abs(error_fraction)) over w as series_median_abs_error_fraction,
           max(abs(error_fraction)) over w as series_max_abs_error_fraction,
           avg(inside_range::int) over w as series_inside_range_fraction
    from predictions
    window w as (partition by campaign)
)
select * from final
order by campaign, anchor_link_id, link_id
