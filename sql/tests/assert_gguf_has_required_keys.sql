-- check: every campaign's GGUF header gives the shape the split and the KV model need (embedding_length, block_count, and attention heads from which llama.cpp derives KV heads and key/value length)
-- blocking: true
-- fix: give the full GGUF header (python -m pipeline.collect gguf on the model file), or a header that has these keys; a campaign without a GGUF is not failed, its bytes per token are not measured
-- A GGUF without one of these parses fine (it is a valid file) but leaves the bytes per token
-- and the layer split NULL: a data-quality finding about the file, named here. Keys llama.cpp
-- defaults (key_length = embedding_length / head_count, head_count_kv = head_count, the
-- qwen3next interval 4) are not required; int_deployment__layers applies the defaults.
select campaign, gguf_file, architecture, hidden_size, block_count, head_count_kv, key_length,
       value_length
from int_deployment__model_shape
where hidden_size is null or block_count is null or head_count_kv is null
   or (fa_layers > 0 and (key_length is null or value_length is null))
