-- grain: one row per campaign
-- Bytes of KV cache per full-attention layer per token: head_count_kv x key_length elements
-- of the K cache type and head_count_kv x value_length of the V type, each stored in ggml
-- blocks (q8_0: 34 bytes per 32 elements; f16: 2 bytes per element).
with shape as (
    select * from int_deployment__model_shape
),
cfg as (
    select * from int_deployment__service_config
),
final as (
    select
        shape.campaign,
        cfg.cache_type_k,
        cfg.cache_type_v,
        shape.head_count_kv * shape.key_length as k_elements_per_token,
        shape.head_count_kv * shape.value_length as v_elements_per_token,
        shape.head_count_kv * shape.key_length / k.block_elements * k.block_bytes as k_bytes_per_token,
        shape.head_count_kv * shape.value_length / v.block_elements * v.block_bytes as v_bytes_per_token,
        shape.head_count_kv * shape.key_length / k.block_elements * k.block_bytes
            + shape.head_count_kv * shape.value_length / v.block_elements * v.block_bytes
            as kv_bytes_per_token
    from shape
    join cfg on cfg.campaign = shape.campaign
    left join ref_ggml_types as k on k.ggml_type = cfg.cache_type_k
    left join ref_ggml_types as v on v.ggml_type = cfg.cache_type_v
)
select * from final
order by campaign
