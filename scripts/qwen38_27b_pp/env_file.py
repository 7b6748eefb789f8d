"""The systemd EnvironmentFile of ``frank-dragoon.service`` (llama-server's flags)."""
from __future__ import annotations

from .targets import CLAW_IP, RPC_PORT

ENV_TEXT = f"""\
# /etc/frank/frank-dragoon.env -- EnvironmentFile= of frank-dragoon.service (llama-server)
# Qwen3.8-27B pipeline-parallel over ggml RPC: claw (rpc-server) + server (head, local GPU).
# TENSOR_SPLIT follows the device order: claw's RPC device first, then the local GPU,
# i.e. 45 of 65 blocks on claw and 20 on server.
MODEL=/srv/models/qwen3.8-27b/Qwen3.8-27B-Q4_K_M.gguf
RPC_SERVERS={CLAW_IP}:{RPC_PORT}
TENSOR_SPLIT=0.68,0.32
N_GPU_LAYERS=999
CTX_SIZE=131072
PARALLEL=1
BATCH_SIZE=2048
UBATCH_SIZE=256
# KV per full-attention layer per token: K q8_0 4x256 el = 1088 B, V f16 = 2048 B -> 3136 B
CACHE_TYPE_K=q8_0
CACHE_TYPE_V=f16
# MTP self-speculation: a verify step carries 1 + SPEC_DRAFT_N_MAX positions
SPEC_DRAFT_N_MAX=4
SPEC_DRAFT_N_MIN=0
# host-RAM prompt cache (llama-server --cache-ram)
CACHE_RAM_MIB=8192
HOST=0.0.0.0
PORT=8080
"""
