"""Any model family llama.cpp runs: the shape, attention layout, layer split and KV bytes come
from the GGUF header the way llama.cpp reads it (b11434: src/llama-model.cpp load_hparams and
load_tensors, src/llama-hparams.cpp, src/models/<arch>.cpp).

Each campaign below is a real campaign folder (manifest, a GGUF header written with gguf-py's
GGUFWriter, the service env file) built by the whole pipeline, so the expected values are the
published ones. Every expected value is worked by hand next to its assertion. None of these
campaigns has a journal or a netdev capture: their pages must still render, with the missing
figures named as not measured.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.commands.bare_build import build_warehouse
from pipeline.commands.in_process import copy_tree
from pipeline.project import CAMPAIGN_AREAS, Project
from pipeline.util.sql import q
from pipeline.warehouse.schemas import campaign_schema
from pipeline.warehouse.steps import Layout

from gguf_headers import write_header
from paths import REPO

GEMMA2 = {"embedding_length": 3584, "block_count": 42, "attention.head_count": 16,
          "attention.head_count_kv": 8, "attention.key_length": 256, "attention.value_length": 256,
          "attention.sliding_window": 4096}

# name -> (architecture, GGUF keys without the arch prefix, env lines)
CAMPAIGNS = {
    # Llama-3-70B shape: no key_length (llama.cpp: n_embd / n_head = 8192 / 64 = 128), no interval.
    "llama70b": ("llama", {"embedding_length": 8192, "block_count": 80, "attention.head_count": 64,
                           "attention.head_count_kv": 8},
                 ["TENSOR_SPLIT=0.5,0.5", "CACHE_TYPE_K=q8_0", "CACHE_TYPE_V=f16", "N_GPU_LAYERS=999"]),
    # dense qwen3 with 39 blocks so that layer 20 sits exactly on the 0.5 split boundary.
    "qwen3dense": ("qwen3", {"embedding_length": 4096, "block_count": 39, "attention.head_count": 32,
                             "attention.head_count_kv": 8, "attention.key_length": 128,
                             "attention.value_length": 128},
                   ["LLAMA_ARG_TENSOR_SPLIT=1,1"]),
    # mixtral is arch llama with experts; only 20 layers offloaded (-ngl 20).
    "mixtral": ("llama", {"embedding_length": 4096, "block_count": 32, "attention.head_count": 32,
                          "attention.head_count_kv": 8, "expert_count": 8, "expert_used_count": 2},
                ["TENSOR_SPLIT=1,1", "N_GPU_LAYERS=20", "CACHE_TYPE_K=q8_0", "CACHE_TYPE_V=q8_0"]),
    # gemma2: sliding window on the even layers (pattern 2, llama.cpp's default for the arch).
    "gemma2": ("gemma2", GEMMA2, ["TENSOR_SPLIT=1,1"]),
    # the gemma2 shape with its sliding-window layers' own K/V length stated
    # (attention.key_length_swa / value_length_swa, as llama.cpp reads them for any
    # architecture): once longer K and shorter V than the full layers, once the other way
    "gemma2swa": ("gemma2", {**GEMMA2, "attention.key_length_swa": 512, "attention.value_length_swa": 64},
                  ["TENSOR_SPLIT=1,1"]),
    "gemma2swb": ("gemma2", {**GEMMA2, "attention.key_length_swa": 64, "attention.value_length_swa": 512},
                  ["TENSOR_SPLIT=1,1"]),
    # an old qwen3next header, from before full_attention_interval existed: llama.cpp assumes 4.
    "qwen3next": ("qwen3next", {"embedding_length": 2048, "block_count": 48,
                                "attention.head_count": 16, "attention.head_count_kv": 2,
                                "attention.key_length": 256, "attention.value_length": 256,
                                "expert_count": 512, "expert_used_count": 10},
                  ["TENSOR_SPLIT=1,1"]),
    # qwen35moe with one MTP (nextn) layer after its 40 decoder blocks.
    "qwen35moe": ("qwen35moe", {"embedding_length": 2048, "block_count": 41, "nextn_predict_layers": 1,
                                "full_attention_interval": 4, "attention.head_count": 16,
                                "attention.head_count_kv": 2, "attention.key_length": 256,
                                "attention.value_length": 256, "expert_count": 256,
                                "expert_used_count": 8},
                  ["TENSOR_SPLIT=1,1", "CACHE_TYPE_K=q8_0", "CACHE_TYPE_V=q8_0"]),
}


def _campaign(root: Path, name: str, arch: str, keys: dict, env: list[str]) -> None:
    folder = root / "raw_data" / "deployments" / name
    (folder / "gguf").mkdir(parents=True)
    (folder / "env").mkdir()
    write_header(folder / "gguf" / "model.gguf", arch, keys)
    (folder / "env" / "service.env").write_text("\n".join(env) + "\n")
    (folder / "README.md").write_text("Test fixture: GGUF header written with GGUFWriter.\n")
    (folder / "manifest.yaml").write_text(f"""campaign: {name}
