-- grain: one row per campaign with a GGUF header
-- The GGUF keys llama.cpp reads for the shape (src/llama-model.cpp load_hparams, b11434), one
-- column each, with the architecture prefix removed. Per-layer keys (head_count,
-- head_count_kv, sliding_window_pattern, recurrent_layers) may be a scalar or an array of one
-- value per block (ml.get_key_or_arr); they stay as text here and are read per layer later.
with meta as (
    select * from stg_deployment__gguf_metadata
),
final as (
    select
        campaign,
        max(source_file) as gguf_file,
        list(distinct source_file) as source_files,
        max(architecture) as architecture,
        max(value) filter (where key = 'general.name') as model_name,
        max(try_cast(value as bigint)) filter (where arch_key = 'embedding_length') as hidden_size,
        max(try_cast(value as bigint)) filter (where arch_key = 'block_count') as block_count,
        coalesce(max(try_cast(value as bigint)) filter (where arch_key = 'nextn_predict_layers'), 0)
            as nextn_layers,
        max(value) filter (where arch_key = 'attention.head_count') as head_count_text,
        max(value) filter (where arch_key = 'attention.head_count_kv') as head_count_kv_text,
        max(try_cast(value as bigint)) filter (where arch_key = 'attention.key_length') as key_length_key,
        max(try_cast(value as bigint)) filter (where arch_key = 'attention.value_length') as value_length_key,
        max(try_cast(value as bigint)) filter (where arch_key = 'attention.key_length_swa') as key_length_swa_key,
        max(try_cast(value as bigint)) filter (where arch_key = 'attention.value_length_swa') as value_length_swa_key,
        max(try_cast(value as bigint)) filter (where arch_key = 'full_attention_interval') as full_attention_interval_key,
        max(value) filter (where arch_key = 'attention.recurrent_layers') as recurrent_layers_text,
        max(value) filter (where arch_key = 'attention.sliding_window_pattern') as sliding_window_pattern_text,
        max(try_cast(value as bigint)) filter (where arch_key = 'attention.sliding_window') as sliding_window_key,
        max(try_cast(value as bigint)) filter (where arch_key = 'expert_count') as expert_count,
        max(try_cast(value as bigint)) filter (where arch_key = 'expert_used_count') as expert_used_count
    from meta
    group by campaign
)
select * from final
order by campaign
