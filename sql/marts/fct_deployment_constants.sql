-- grain: one row per deployment campaign
-- The verified constants of a deployment (GGUF + env file) and the measured wire bytes per
-- position per direction during the anchor prefill, against the raw fp16 hidden state.
with shape as (
    select * from int_deployment__model_shape
),
cfg as (
    select * from int_deployment__service_config
),
roles as (
    select * from int_deployment__host_roles
),
placement as (
    select
        p.campaign,
        count(*) filter (where r.role = 'worker') as blocks_worker,
        count(*) filter (where r.role = 'head') as blocks_head,
        count(*) filter (where p.is_full_attention) as fa_layers,
        count(*) filter (where p.is_full_attention and r.role = 'worker') as fa_layers_worker,
        count(*) filter (where p.is_full_attention and r.role = 'head') as fa_layers_head,
        max(p.host) filter (where r.role = 'worker') as worker_host,
        max(p.host) filter (where r.role = 'head') as head_host
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
        max(t.source_file) filter (where r.role = 'worker') as worker_netdev_file
    from int_deployment__window_traffic as t
    join roles as r on r.campaign = t.campaign and r.host = t.host
    where t.window_kind = 'prefill'
    group by t.campaign
),
fp16 as (
    -- the raw hidden state is counted in the default activation type (fp16)
    select bytes_per_value::double as activation_bytes
    from dim_activation_dtypes
    where is_default
),
final as (
    select
        shape.campaign,
        c.title as campaign_title,
        c.date as campaign_date,
        c.provenance,
        shape.model_name,
        shape.architecture,
        shape.gguf_file,
        cfg.env_file,
        shape.hidden_size,
        shape.block_count,
        placement.blocks_worker,
        placement.blocks_head,
        placement.worker_host,
        placement.head_host,
        cfg.tensor_split,
        shape.full_attention_interval,
        placement.fa_layers,
        placement.fa_layers_worker,
        placement.fa_layers_head,
        shape.head_count_kv,
        shape.key_length,
        shape.value_length,
        kv.cache_type_k,
        kv.cache_type_v,
        kv.k_bytes_per_token,
        kv.v_bytes_per_token,
        kv.kv_bytes_per_token,
        cfg.ubatch_tokens,
        cfg.parallel_slots,
        cfg.spec_draft_n_max,
        1 + cfg.spec_draft_n_max as verify_positions,
        runs.prefill_task,
        runs.journal_file,
        runs.prefill_tokens,
        runs.prefill_s,
        runs.prefill_tokens_per_s,
        runs.decode_tokens,
        runs.decode_s,
        runs.decode_tokens_per_s,
        runs.draft_accepted,
        runs.draft_generated,
        runs.verify_steps,
        runs.verify_step_s,
        runs.tokens_per_step,
        traffic.prefill_link_id,
        traffic.head_netdev_file,
        traffic.worker_netdev_file,
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
            / runs.prefill_tokens as ubatch_bytes
    from shape
    join raw_campaigns as c on c.campaign = shape.campaign
    left join cfg on cfg.campaign = shape.campaign
    left join placement on placement.campaign = shape.campaign
    left join int_deployment__kv_bytes as kv on kv.campaign = shape.campaign
    left join int_deployment__journal_runs as runs on runs.campaign = shape.campaign
    left join prefill_traffic as traffic on traffic.campaign = shape.campaign
    cross join fp16
)
select * from final
order by campaign
