-- grain: one row per campaign
-- KV bytes per token of one full-attention layer (K and V parts), when every full-attention
-- layer has the same geometry; NULL when they differ (the per-layer table has each).
with kv as (
    select * from int_deployment__layer_kv
    where attention_kind = 'full'
),
final as (
    select
        campaign,
        max(cache_type_k) as cache_type_k,
        max(cache_type_v) as cache_type_v,
        case when min(k_bytes_per_token) = max(k_bytes_per_token) then min(k_bytes_per_token) end
            as k_bytes_per_token,
        case when min(v_bytes_per_token) = max(v_bytes_per_token) then min(v_bytes_per_token) end
            as v_bytes_per_token,
        case when min(kv_bytes_per_token) = max(kv_bytes_per_token) then min(kv_bytes_per_token) end
            as kv_bytes_per_token,
        sum(kv_bytes_per_token) as kv_bytes_per_token_all_full_layers
    from kv
    group by campaign
)
select * from final
order by campaign
