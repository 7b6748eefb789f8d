-- grain: one row per lab series campaign
-- key: campaign
-- What a lab series campaign is, for the head of its page: its manifest (title, date,
-- provenance), how it drove llama-server (manifest params.lab_drive, params.lab_pinning), its
-- model as the GGUF header states it, and how many runs, rates and rounds it holds.
-- column series: the lab series (manifest params.lab_series)
-- column title: the manifest's title
-- column campaign_date: the manifest's date
-- column provenance: captured or reconstructed (the manifest)
-- column prompt_tokens: the prefill prompt's tokens (params.lab_drive)
-- column decode_tokens: tokens each decode generated (params.lab_drive)
-- column ubatch_tokens: llama-server's micro-batch (params.lab_drive)
-- column gpu_layers: llama-server -ngl: the last ngl - 1 blocks and the output layer on the worker
-- column pinning: which process ran on which core (params.lab_pinning)
-- column model_name: general.name of the GGUF header
-- column hidden_size: the model's embedding length (GGUF)
-- column block_count: the model's blocks (GGUF)
-- column vocab_size: the model's vocabulary (GGUF vocab_size, else the tokenizer's token count)
-- column output_layer_on: where the output layer's matrix ran: worker (-ngl offloads it with the
--    last blocks) or head (the env file's LLAMA_ARG_OVERRIDE_TENSOR puts output.weight on CPU,
--    or -ngl 0 offloads nothing); what crosses the link after the last worker block, logits or
--    the last hidden state, follows from it
-- column workers: the hosts the layer split put blocks on (ggml-rpc-servers, each behind its own
--    link to the head: 2 is a three-node split)
-- column worker_blocks: blocks the layer split put on the workers, all together
-- column worker_kv_bytes_per_token: KV cache bytes per token those blocks hold (the snapshot
--    copies them to the head), all workers together
-- column runs: runs the manifest lists (params.lab_runs)
-- column timed_runs: runs whose prefill, decode and snapshot were all found in the log
-- column rates: links (rates) the runs used, the unshaped one included
-- column rounds: rounds of the series
with campaigns as (
    select * from stg_raw__campaigns where kind = 'lab_series'
),
runs as (
    select
        campaign,
        count(*) as runs,
        count(*) filter (where prefill_s is not null and decode_s is not null
                         and snapshot_s is not null) as timed_runs,
        count(distinct link_id) as rates,
        count(distinct round) as rounds
    from int_lab__series_runs
    group by all
),
gguf as (
    select * from int_deployment__gguf_keys
),
vocab as (
    select campaign,
           coalesce(max(try_cast(value as bigint)) filter (where arch_key = 'vocab_size'),
                    max(try_cast(regexp_extract(value, '"len":\s*([0-9]+)', 1) as bigint))
                        filter (where key = 'tokenizer.ggml.tokens')) as vocab_size
    from stg_deployment__gguf_metadata
    group by all
),
head_env as (
    select e.campaign, e.key, e.value
    from stg_deployment__service_env as e
    join int_deployment__host_roles as h on h.campaign = e.campaign and h.host = e.host
    where h.role = 'head'
),
overrides as (
    -- LLAMA_ARG_OVERRIDE_TENSOR is "pattern=buffer type,...": llama.cpp moves a tensor whose
    -- name the pattern matches (regex search) to that buffer type
    select campaign,
           bool_or(regexp_matches('output.weight', regexp_extract(item, '^(.*)=([^=]*)$', 1))
                   and upper(regexp_extract(item, '^(.*)=([^=]*)$', 2)) = 'CPU') as output_on_cpu
    from head_env, unnest(string_split(value, ',')) as o(item)
    where key = 'LLAMA_ARG_OVERRIDE_TENSOR'
    group by all
),
placement as (
    select p.campaign,
           count(distinct p.host) filter (where h.role = 'worker') as workers,
           count(*) filter (where h.role = 'worker') as worker_blocks,
           sum(kv.kv_bytes_per_token) filter (where h.role = 'worker') as worker_kv_bytes_per_token
    from int_deployment__layer_placement as p
    join int_deployment__host_roles as h on h.campaign = p.campaign and h.host = p.host
    left join int_deployment__layer_kv as kv on kv.campaign = p.campaign and kv.layer = p.layer
    group by all
),
config as (
    select campaign, max(n_gpu_layers) as n_gpu_layers from int_deployment__service_config group by all
),
final as (
    select
        c.campaign,
        c.params->>'lab_series' as series,
        c.title,
        c.date as campaign_date,
        c.provenance,
        try_cast(c.params->'lab_drive'->>'prompt_tokens' as bigint) as prompt_tokens,
        try_cast(c.params->'lab_drive'->>'decode_tokens' as bigint) as decode_tokens,
        try_cast(c.params->'lab_drive'->>'ubatch' as bigint) as ubatch_tokens,
        try_cast(c.params->'lab_drive'->>'ngl' as bigint) as gpu_layers,
        c.params->>'lab_pinning' as pinning,
        gguf.model_name,
        gguf.hidden_size,
        gguf.block_count,
        vocab.vocab_size,
        case when coalesce(overrides.output_on_cpu, false) or config.n_gpu_layers = 0
             then 'head' else 'worker' end as output_layer_on,
        coalesce(placement.workers, 0) as workers,
        placement.worker_blocks,
        placement.worker_kv_bytes_per_token,
        coalesce(runs.runs, 0) as runs,
        coalesce(runs.timed_runs, 0) as timed_runs,
        coalesce(runs.rates, 0) as rates,
        coalesce(runs.rounds, 0) as rounds
    from campaigns as c
    left join runs using (campaign)
    left join gguf using (campaign)
    left join vocab using (campaign)
    left join overrides using (campaign)
    left join placement using (campaign)
    left join config using (campaign)
)
select * from final
order by campaign
