"""llama-server log-line parser: every message shape, garbage, and the timing carry-over."""
import pytest

from pipeline.ingest.formats.llama_server_fields import FIELDS, TimingContext, parse_message


def fields(**given):
    return {**dict.fromkeys(FIELDS), **given}


SHAPES = [
    ("slot launch_slot_: id  0 | task 11924 | processing task",
     fields(event="launch", slot_id=0, task_id=11924)),
    ("slot launch_slot_: id  3 | task 7 | processing task, is_child = 0",
     fields(event="launch", slot_id=3, task_id=7)),
    ("slot update_slots: id  0 | task 11924 | new prompt, n_ctx_slot = 131072, n_keep = 0, task.n_tokens = 13959",
     fields(event="new_prompt", slot_id=0, task_id=11924, tokens=13959)),
    ("slot update_slots: id  0 | task 11924 | prompt processing progress, n_tokens = 256, batch.n_tokens = 256, progress = 0.018339",
     fields(event="prompt_progress", slot_id=0, task_id=11924, tokens=256)),
    ("slot update_slots: id  0 | task 11924 | prompt done, n_tokens = 13959, batch.n_tokens = 135",
     fields(event="prompt_done", slot_id=0, task_id=11924, tokens=13959)),
    ("slot print_timing: id  0 | task 11924 | ",
     fields(event="timing_header", slot_id=0, task_id=11924)),
    ("slot print_timing: id  0 | task 11924 |",  # trailing blank trimmed on the way
     fields(event="timing_header", slot_id=0, task_id=11924)),
    ("prompt eval time =   30485.00 ms / 13959 tokens (    2.18 ms per token,   457.90 tokens per second)",
     fields(event="prompt_eval", ms=30485.0, tokens=13959)),
    ("       eval time =   40988.00 ms /   962 tokens (   42.61 ms per token,    23.47 tokens per second)",
     fields(event="eval", ms=40988.0, tokens=962)),
    ("      total time =   71473.00 ms / 14921 tokens",
     fields(event="total", ms=71473.0, tokens=14921)),
    ("draft acceptance rate = 0.71200 (  712 accepted /  1000 generated)",
     fields(event="draft_acceptance", accepted=712, generated=1000)),
    # builds since May 2026: "draft acceptance = %0.5f (%5d accepted / %5d generated), mean len = %5.2f"
    ("slot print_timing: id  0 | task 5 | draft acceptance = 0.68519 (  555 accepted /   810 generated), mean len =  2.85",
     fields(event="draft_acceptance", slot_id=0, task_id=5, accepted=555, generated=810, mean_len=2.85)),
    ("draft acceptance = 0.68519 (  555 accepted /   810 generated)",
     fields(event="draft_acceptance", accepted=555, generated=810)),
    # 2024: "new prompt, …, n_prompt_tokens = %d", "prompt processing progress, n_past = %d, n_tokens = %d"
    ("slot update_slots: id  0 | task 0 | new prompt, n_ctx_slot = 2048, n_keep = 0, n_prompt_tokens = 99",
     fields(event="new_prompt", slot_id=0, task_id=0, tokens=99)),
    ("slot update_slots: id  0 | task 0 | prompt processing progress, n_past = 99, n_tokens = 99, progress = 1.000000",
     fields(event="prompt_progress", slot_id=0, task_id=0, tokens=99)),
    ("slot update_slots: id  0 | task 0 | prompt done, n_past = 99, n_tokens = 99",
     fields(event="prompt_done", slot_id=0, task_id=0, tokens=99)),
    ("slot      release: id  0 | task 0 | stop processing: n_past = 496, truncated = 0",
     fields(event="release", slot_id=0, task_id=0, tokens=496)),
    # 2026: "prompt processing done, n_tokens = %d, batch.n_tokens = %d"
    ("slot update_slots: id  3 | task 0 | prompt processing done, n_tokens = 862, batch.n_tokens = 516",
     fields(event="prompt_done", slot_id=3, task_id=0, tokens=862)),
    # common/speculative.cpp, b11434: "statistics %16s: #calls(b,g,a) = %4zu %6zu %6zu, #gen drafts = …"
    ("spec  print_stats: statistics        draft-mtp: #calls(b,g,a) =    1    882    882, #gen drafts =    882, "
     "#acc drafts =   716, #gen tokens =   5292, #acc tokens =  2235, #mean acc len = 3.53",
     fields(event="spec_statistics", spec_type="draft-mtp", count=882, drafts=882, generated=5292,
            accepted=2235)),
    ("statistics ngram_mod: #calls(b,g,a) = 20 2985 131, #gen drafts = 131, #acc drafts = 131, "
     "#gen tokens = 6168, #acc tokens = 5837",
     fields(event="spec_statistics", spec_type="ngram_mod", count=131, drafts=131, generated=6168,
            accepted=5837)),
    # src/llama.cpp: "%s: using device %s (%s) (%s) - %zu MiB free", device RPC%d[endpoint]
    ("llama_model_load_from_file_impl: using device RPC0[10.203.0.2:50052] (RPC0[10.203.0.2:50052]) (unknown id) - 7892 MiB free",
     fields(event="rpc_device", endpoint="10.203.0.2:50052")),
    ("llama_model_load_from_file_impl: using device RPC[192.168.0.42:50052] (RPC[192.168.0.42:50052]) - 23000 MiB free",
     fields(event="rpc_device", endpoint="192.168.0.42:50052")),
    # b11434: the device is named "RPC%d", its description the endpoint (ggml-rpc.cpp
    # ggml_backend_rpc_add_server), as the lab's own logs print it
    ("llama_prepare_model_devices: using device RPC0 (10.203.0.2:50052) (unknown id) - 24105 MiB free",
     fields(event="rpc_device", endpoint="10.203.0.2:50052")),
    # rpc-server (ggml/src/ggml-rpc/ggml-rpc.cpp)
    ("Accepted client connection", fields(event="rpc_accept")),
    ("Client connection closed", fields(event="rpc_close")),
    # a launcher's "[pid] " in front, then --log-timestamps and --log-prefix
    ("[44195] 4.26.848.529 I slot print_timing: id  3 | task 0 | draft acceptance = 0.41236 ( 2235 accepted /  5420 generated)",
     fields(event="draft_acceptance", slot_id=3, task_id=0, accepted=2235, generated=5420)),
    # newer llama.cpp prints each timing line with its own slot prefix
    ("slot print_timing: id  1 | task 42 | prompt eval time =     120.50 ms /    64 tokens (    1.88 ms per token,   531.12 tokens per second)",
     fields(event="prompt_eval", slot_id=1, task_id=42, ms=120.5, tokens=64)),
    ("slot      release: id  0 | task 11924 | stop processing: n_tokens = 14920, truncated = 0",
     fields(event="release", slot_id=0, task_id=11924, tokens=14920)),
    ("srv  get_availabl: updating prompt cache", fields(event="cache_update_start")),
    ("srv   prompt_save:  - saving prompt with length 98100, total state size = 3301.125 MiB",
     fields(event="prompt_save", tokens=98100, state_mib=3301.125)),
    ("srv   prompt_save:  - saving prompt with length 512, total state size = 17.250 MiB (draft: 0.000 MiB)",
     fields(event="prompt_save", tokens=512, state_mib=17.25)),
    ("srv        update:  - cache state: 1 prompts, 3301.125 MiB (limits: 8192.000 MiB, 131072 tokens, 325573 est)",
     fields(event="cache_state", state_mib=3301.125)),
    ("srv  get_availabl: prompt cache update took 14418.00 ms",
     fields(event="cache_update_done", ms=14418.0)),
    # --log-timestamps / --log-prefix put time and level in front
    ("0.05.123.456 I slot launch_slot_: id  0 | task 9 | processing task",
     fields(event="launch", slot_id=0, task_id=9)),
    # other lines: no event, but a slot prefix still yields slot and task
    ("slot get_availabl: id  0 | task -1 | selected slot by LRU, t_last = -1",
     fields(slot_id=0, task_id=-1)),
    ("slot print_timing: id  0 | task 11924 |    graphs reused =         12",
     fields(event="graphs_reused", slot_id=0, task_id=11924, count=12)),
    ("srv  log_server_r: request: POST /v1/chat/completions 192.168.0.15 200", fields()),
    ("srv        update:    - prompt 0x5b1c3e0a8f10:   98100 tokens, checkpoints:  0,  3301.125 MiB", fields()),
    ("main: server is listening on http://0.0.0.0:8080 - starting the main loop", fields()),
    ("", fields()),
    (None, fields()),
    ("   ", fields()),
    ("\x00\x01\ufffd garbage \x7f", fields()),
    ("prompt eval time = lots ms / many tokens", fields()),
    ("slot : id x | task y | processing task", fields()),
    ("eval time = 1.0 ms / 2 tokens\nsecond line", fields(event="eval", ms=1.0, tokens=2)),
]


