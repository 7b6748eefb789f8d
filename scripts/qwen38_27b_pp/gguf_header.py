"""The GGUF header + metadata of the model file (``gguf.GGUFWriter``, no tensors)."""
from __future__ import annotations

from pathlib import Path


def write_gguf(path: Path) -> None:
    import gguf

    path.parent.mkdir(parents=True, exist_ok=True)
    w = gguf.GGUFWriter(str(path), arch="qwen35")
    w.add_type("model")
    w.add_name("Qwen3.8-27B")
    w.add_basename("Qwen3.8")
    w.add_size_label("27B")
    w.add_license("apache-2.0")
    w.add_block_count(65)                 # 64 decoder blocks + 1 MTP (nextn) block
    w.add_context_length(262144)
    w.add_embedding_length(5120)
    w.add_feed_forward_length(17408)
    w.add_head_count(24)
    w.add_head_count_kv(4)
    w.add_key_length(256)
    w.add_value_length(256)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10_000_000.0)
    w.add_rope_dimension_count(64)
    w.add_rope_dimension_sections([11, 11, 10, 0])
    w.add_full_attention_interval(4)      # every 4th block is full attention: 16 of 64
    w.add_nextn_predict_layers(1)
    w.add_ssm_conv_kernel(4)
    w.add_ssm_state_size(128)
    w.add_ssm_group_count(16)
    w.add_ssm_time_step_rank(48)
    w.add_ssm_inner_size(6144)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen35")
    w.add_eos_token_id(248046)
    w.add_pad_token_id(248044)
    w.add_file_type(15)                   # LLAMA_FTYPE_MOSTLY_Q4_K_M
    w.add_quantization_version(2)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