kind: deployment
title: {name} fixture
date: 2026-10-01
provenance: captured
hosts: {{w: {{role: worker}}, h: {{role: head}}}}
files:
  - {{path: gguf/model.gguf, format: gguf, context: {{host: h}}}}
  - {{path: env/service.env, format: env, context: {{host: h, split_hosts: "w,h"}}}}
""")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    copy_tree(REPO, root)
    for area in CAMPAIGN_AREAS:
        shutil.rmtree(root / "raw_data" / area)
    for name, (arch, keys, env) in CAMPAIGNS.items():
        _campaign(root, name, arch, keys, env)
    old = os.environ.get("INTERCONNECT_DB")
    os.environ["INTERCONNECT_DB"] = str(root / "w.duckdb")
    try:
        layout = Layout(Project(root))
        db = duckdb.connect(str(layout.project.warehouse))
        outcomes = build_warehouse(db, layout)
    finally:
        if old is None:
            os.environ.pop("INTERCONNECT_DB")
        else:
            os.environ["INTERCONNECT_DB"] = old
    return db, outcomes


@pytest.fixture(scope="module")
def con(built):
    return built[0]


def constants(con, name: str) -> dict:
    cur = con.execute(f"select * from {q(campaign_schema(name))}.fct_deployment_constants")
    return dict(zip([d[0] for d in cur.description], cur.fetchall()[0]))


def test_every_family_is_published(built):
    assert {c: o.status for c, o in built[1].items() if c} == {n: "published" for n in CAMPAIGNS}


def test_llama_70b_defaults_key_length_and_is_dense(con):
    k = constants(con, "llama70b")
    # general.name as tests/support/gguf_headers.py writes it, not another key's text (the header also
    # holds general.architecture 'llama', which sorts after it)
    assert (k["model_name"], k["architecture"]) == ("fixture llama", "llama")
    # the staging grain: one row a GGUF key (general.architecture, general.name and the 4 keys),
    # each with the architecture its general.architecture names
    rows = con.execute(f"select count(*), count(distinct key), list(distinct architecture) from "
                       f"{q(campaign_schema('llama70b'))}.stg_deployment__gguf_metadata").fetchall()
    assert rows == [(6, 6, ["llama"])]
    assert (k["key_length"], k["value_length"]) == (128, 128)      # 8192 / 64 heads
    assert not k["key_length_from_header"]
    assert (k["fa_layers"], k["swa_layers"], k["recurrent_layers"]) == (80, 0, 0)
    # K q8_0: 8 KV heads x 128 = 1024 elements / 32 x 34 B = 1088; V f16: 1024 x 2 = 2048
    assert (k["k_bytes_per_token"], k["v_bytes_per_token"], k["kv_bytes_per_token"]) == (1088, 2048, 3136)
    # 80 blocks + output = 81 offloaded; device 0 while 0.5 > i / 81, i.e. i <= 40: 41 / 39
    assert (k["layers_worker"], k["layers_head"], k["fa_layers_worker"]) == (41, 39, 41)


def test_layer_exactly_on_the_split_boundary_goes_to_the_next_device(con):
    k = constants(con, "qwen3dense")
    # 39 blocks + output = 40 offloaded; layer 20 has 20 / 40 = 0.5, and upper_bound takes the
    # first device whose cumulative share is *greater* than 0.5: device 1. Worker 0..19 = 20.
    assert (k["layers_worker"], k["layers_head"]) == (20, 19)
    # no cache type in the env file: llama.cpp's default f16 both: 8 x 128 x 2 B = 2048 each
    assert k["kv_bytes_per_token"] == 4096 and k["cache_type_k"] == "f16"
    assert k["tensor_split_env_key"] == "LLAMA_ARG_TENSOR_SPLIT"


def test_mixtral_experts_and_a_partial_offload(con):
    k = constants(con, "mixtral")
    assert (k["expert_count"], k["expert_used_count"]) == (8, 2)
    # -ngl 20 of 32 blocks: i_gpu_start = 32 + 1 - 20 = 13, so layers 0..12 stay on the head's
    # CPU; layers 13..31 and the output are offloaded (act 20): device 0 while
    # (i - 13) / 20 < 0.5, i.e. i <= 22 -> worker 13..22 = 10; head GPU 23..31 = 9 + CPU 13 = 22
    assert (k["layers_on_head_cpu"], k["layers_worker"], k["layers_head"]) == (13, 10, 22)
    # K and V q8_0: 8 x 128 = 1024 elements / 32 x 34 = 1088 each
    assert k["kv_bytes_per_token"] == 2176


def test_gemma2_sliding_window_layers(con):
    k = constants(con, "gemma2")
    # pattern 2 (llama.cpp's gemma2 default): is_swa = i % 2 < 1, the even layers: 21 + 21
    assert (k["fa_layers"], k["swa_layers"], k["layer_rule"]) == (21, 21, "swa")
    assert k["sliding_window_tokens"] == 4096
    # a sliding-window layer of a header without key_length_swa / value_length_swa takes
    # key_length / value_length: 8 KV heads x 256 = 2048 elements each, f16 2 B: 8192 B a token
    swa = con.execute(f"select distinct k_elements_per_token, v_elements_per_token, kv_bytes_per_token "
                      f"from {q(campaign_schema('gemma2'))}.int_deployment__layer_kv "
                      f"where attention_kind = 'sliding_window'").fetchall()
    assert swa == [(2048, 2048, 8192)]
    # full layers: f16, 8 KV heads x 256 x 2 B = 4096 for K and V -> 8192 B
    assert k["kv_bytes_per_token"] == 8192
    # 42 + 1 = 43 offloaded, 0.5 > i / 43 for i <= 21: worker 0..21 holds odd full layers 1..21
    assert (k["layers_worker"], k["fa_layers_worker"], k["fa_layers_head"]) == (22, 11, 10)


@pytest.mark.parametrize("name, k_len, v_len", [("gemma2swa", 512, 64), ("gemma2swb", 64, 512)])
def test_sliding_window_layers_with_their_own_key_and_value_length(con, name, k_len, v_len):
    k = constants(con, name)
    # the model's KV geometry is the full-attention layers' (the odd ones): 256 / 256, 8192 B
    # a token in f16 as for gemma2, whatever the sliding-window layers have
    assert (k["key_length"], k["value_length"], k["kv_bytes_per_token"]) == (256, 256, 8192)
    assert (k["fa_layers"], k["swa_layers"]) == (21, 21)
    # a sliding-window layer: 8 KV heads x its own lengths, f16 2 B an element
    # (gemma2swa: K 4096 + V 512 elements = 9216 B; gemma2swb: 512 + 4096, the same bytes)
    swa = con.execute(f"select distinct k_elements_per_token, v_elements_per_token, kv_bytes_per_token "
                      f"from {q(campaign_schema(name))}.int_deployment__layer_kv "
                      f"where attention_kind = 'sliding_window'").fetchall()
    assert swa == [(8 * k_len, 8 * v_len, 2 * 8 * (k_len + v_len))]


def test_old_qwen3next_assumes_interval_4(con):
    k = constants(con, "qwen3next")
    assert k["full_attention_interval"] == 4 and not k["interval_from_header"]
    # (i + 1) % 4 == 0 over 48 layers: 12 full attention, 36 recurrent
    assert (k["fa_layers"], k["recurrent_layers"]) == (12, 36)
    # 48 + 1 = 49: worker i <= 24 -> full layers 3, 7, ..., 23 = 6; head 27, ..., 47 = 6
    assert (k["fa_layers_worker"], k["fa_layers_head"]) == (6, 6)
    # f16: 2 KV heads x 256 x 2 B = 1024 for K and V
    assert k["kv_bytes_per_token"] == 2048


def test_qwen35moe_mtp_layer_is_not_a_decoder_block(con):
    k = constants(con, "qwen35moe")
    assert (k["block_count"], k["decoder_blocks"], k["nextn_layers"]) == (41, 40, 1)
    # full attention among the 40 decoder blocks: 3, 7, ..., 39 = 10; the MTP layer is apart
    assert (k["fa_layers"], k["recurrent_layers"]) == (10, 30)
    # the split runs over all 41 blocks (+ output = 42): worker i <= 20 (0.5 > i / 42) = 21,
    # head 21..40 = 20 with the MTP layer 40 among them
    assert (k["layers_worker"], k["layers_head"], k["mtp_layers_head"], k["mtp_layers_worker"]) == (21, 20, 1, 0)
    assert (k["blocks_worker"], k["blocks_head"]) == (21, 19)
    # the shape counts the MTP layer once, apart from the 10 + 30 attention layers
    shape = con.execute(f"select mtp_layers, fa_layers + recurrent_layers + mtp_layers from "
                        f"{q(campaign_schema('qwen35moe'))}.int_deployment__model_shape").fetchall()
    assert shape == [(1, 41)]
    # q8_0 K and V: 2 x 256 = 512 elements / 32 x 34 = 544 each
    assert k["kv_bytes_per_token"] == 1088


def test_decoding_without_a_journal_is_not_measured(con):
    k = constants(con, "llama70b")
    assert k["prefill_tokens_per_s"] is None and k["wire_bytes_per_position_head_to_worker"] is None
    assert k["decoding_mode"] is None
