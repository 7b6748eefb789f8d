"""A small GGUF with random weights, for the RPC lab: llama's architecture, or qwen2's (the same
blocks with biases on the Q, K and V projections, its keys under ``qwen2.``), so the lab also
measures a model of another family.

Deterministic (a seeded generator, fixed tensor order): the same arguments give the same bytes,
so the lab's GGUF header and its wire bytes are repeatable. The vocabulary (tokens, scores,
types, special ids) is copied from a vocabulary-only GGUF in llama.cpp's source
(``models/ggml-vocab-llama-spm.gguf``); the weights are small normal values, so the text it
generates is noise, which does not matter: the traffic of a pipeline split depends on the
shapes, not the values.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from gguf import GGUFReader, GGUFValueType, GGUFWriter

ARCHS = ("llama", "qwen2")
VOCAB_KEYS = ("tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
              "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.bos_token_id",
              "tokenizer.ggml.eos_token_id", "tokenizer.ggml.unknown_token_id",
              "tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token")


@dataclass(frozen=True)
class Shape:
    embedding: int = 512
    blocks: int = 8
    heads: int = 8
    kv_heads: int = 8
    ffn: int = 1024
    context: int = 4096
    seed: int = 20261202
    arch: str = "llama"

    @property
    def name(self) -> str:
        """The file's stem and general.name: the family, hidden size, blocks and, for
        grouped-query attention, ``gqa<KV heads>`` (a name word never starts with a word a
        reader searches the site for, such as "kv")."""
        if self.arch == "llama" and self.kv_heads == self.heads:
            return f"lab-llama-h{self.embedding}-l{self.blocks}-random"
        gqa = f"-gqa{self.kv_heads}" if self.kv_heads != self.heads else ""
        return f"lab-{self.arch}-h{self.embedding}-l{self.blocks}{gqa}-random"


def _field_value(field):
    """A reader field's value as the writer takes it (scalars, strings, arrays)."""
    kind = field.types[0]
    if kind == GGUFValueType.STRING:
        return bytes(field.parts[field.data[0]]).decode("utf-8")
    if kind == GGUFValueType.ARRAY:
        inner = field.types[1]
        if inner == GGUFValueType.STRING:
            return [bytes(field.parts[i]).decode("utf-8") for i in field.data]
        return [field.parts[i].tolist()[0] for i in field.data]
    return field.parts[field.data[0]].tolist()[0]


def copy_vocabulary(writer: GGUFWriter, vocab: Path) -> int:
    """Copy the tokenizer keys of ``vocab``; returns the vocabulary size."""
    reader = GGUFReader(vocab)
    size = 0
    for key in VOCAB_KEYS:
        field = reader.fields.get(key)
        if field is None:
            raise ValueError(f"{vocab}: no {key} (not a llama.cpp vocabulary file)")
        value = _field_value(field)
        kind = field.types[0]
        if kind == GGUFValueType.ARRAY:
            writer.add_array(key, value)
            size = max(size, len(value))
        elif kind == GGUFValueType.STRING:
            writer.add_string(key, value)
        else:
            writer.add_key_value(key, value, kind)
    return size


def write(path: Path, vocab: Path, shape: Shape = Shape()) -> Path:
    """Write the model to ``path`` (via a temporary name, renamed when complete)."""
    if shape.arch not in ARCHS:
        raise ValueError(f"architecture {shape.arch!r}: the lab writes {', '.join(ARCHS)}")
    rng = np.random.default_rng(shape.seed)
    tmp = path.with_name(f".{path.name}.tmp")
    writer = GGUFWriter(tmp, shape.arch)
    writer.add_name(shape.name)
    writer.add_context_length(shape.context)
    writer.add_embedding_length(shape.embedding)
    writer.add_block_count(shape.blocks)
    writer.add_feed_forward_length(shape.ffn)
    writer.add_head_count(shape.heads)
    writer.add_head_count_kv(shape.kv_heads)
    writer.add_rope_dimension_count(shape.embedding // shape.heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(1)                     # mostly f16
    n_vocab = copy_vocabulary(writer, vocab)
    writer.add_vocab_size(n_vocab)
    kv_dim = shape.embedding // shape.heads * shape.kv_heads

    def weight(rows: int, cols: int) -> np.ndarray:
        return (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02).astype(np.float16)

    h = shape.embedding
    writer.add_tensor("token_embd.weight", weight(n_vocab, h))
    for b in range(shape.blocks):
        writer.add_tensor(f"blk.{b}.attn_norm.weight", np.ones(h, dtype=np.float32))
        writer.add_tensor(f"blk.{b}.attn_q.weight", weight(h, h))
        writer.add_tensor(f"blk.{b}.attn_k.weight", weight(kv_dim, h))
        writer.add_tensor(f"blk.{b}.attn_v.weight", weight(kv_dim, h))
        if shape.arch == "qwen2":
            writer.add_tensor(f"blk.{b}.attn_q.bias", np.zeros(h, dtype=np.float32))
            writer.add_tensor(f"blk.{b}.attn_k.bias", np.zeros(kv_dim, dtype=np.float32))
            writer.add_tensor(f"blk.{b}.attn_v.bias", np.zeros(kv_dim, dtype=np.float32))
        writer.add_tensor(f"blk.{b}.attn_output.weight", weight(h, h))
        writer.add_tensor(f"blk.{b}.ffn_norm.weight", np.ones(h, dtype=np.float32))
        writer.add_tensor(f"blk.{b}.ffn_gate.weight", weight(shape.ffn, h))
        writer.add_tensor(f"blk.{b}.ffn_up.weight", weight(shape.ffn, h))
        writer.add_tensor(f"blk.{b}.ffn_down.weight", weight(h, shape.ffn))
    writer.add_tensor("output_norm.weight", np.ones(h, dtype=np.float32))
    writer.add_tensor("output.weight", weight(n_vocab, h))
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    tmp.replace(path)
    return path
