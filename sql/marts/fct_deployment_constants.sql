-- grain: one row per deployment campaign
-- key: campaign
-- The verified constants of a deployment (GGUF + env file), how it decodes, and the measured
-- wire bytes per position per direction during the anchor prefill, against the raw hidden
-- state in the default activation type. A campaign without a GGUF, env file, journal or netdev
-- capture keeps its row with NULL where that measurement is missing.
-- column architecture: the model's architecture from its GGUF (general.architecture)
-- column architecture_known: true when llama_cpp_architectures.csv knows the architecture (else
--    every block is taken as dense full attention)
-- column layer_rule: how the architecture mixes layer kinds: dense, interval (full attention every
--    Nth block, recurrent between), swa (sliding-window pattern)
-- column gguf_file: the GGUF (or GGUF metadata dump) read
-- column env_file: the llama-server service env file read
-- column block_count: the blocks in the GGUF (<arch>.block_count), MTP layers included
-- column decoder_blocks: the blocks a token passes through: block count - MTP (nextn) layers
-- column nextn_layers: the multi-token-prediction (nextn) layers at the end of the model
-- column head_count: the attention heads per layer
-- column layers_worker: every layer placed on the worker, MTP included
-- column layers_head: every layer placed on the head, MTP included
-- column layers_on_head_cpu: layers left on the head's CPU (outside the offloaded range of
--    n_gpu_layers)
-- column mtp_layers_worker: MTP layers placed on the worker
-- column mtp_layers_head: MTP layers placed on the head
-- column layers_unplaced: layers the split could not place (0 when the split is complete)
-- column head_host: the head's host name (runs llama-server and the first layers)
-- column tensor_split: the TENSOR_SPLIT value the service ran with (device shares, as written)
-- column tensor_split_env_key: the env file key the split was read from
-- column n_gpu_layers: the layers offloaded to devices (llama-server -ngl)
-- column full_attention_interval: every how many blocks a full-attention layer comes (interval
--    architectures)
-- column interval_from_header: true when the interval is the GGUF's own key, false when the
--    architecture's default
-- column fa_layers: the model's full-attention layers
-- column swa_layers: the model's sliding-window attention layers
-- column recurrent_layers: the model's recurrent (linear-attention) layers, which keep no per-token
--    KV
-- column sliding_window_tokens: the sliding window of the SWA layers
-- column fa_layers_worker: full-attention layers on the worker
-- column fa_layers_head: full-attention layers on the head
-- column head_count_kv: the KV heads per full-attention layer (empty when layers differ)
-- column key_length: the key length per KV head (empty when layers differ)
-- column value_length: the value length per KV head (empty when layers differ)
-- column key_length_from_header: true when the key length is the GGUF's own key, false when derived
--    from hidden size / heads
-- column expert_count: the experts of a mixture-of-experts model (empty for a dense model)
-- column expert_used_count: the experts each token is routed to
-- column cache_type_k: the K cache type the service ran with (f16 by default)
-- column cache_type_v: the V cache type the service ran with
-- column k_bytes_per_token: the K cache bytes one token takes in one full-attention layer
-- column v_bytes_per_token: the V cache bytes one token takes in one full-attention layer
-- column ubatch_is_default: true when the env file sets no ubatch size and llama-server's default
--    applies
-- column ubatch_env_key: the env file key the ubatch size was read from
-- column parallel_slots: the server's parallel slots (-np)
-- column decoding_mode: how decode steps are formed: none, mtp, draft_model, ngram or speculative
-- column spec_type: the speculative type the env file sets (empty when it sets none)
-- column spec_draft_n_max: the most tokens drafted per verify step
-- column spec_draft_n_max_env_key: the env file key the draft maximum was read from
-- column prefill_task: the llama-server task whose prompt is the anchor prefill
-- column prefill_window_basis: where the prefill window's start came from: the log's "new prompt"
--    line, or placed back from the timing block
-- column decode_task: the llama-server task whose generation is the measured decode
-- column decode_s: the measured decode's duration (llama-server's eval time)
-- column decode_tokens_per_s: decode tokens per second
-- column draft_accepted: drafted tokens the target model accepted
-- column draft_generated: drafted tokens generated
-- column verify_steps: decode steps: from the log's mean draft length when it prints one, else
--    the drafts its speculative statistics count for the task, else drafted tokens / draft
--    maximum (empty when the statistics show drafts shorter than that maximum); the decode
--    tokens without speculation
-- column steps_basis: where verify_steps came from: 'mean len in the log', 'gen drafts in the
--    log', 'drafted / n_max', 'drafted / default n_max', 'one position per step' or 'not measured'
-- column decode_journal_file: the journal file holding the decode task
-- column prompt_tokens: the prefill task's prompt length ("new prompt … task.n_tokens"; empty
--    when the log prints no such line)
-- column cached_tokens: the prompt's tokens taken from the slot's cache, not evaluated (prompt
--    tokens less prefill tokens; 0 for a fresh prompt)
-- column netdev_samples_per_s: the sampling rate of the prefill's /proc/net/dev captures (one
--    over their median interval; empty without a capture)
-- column statistics_line: the line of the speculative statistics read for the decode task
-- column server_tokens_per_draft: drafted tokens per draft over the server's life, from its
--    statistics line
-- column spec_draft_n_max_is_default: true when the draft maximum is llama.cpp's default, no
--    env file setting it
-- column verify_step_s: the measured decode's duration per step
-- column prefill_link_id: the link the prefill's traffic crossed (from the capture's interface)
-- column head_netdev_file: the head's /proc/net/dev capture read
-- column worker_netdev_file: the worker's /proc/net/dev capture read
-- column activation_bytes: bytes per value of the default activation type
-- column head_to_worker_bytes: the head's transmit bytes over the prefill window, idle traffic
--    taken out
-- column worker_to_head_bytes: the worker's transmit bytes over the prefill window, idle traffic
--    taken out
-- column overhead_bytes_per_position_head_to_worker: measured head -> worker bytes per position
--    minus the raw activation vector
-- column ubatch_bytes_head_to_worker: one micro-batch's head -> worker bytes: ubatch positions x
--    bytes per position
-- column ubatch_bytes_worker_to_head: one micro-batch's worker -> head bytes
-- column decode_head_to_worker_bytes: the head's transmit bytes over the decode window (when the
--    capture covers it)
-- column decode_worker_to_head_bytes: the worker's transmit bytes over the decode window
with campaigns as (
    select * from stg_raw__campaigns where kind = 'deployment'
),
shape as (
    select * from int_deployment__model_shape
),
cfg as (
    select * from int_deployment__service_config
),
roles as (
    select * from int_deployment__host_roles
),
hosts as (
    select campaign,
           max(host) filter (where role = 'worker') as worker_host,
           max(host) filter (where role = 'head') as head_host
    from roles
    group by campaign
),
placement as (
    select
        p.campaign,
        count(*) filter (where r.role = 'worker' and not p.is_nextn) as blocks_worker,
        count(*) filter (where r.role = 'head' and not p.is_nextn) as blocks_head,
        count(*) filter (where r.role = 'worker') as layers_worker,
        count(*) filter (where r.role = 'head') as layers_head,
        count(*) filter (where p.on_cpu) as layers_on_head_cpu,
        count(*) filter (where p.is_nextn and r.role = 'worker') as mtp_layers_worker,
        count(*) filter (where p.is_nextn and r.role = 'head') as mtp_layers_head,
        count(*) filter (where p.is_full_attention and r.role = 'worker') as fa_layers_worker,
        count(*) filter (where p.is_full_attention and r.role = 'head') as fa_layers_head,
        count(*) filter (where p.host is null) as layers_unplaced
    from int_deployment__layer_placement as p
    left join roles as r on r.campaign = p.campaign and r.host = p.host
    group by p.campaign
),
prefill_traffic as (
    select
        t.campaign,
        max(t.link_id) as prefill_link_id,
        max(t.tx_bytes) filter (where r.role = 'head') as head_to_worker_bytes,
        max(t.tx_bytes) filter (where r.role = 'worker') as worker_to_head_bytes,
        max(t.source_file) filter (where r.role = 'head') as head_netdev_file,
        max(t.source_file) filter (where r.role = 'worker') as worker_netdev_file,
        list(distinct t.source_file) as source_files
    from int_deployment__window_traffic as t
    join roles as r on r.campaign = t.campaign and r.host = t.host
    where t.window_kind = 'prefill'
    group by t.campaign
),
decode_traffic as (
    -- the decode task's eval window, when the captures cover it (not required: §0's decode
    -- figures are derived from the prefill's bytes per position)
    select
        t.campaign,
        max(t.tx_bytes) filter (where r.role = 'head') as decode_head_to_worker_bytes,
        max(t.tx_bytes) filter (where r.role = 'worker') as decode_worker_to_head_bytes
    from int_deployment__window_traffic as t
    join roles as r on r.campaign = t.campaign and r.host = t.host
    where t.window_kind = 'decode'
    group by t.campaign
),
sampling as (
    select c.campaign, 1 / median(i.interval_s) as netdev_samples_per_s
    from prefill_traffic as c
    join int_netdev__intervals as i
        on i.campaign = c.campaign and i.source_file in (c.head_netdev_file, c.worker_netdev_file)
    group by c.campaign
),
fp16 as (
    -- the raw hidden state is counted in the default activation type (fp16)
    select bytes_per_value::double as activation_bytes
    from dim_activation_dtypes
    where is_default
),
final as (
    select
        c.campaign,
        c.title as campaign_title,
        c.date as campaign_date,
        c.provenance,
        shape.model_name,
        shape.architecture,
        shape.architecture_known,
        shape.layer_rule,
        shape.gguf_file,
        cfg.env_file,
        shape.hidden_size,
        shape.block_count,
        shape.decoder_blocks,
        shape.nextn_layers,
        shape.head_count,
        placement.blocks_worker,
        placement.blocks_head,
        placement.layers_worker,
        placement.layers_head,
        placement.layers_on_head_cpu,
        placement.mtp_layers_worker,
        placement.mtp_layers_head,
        placement.layers_unplaced,
        hosts.worker_host,
        hosts.head_host,
        cfg.tensor_split,
        cfg.tensor_split_env_key,
        cfg.n_gpu_layers,
        shape.full_attention_interval,
        shape.interval_from_header,
        shape.fa_layers,
        shape.swa_layers,
        shape.recurrent_layers,
        shape.sliding_window_tokens,
        placement.fa_layers_worker,
        placement.fa_layers_head,
        shape.head_count_kv,
        shape.key_length,
        shape.value_length,
        shape.key_length_from_header,
        shape.expert_count,
        shape.expert_used_count,
        kv.cache_type_k,
        kv.cache_type_v,
        kv.k_bytes_per_token,
        kv.v_bytes_per_token,
        kv.kv_bytes_per_token,
        cfg.ubatch_tokens,
        cfg.ubatch_is_default,
        cfg.ubatch_env_key,
        cfg.parallel_slots,
        dec.decoding_mode,
        dec.spec_type,
        cfg.spec_draft_n_max,
        cfg.spec_draft_n_max_env_key,
        cfg.spec_draft_n_max_is_default,
        dec.verify_positions,
        runs.prefill_task,
        runs.journal_file,
        runs.prefill_window_basis,
        runs.prefill_tokens,
        runs.prompt_tokens,
        runs.cached_tokens,
        runs.prefill_s,
        runs.prefill_tokens_per_s,
        runs.decode_task,
        runs.decode_journal_file,
        runs.decode_tokens,
        runs.decode_s,
        runs.decode_tokens_per_s,
        runs.draft_accepted,
        runs.draft_generated,
        dec.verify_steps,
        dec.steps_basis,
        dec.statistics_line,
        dec.server_tokens_per_draft,
        dec.verify_step_s,
        dec.tokens_per_step,
        traffic.prefill_link_id,
        traffic.head_netdev_file,
        traffic.worker_netdev_file,
        sampling.netdev_samples_per_s,
        fp16.activation_bytes,
        shape.hidden_size * fp16.activation_bytes as raw_hidden_bytes_per_position,
        traffic.head_to_worker_bytes,
        traffic.worker_to_head_bytes,
        traffic.head_to_worker_bytes / runs.prefill_tokens as wire_bytes_per_position_head_to_worker,
        traffic.worker_to_head_bytes / runs.prefill_tokens as wire_bytes_per_position_worker_to_head,
        traffic.head_to_worker_bytes / runs.prefill_tokens / (shape.hidden_size * fp16.activation_bytes)
            as wire_to_raw_ratio_head_to_worker,
        traffic.worker_to_head_bytes / runs.prefill_tokens / (shape.hidden_size * fp16.activation_bytes)
            as wire_to_raw_ratio_worker_to_head,
        traffic.head_to_worker_bytes / runs.prefill_tokens - shape.hidden_size * fp16.activation_bytes
            as overhead_bytes_per_position_head_to_worker,
        cfg.ubatch_tokens * traffic.head_to_worker_bytes / runs.prefill_tokens
            as ubatch_bytes_head_to_worker,
        cfg.ubatch_tokens * traffic.worker_to_head_bytes / runs.prefill_tokens
            as ubatch_bytes_worker_to_head,
        cfg.ubatch_tokens * (traffic.head_to_worker_bytes + traffic.worker_to_head_bytes)
            / runs.prefill_tokens as ubatch_bytes,
        decode_traffic.decode_head_to_worker_bytes,
        decode_traffic.decode_worker_to_head_bytes,
        -- measured bytes of one decode step, both directions (per verify step)
        (decode_traffic.decode_head_to_worker_bytes + decode_traffic.decode_worker_to_head_bytes)
            / dec.verify_steps as decode_step_measured_wire_bytes,
        shape.source_files as shape_source_files,
        list_sort(list_distinct(list_filter(flatten([
            coalesce(shape.source_files, []), coalesce(cfg.source_files, []),
            [runs.journal_file, runs.decode_journal_file], coalesce(traffic.source_files, [])]),
            lambda f: f is not null))) as source_files
    from campaigns as c
    left join shape on shape.campaign = c.campaign
    left join hosts on hosts.campaign = c.campaign
    left join cfg on cfg.campaign = c.campaign
    left join placement on placement.campaign = c.campaign
    left join int_deployment__kv_bytes as kv on kv.campaign = c.campaign
    left join int_deployment__journal_runs as runs on runs.campaign = c.campaign
    left join int_deployment__decoding as dec on dec.campaign = c.campaign
    left join prefill_traffic as traffic on traffic.campaign = c.campaign
    left join decode_traffic on decode_traffic.campaign = c.campaign
    left join sampling on sampling.campaign = c.campaign
    cross join fp16
)
select * from final
order by campaign
