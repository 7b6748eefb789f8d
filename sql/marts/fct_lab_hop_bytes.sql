-- grain: one row per lab series campaign split over two or more workers, hop and wire quantity
-- key: campaign, worker_host, quantity
-- scope: comparison
-- Bytes per hop of a split over several workers (each worker behind its own link to the head;
-- llama.cpp's RPC client copies from one worker to the next through the head), against what
-- the layer split says each hop carries, in f32 activations (4 bytes a value):
--   prefill forward, head to worker, per position: 4 x hidden (the activation entering the
--      worker's first block)
--   prefill return, worker to head, per position:  4 x hidden when the worker does not hold the
--      output layer (its last activation goes on to the next worker); else 4 x vocab / prompt
--      positions (the logits of the prompt's last position only)
--   decode forward, head to worker, per step:      4 x hidden
--   decode return, worker to head, per step:       4 x vocab with the output layer (the
--      logits), else 4 x hidden
--   KV snapshot, worker to head, per token:        the KV bytes per token of the worker's blocks
-- The output layer is taken to sit with the last offloaded block (what -ngl does), unless the
-- campaign keeps it on the head (fct_lab_series_campaigns.output_layer_on). predicted_bytes puts
-- each hop to the formula fitted on the one-worker series (fct_lab_wire_bytes: overhead + ratio x
-- payload, per quantity): a hop that carries what a one-worker link carries should lie on it.
-- The prefill return of a middle worker has no one-worker counterpart: it is measured and set
-- against its payload, not predicted.
-- column series: the lab series (manifest params.lab_series)
-- column worker_host: the worker at the hop's far end
-- column hop: the worker's place in the split (1: the first blocks after the head's)
-- column first_block: the worker's first block (GGUF block index)
-- column last_block: its last block
-- column holds_output: the worker runs the output layer (its return carries the logits)
-- column quantity: prefill forward, prefill return, decode forward, decode return, KV snapshot
-- column sort_order: the quantity's order
-- column unit: per prompt position, per decode step or per snapshot token
-- column payload_bytes: the bytes the formula says the hop carries, per unit
-- column measured_bytes: the runs' median bytes per unit on the hop (the head's end of its link)
-- column measured_q1_bytes: first quartile over the runs
-- column measured_q3_bytes: third quartile over the runs
-- column runs: runs behind the median
-- column predicted_bytes: the one-worker fit at this payload (empty when that quantity has no
--    one-worker fit)
-- column residual_fraction: measured / predicted - 1 (empty without a prediction)
-- column wire_per_payload: measured / payload: the wire bytes each payload byte took
with campaigns as (
    select * from fct_lab_series_campaigns where workers >= 2
),
hops as (
    select t.*
    from int_lab__hop_traffic as t
    join campaigns using (campaign)
),
workers as (
    select p.campaign, p.host as worker_host, min(p.layer) as first_block, max(p.layer) as last_block,
           sum(kv.kv_bytes_per_token) as kv_bytes_per_token
    from int_deployment__layer_placement as p
    join int_deployment__host_roles as h on h.campaign = p.campaign and h.host = p.host
    left join int_deployment__layer_kv as kv on kv.campaign = p.campaign and kv.layer = p.layer
    where h.role = 'worker'
    group by all
),
placed as (
    select w.*, c.series, c.hidden_size, c.vocab_size, c.prompt_tokens,
           dense_rank() over (partition by w.campaign order by w.first_block) as hop,
           c.output_layer_on = 'worker'
               and w.last_block = max(w.last_block) over (partition by w.campaign) as holds_output
    from workers as w
    join campaigns as c using (campaign)
),
quantities as (
    select * from (values
        ('prefill forward', 1, 'prefill', 'head_to_worker'),
        ('prefill return', 2, 'prefill', 'worker_to_head'),
        ('decode forward', 3, 'decode', 'head_to_worker'),
        ('decode return', 4, 'decode', 'worker_to_head'),
        ('KV snapshot', 5, 'kv_snapshot', 'worker_to_head')
    ) as q(quantity, sort_order, request, direction)
),
per_run as (
    select h.campaign, h.worker_host, q.quantity, q.sort_order, h.unit,
           case q.direction when 'head_to_worker' then h.head_to_worker_bytes
                else h.worker_to_head_bytes end / h.units as per_unit
    from hops as h
    join quantities as q on q.request = h.request
),
measured as (
    select campaign, worker_host, quantity, sort_order, any_value(unit) as unit,
           median(per_unit) as measured_bytes,
           quantile_cont(per_unit, 0.25) as measured_q1_bytes,
           quantile_cont(per_unit, 0.75) as measured_q3_bytes,
           count(*) as runs
    from per_run
    where per_unit is not null
    group by all
),
fits as (
    select distinct quantity, overhead_bytes, ratio
    from fct_lab_wire_bytes
    where ratio is not null
),
rows as (
    select
        p.campaign, p.series, p.worker_host, p.hop, p.first_block, p.last_block, p.holds_output,
        m.quantity, m.sort_order, m.unit,
        case m.quantity
            when 'prefill forward' then 4 * p.hidden_size
            when 'prefill return' then case when p.holds_output
                                            then 4 * p.vocab_size / p.prompt_tokens
                                            else 4 * p.hidden_size end
            when 'decode forward' then 4 * p.hidden_size
            when 'decode return' then 4 * case when p.holds_output then p.vocab_size
                                               else p.hidden_size end
            else p.kv_bytes_per_token end::double as payload_bytes,
        m.measured_bytes, m.measured_q1_bytes, m.measured_q3_bytes, m.runs
    from placed as p
    join measured as m on m.campaign = p.campaign and m.worker_host = p.worker_host
),
final as (
    select
        r.*,
        f.overhead_bytes + f.ratio * r.payload_bytes as predicted_bytes,
        r.measured_bytes / (f.overhead_bytes + f.ratio * r.payload_bytes) - 1 as residual_fraction,
        r.measured_bytes / nullif(r.payload_bytes, 0) as wire_per_payload
    from rows as r
    left join fits as f using (quantity)
)
select * from final
order by campaign, hop, sort_order
