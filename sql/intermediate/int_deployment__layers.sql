-- grain: one row per campaign and block (layer) of the model, as llama.cpp lays them out
-- llama.cpp b11434, src/llama-model.cpp load_hparams and src/llama-hparams.cpp:
-- * n_layer() = block_count - nextn_predict_layers: the last nextn (MTP) blocks are not decoder
--   blocks; they are dense attention, never recurrent or sliding-window (set_*_pattern);
-- * head_count and head_count_kv may be per-layer arrays; head_count_kv defaults to head_count;
-- * key/value length default to embedding_length / head_count (n_head() is layer 0's count);
-- * attention kind per layer by the architecture's rule (ref_llama_cpp_architectures):
--   interval (qwen3next/qwen35*): recurrent unless (il + 1) % full_attention_interval = 0,
--   interval 4 when the key is absent, attention.recurrent_layers overriding; swa (gemma …):
--   sliding_window_pattern n (array, or scalar over the default), is_swa = il % n < n - 1
--   (il % n != 0 when dense comes first, every layer when n = 0); dense: all full attention.
--   An architecture missing from the table is read as dense (named by a check).
with keys as (
    select * from int_deployment__gguf_keys
),
arch as (
    select * from ref_llama_cpp_architectures
),
layers as (
    select
        keys.*,
        unnest(generate_series(0, keys.block_count - 1)) as layer,
        keys.block_count - keys.nextn_layers as decoder_blocks,
        coalesce(arch.layer_rule, 'dense') as layer_rule,
        arch.architecture is not null as architecture_known,
        coalesce(keys.full_attention_interval_key, arch.default_interval) as full_attention_interval,
        arch.default_swa_pattern,
        coalesce(arch.swa_dense_first, false) as swa_dense_first,
        coalesce(arch.swa_needs_window_key, false) as swa_needs_window_key,
        coalesce(keys.sliding_window_key, arch.default_sliding_window) as sliding_window
    from keys
    left join arch on arch.architecture = keys.architecture
    where keys.block_count > 0
),
per_layer as (
    select
        *,
        layer >= decoder_blocks as is_nextn,
        case when starts_with(head_count_text, '[')
             then json_extract(head_count_text, '$[' || layer || ']')::bigint
             else try_cast(head_count_text as bigint) end as head_count,
        case when starts_with(head_count_text, '[')
             then json_extract(head_count_text, '$[0]')::bigint
             else try_cast(head_count_text as bigint) end as head_count_layer0,
        case when starts_with(head_count_kv_text, '[')
             then json_extract(head_count_kv_text, '$[' || layer || ']')::bigint
             else try_cast(head_count_kv_text as bigint) end as head_count_kv_key,
        case when starts_with(sliding_window_pattern_text, '[')
             then json_extract(sliding_window_pattern_text, '$[' || layer || ']')::boolean end
            as swa_from_array,
        coalesce(case when starts_with(sliding_window_pattern_text, '[') then null
                      else try_cast(sliding_window_pattern_text as bigint) end,
                 default_swa_pattern) as swa_pattern,
        case when starts_with(recurrent_layers_text, '[')
             then json_extract(recurrent_layers_text, '$[' || layer || ']')::boolean end
            as recurrent_from_array
    from layers
),
kinds as (
    select
        *,
        case
            when layer_rule <> 'interval' or is_nextn then false
            when recurrent_from_array is not null then recurrent_from_array
            else (layer + 1) % full_attention_interval <> 0
        end as is_recurrent,
        case
            when layer_rule <> 'swa' or is_nextn then false
            when swa_needs_window_key and coalesce(sliding_window, 0) = 0 then false
            when swa_from_array is not null then swa_from_array
            when swa_pattern = 0 then true
            when swa_dense_first then layer % swa_pattern <> 0
            else layer % swa_pattern < swa_pattern - 1
        end as is_swa
    from per_layer
),
final as (
    select
        campaign,
        gguf_file,
        source_files,
        architecture,
        architecture_known,
        layer_rule,
        layer,
        is_nextn,
        is_recurrent,
        is_swa,
        not is_recurrent and not is_swa and not is_nextn as is_full_attention,
        case when is_recurrent then 'recurrent' when is_swa then 'sliding_window'
             when is_nextn then 'mtp' else 'full' end as attention_kind,
        head_count,
        coalesce(head_count_kv_key, head_count) as head_count_kv,
        case when is_swa then coalesce(key_length_swa_key, key_length_key, hidden_size // head_count_layer0)
             else coalesce(key_length_key, hidden_size // head_count_layer0) end as key_length,
        case when is_swa then coalesce(value_length_swa_key, value_length_key, hidden_size // head_count_layer0)
             else coalesce(value_length_key, hidden_size // head_count_layer0) end as value_length,
        case when is_swa then sliding_window end as sliding_window_tokens,
        full_attention_interval
    from kinds
)
select * from final
order by campaign, layer
