-- grain: one row per campaign and attention layer (full or sliding-window) of the model
-- Bytes of KV cache per token a layer stores: head_count_kv x key_length elements of the K cache
-- type plus head_count_kv x value_length of the V type, each in ggml blocks (q8_0: 34 bytes per
-- 32 elements; f16: 2 bytes per element). Recurrent layers keep a fixed state, not KV per token.
with layers as (
    select * from int_deployment__layers
    where is_full_attention or is_swa
),
cfg as (
    select * from int_deployment__service_config
),
final as (
    select
        layers.campaign,
        layers.layer,
        layers.attention_kind,
        layers.sliding_window_tokens,
        cfg.cache_type_k,
        cfg.cache_type_v,
        layers.head_count_kv * layers.key_length as k_elements_per_token,
        layers.head_count_kv * layers.value_length as v_elements_per_token,
        layers.head_count_kv * layers.key_length / k.block_elements * k.block_bytes as k_bytes_per_token,
        layers.head_count_kv * layers.value_length / v.block_elements * v.block_bytes as v_bytes_per_token,
        layers.head_count_kv * layers.key_length / k.block_elements * k.block_bytes
            + layers.head_count_kv * layers.value_length / v.block_elements * v.block_bytes
            as kv_bytes_per_token
    from layers
    left join cfg on cfg.campaign = layers.campaign
    left join ref_ggml_types as k on k.ggml_type = cfg.cache_type_k
    left join ref_ggml_types as v on v.ggml_type = cfg.cache_type_v
)
select * from final
order by campaign, layer
