-- grain: one row per campaign
-- The model's shape as its GGUF header states it (not as a model card guesses it).
with meta as (
    select * from stg_deployment__gguf_metadata
),
final as (
    select
        campaign,
        max(source_file) as gguf_file,
        max(architecture) as architecture,
        max(value) filter (where key = 'general.name') as model_name,
        max(try_cast(value as bigint)) filter (where arch_key = 'embedding_length') as hidden_size,
        max(try_cast(value as bigint)) filter (where arch_key = 'block_count') as block_count,
        max(try_cast(value as bigint)) filter (where arch_key = 'attention.head_count_kv') as head_count_kv,
        max(try_cast(value as bigint)) filter (where arch_key = 'attention.key_length') as key_length,
        max(try_cast(value as bigint)) filter (where arch_key = 'attention.value_length') as value_length,
        max(try_cast(value as bigint)) filter (where arch_key = 'full_attention_interval') as full_attention_interval
    from meta
    group by campaign
)
select * from final
order by campaign
