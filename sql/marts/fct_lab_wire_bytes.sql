-- grain: one row per lab series campaign with a netdev capture and wire quantity
-- key: campaign, quantity
-- scope: comparison
-- Wire bytes against the model's shape and layer split, across the lab series that split the
-- model over one worker (every published one with measured traffic; each series is one shape
-- and one split; fct_lab_hop_bytes puts a split over two workers to this fit). What the
-- split must send, from the GGUF header and the env file, in f32 activations (4 bytes a value):
--   prefill, head to worker, per position:  4 x hidden (the boundary activation of a position)
--   decode, head to worker, per step:       4 x hidden (one position per step)
--   decode, worker to head, per step:       4 x vocab when the output layer is on the worker
--                                           (the logits), 4 x hidden when it is on the head
--                                           (the last hidden state)
--   KV snapshot, worker to head, per token: the KV bytes per token of the worker's blocks
-- Measured = the series' median bytes per unit (fct_lab_series_traffic). Fitted across the
-- series by least squares, per quantity: measured = overhead + ratio x payload (overhead: the
-- RPC commands and TCP ACKs a unit carries; ratio: framing on the payload). A quantity is fitted
-- only when at least lab_wire_min_shapes distinct payloads were measured; residual_fraction =
-- measured / fitted - 1.
-- column series: the lab series (manifest params.lab_series)
-- column quantity: which bytes: prefill forward, decode forward, decode return, KV snapshot
-- column sort_order: the quantity's order
-- column unit: per prompt position, per decode step or per snapshot token
-- column hidden_size: the model's embedding length (GGUF)
-- column vocab_size: the model's vocabulary (GGUF)
-- column output_layer_on: head or worker (fct_lab_series_campaigns)
-- column payload_bytes: the bytes the formula says the split sends, per unit
-- column measured_bytes: the series' median bytes per unit on the wire
-- column measured_q1_bytes: its first quartile over the runs
-- column measured_q3_bytes: its third quartile over the runs
-- column runs: the runs behind the median
-- column shapes: distinct payloads the quantity was measured at, across the series
-- column shapes_needed: distinct payloads a fit needs (lab_wire_min_shapes)
-- column overhead_bytes: the fit's intercept: bytes a unit carries besides the payload (empty
--    when not fitted)
-- column ratio: the fit's slope: wire bytes per payload byte (empty when not fitted)
-- column fitted_bytes: overhead + ratio x payload (empty when not fitted)
-- column residual_fraction: measured / fitted - 1 (empty when not fitted)
with traffic as (
    select * from fct_lab_series_traffic
),
campaigns as (
    select * from fct_lab_series_campaigns
),
min_shapes as (
    select value::bigint as n from ref_measurement_params where parameter = 'lab_wire_min_shapes'
),
quantities as (
    select * from (values
        ('prefill forward', 1, 'prefill', 'head_to_worker'),
        ('decode forward', 2, 'decode', 'head_to_worker'),
        ('decode return', 3, 'decode', 'worker_to_head'),
        ('KV snapshot', 4, 'kv_snapshot', 'worker_to_head')
    ) as q(quantity, sort_order, request, direction)
),
rows as (
    select
        t.campaign, t.series, q.quantity, q.sort_order, t.unit,
        c.hidden_size, c.vocab_size, c.output_layer_on,
        case q.quantity
            when 'prefill forward' then 4 * c.hidden_size
            when 'decode forward' then 4 * c.hidden_size
            when 'decode return' then 4 * case c.output_layer_on when 'worker' then c.vocab_size
                                                                  else c.hidden_size end
            else c.worker_kv_bytes_per_token end::double as payload_bytes,
        t.median_bytes as measured_bytes,
        t.q1_bytes as measured_q1_bytes,
        t.q3_bytes as measured_q3_bytes,
        t.runs
    from traffic as t
    join quantities as q on q.request = t.request and q.direction = t.direction
    join campaigns as c using (campaign)
    -- one hop: a split over more workers is fct_lab_hop_bytes's, predicted from this fit
    where c.workers = 1
),
points as (
    -- each quantity's points in a fixed order: the sums below run over lists, one after the
    -- other, so a fit is the same to the last bit on every build (an aggregate such as
    -- regr_slope adds in whatever order the threads meet the rows)
    select quantity,
           count(distinct payload_bytes) as shapes,
           list(payload_bytes order by campaign) as xs,
           list(measured_bytes order by campaign) as ys
    from rows
    where payload_bytes is not null and measured_bytes is not null
    group by all
),
moments as (
    select quantity, shapes, xs, ys, list_avg(xs) as mean_x, list_avg(ys) as mean_y
    from points
),
fits as (
    -- least squares: ratio = Sxy / Sxx, overhead = mean y - ratio x mean x
    select quantity, shapes, ratio, mean_y - ratio * mean_x as overhead_bytes
    from (
        select quantity, shapes, mean_x, mean_y,
               list_sum(list_transform(range(1, len(xs) + 1),
                                       lambda i: (xs[i] - mean_x) * (ys[i] - mean_y)))
               / nullif(list_sum(list_transform(xs, lambda x: (x - mean_x) * (x - mean_x))), 0) as ratio
        from moments
    )
),
final as (
    select
        r.*,
        coalesce(f.shapes, 0) as shapes,
        m.n as shapes_needed,
        case when f.shapes >= m.n then f.overhead_bytes end as overhead_bytes,
        case when f.shapes >= m.n then f.ratio end as ratio,
        case when f.shapes >= m.n then f.overhead_bytes + f.ratio * r.payload_bytes end as fitted_bytes,
        case when f.shapes >= m.n
             then r.measured_bytes / (f.overhead_bytes + f.ratio * r.payload_bytes) - 1 end
            as residual_fraction
    from rows as r
    cross join min_shapes as m
    left join fits as f using (quantity)
)
select * from final
order by sort_order, hidden_size, output_layer_on desc, campaign