# (ids: the message, made of word characters by conftest's pytest_make_parametrize_id)
@pytest.mark.parametrize("message, expected", SHAPES)
def test_message_shapes(message, expected):
    assert parse_message(message) == expected


def test_continuation_lines_take_the_header_of_their_own_stream():
    ctx = TimingContext()
    a, b = (2291, "frank-dragoon.service"), (3001, "frank-zealot.service")
    assert ctx.parse(a, "eval time = 5.00 ms / 1 tokens")["slot_id"] is None  # no header yet
    ctx.parse(a, "slot print_timing: id  0 | task 500 | ")
    ctx.parse(b, "slot print_timing: id  1 | task 77 | ")
    row_a = ctx.parse(a, "prompt eval time =    1200.00 ms /   600 tokens (    2.00 ms per token,   500.00 tokens per second)")
    row_b = ctx.parse(b, "prompt eval time =     100.00 ms /    50 tokens")
    assert (row_a["slot_id"], row_a["task_id"], row_a["tokens"]) == (0, 500, 600)
    assert (row_b["slot_id"], row_b["task_id"], row_b["tokens"]) == (1, 77, 50)
    # unrelated lines in between do not break the block; the draft line still belongs to task 500
    ctx.parse(a, "slot print_timing: id  0 | task 500 |    graphs reused =          3")
    row = ctx.parse(a, "draft acceptance rate = 0.75000 (   60 accepted /    80 generated)")
    assert (row["slot_id"], row["task_id"], row["accepted"], row["generated"]) == (0, 500, 60, 80)
    # a prefixed timing line (newer llama.cpp) also sets the stream's task
    ctx.parse(a, "slot print_timing: id  0 | task 501 | prompt eval time = 1.00 ms / 1 tokens")
    assert ctx.parse(a, "      total time = 2.00 ms / 2 tokens")["task_id"] == 501
