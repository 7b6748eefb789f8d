-- check: every campaign's GGUF header states the shape keys the KV and activation models need
-- blocking: true
-- A GGUF without one of these keys parses fine (it is a valid file) but leaves the bytes per
-- token and the layer split NULL: a data-quality finding about the file, named here.
select campaign, gguf_file, architecture, hidden_size, block_count, head_count_kv, key_length,
       value_length, full_attention_interval
from int_deployment__model_shape
where hidden_size is null or block_count is null or head_count_kv is null
   or key_length is null or value_length is null or full_attention_interval is null
