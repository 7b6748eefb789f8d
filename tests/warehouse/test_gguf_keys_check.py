"""The blocking check sql/tests/assert_gguf_has_required_keys.sql on a hand-made model shape: a
model with no full-attention layer (recurrent only) needs no key or value length; one with a
full-attention layer does; every model needs its width, depth and KV heads."""
from __future__ import annotations

import duckdb

from paths import REPO

ROOT = REPO


def test_key_and_value_lengths_are_required_only_with_full_attention_layers():
    con = duckdb.connect()
    con.execute("create table int_deployment__model_shape (campaign varchar, gguf_file varchar, "
                "architecture varchar, hidden_size bigint, block_count bigint, head_count_kv bigint, "
                "key_length bigint, value_length bigint, fa_layers bigint)")
    con.executemany("insert into int_deployment__model_shape values (?, ?, ?, ?, ?, ?, ?, ?, ?)", [
        ("recurrent", "r.gguf", "mamba", 2048, 48, 1, None, None, 0),       # fine: no attention
        ("full", "f.gguf", "llama", 4096, 32, 8, 128, 128, 32),             # fine
        ("no-key", "k.gguf", "llama", 4096, 32, 8, None, 128, 1),           # flagged
        ("no-value", "v.gguf", "llama", 4096, 32, 8, 128, None, 1),         # flagged
        ("no-width", "w.gguf", "mamba", None, 48, 1, None, None, 0),        # flagged
        ("no-depth", "d.gguf", "mamba", 2048, None, 1, None, None, 0),      # flagged
        ("no-kv-heads", "h.gguf", "mamba", 2048, 48, None, None, None, 0),  # flagged
    ])
    sql = (ROOT / "sql" / "tests" / "assert_gguf_has_required_keys.sql").read_text()
    flagged = sorted(r[0] for r in con.execute(sql).fetchall())
    assert flagged == ["no-depth", "no-key", "no-kv-heads", "no-value", "no-width"]
