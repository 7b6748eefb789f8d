-- grain: one row per campaign
-- The model's shape as its GGUF header states it (not as a model card guesses it), summarised
-- from the per-layer layout: decoder blocks and MTP layers, attention kinds, the KV geometry of
-- a full-attention layer (NULL when full-attention layers differ), experts.
with keys as (
    select * from int_deployment__gguf_keys
),
layers as (
    select * from int_deployment__layers
),
counts as (
    select
        campaign,
        max(layer_rule) as layer_rule,
        bool_and(architecture_known) as architecture_known,
        count(*) filter (where is_full_attention) as fa_layers,
        count(*) filter (where is_swa) as swa_layers,
        count(*) filter (where is_recurrent) as recurrent_layers,
        count(*) filter (where is_nextn) as mtp_layers,
        max(full_attention_interval) filter (where layer_rule = 'interval') as full_attention_interval,
        max(sliding_window_tokens) as sliding_window_tokens,
        min(head_count_kv) filter (where is_full_attention) as head_count_kv_min,
        max(head_count_kv) filter (where is_full_attention) as head_count_kv_max,
        min(key_length) filter (where is_full_attention) as key_length_min,
        max(key_length) filter (where is_full_attention) as key_length_max,
        min(value_length) filter (where is_full_attention) as value_length_min,
        max(value_length) filter (where is_full_attention) as value_length_max,
        min(head_count) filter (where layer = 0) as head_count
    from layers
    group by campaign
),
final as (
    select
        keys.campaign,
        keys.gguf_file,
        keys.source_files,
        keys.architecture,
        counts.architecture_known,
        counts.layer_rule,
        keys.model_name,
        keys.hidden_size,
        keys.block_count,
        keys.nextn_layers,
        keys.block_count - keys.nextn_layers as decoder_blocks,
        counts.head_count,
        case when counts.head_count_kv_min = counts.head_count_kv_max then counts.head_count_kv_min end
            as head_count_kv,
        case when counts.key_length_min = counts.key_length_max then counts.key_length_min end as key_length,
        case when counts.value_length_min = counts.value_length_max then counts.value_length_min end
            as value_length,
        keys.key_length_key is not null as key_length_from_header,
        counts.full_attention_interval,
        keys.full_attention_interval_key is not null as interval_from_header,
        counts.fa_layers,
        counts.swa_layers,
        counts.recurrent_layers,
        counts.mtp_layers,
        counts.sliding_window_tokens,
        keys.expert_count,
        keys.expert_used_count
    from keys
    left join counts on counts.campaign = keys.campaign
)
select * from final
order by campaign
