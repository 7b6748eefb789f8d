"""The session timeline: task 11924, the turns up to 98,100 tokens, and the KV snapshot."""
from __future__ import annotations

import random

from .session import Session, slt, srv
from .targets import (
    DECODE_MS,
    DECODE_TOKENS,
    DRAFT_ACCEPTED,
    DRAFT_GENERATED,
    H2W_PER_POS,
    KV_BYTES_PER_TOKEN_LAYER,
    PREFILL_MS,
    PROC_US,
    PROMPT_TOKENS,
    SEED,
    SNAP_TOKENS,
    SNAP_TOOK_MS,
    T0_US,
    TASK_ID,
    W2H_PER_POS,
    rel,
)


def state_size_bytes(n_tokens: int) -> int:
    """llama_state_seq_get_size for the hybrid model: KV of 16 FA layers + 48 recurrent states.

    KV: per cell a pos (int32) + n_seq_id (uint32), per layer a type (int32) + row size
    (uint64) header for K and V, then the rows. Recurrent: conv state (d_conv-1) x
    (inner + 2 x groups x state) f32 and the delta-net state 128 x 128 x 48 heads f32."""
    kv = 4 + n_tokens * 8 + 8 + 16 * 2 * 12 + 16 * n_tokens * KV_BYTES_PER_TOKEN_LAYER
    rec = 4 + 8 + 8 + 48 * 2 * 12 + 48 * (3 * (6144 + 2 * 16 * 128) * 4 + 128 * 128 * 48 * 4)
    return kv + rec


def build_session() -> tuple[Session, dict]:
    rng = random.Random(SEED + "/session")
    s = Session(rng)
    info: dict = {}
    completions = 0

    # ---- task 11924: fresh 13,959-token prompt on a never-used slot
    s.request_in(T0_US - 1300, 61_874)
    s.say(T0_US - 1180, slt("get_availabl", -1, "selected slot by LRU, t_last = -1"))
    s.say(T0_US - 930, slt("launch_slot_", TASK_ID, "processing task"))
    s.say(T0_US, slt("update_slots", TASK_ID,
                     f"new prompt, n_ctx_slot = 131072, n_keep = 0, task.n_tokens = {PROMPT_TOKENS}"))
    s.say(T0_US + 41, slt("update_slots", TASK_ID, "n_tokens = 0, memory_seq_rm [0, end)"))
    t_first = s.prefill(TASK_ID, T0_US, 0, PROMPT_TOKENS, int(PREFILL_MS * 1000), True, exact=True)
    steps = DECODE_TOKENS - DRAFT_ACCEPTED
    s.decode(TASK_ID, t_first, steps, DRAFT_ACCEPTED, int(DECODE_MS * 1000), True)
    t_print = t_first + int(DECODE_MS * 1000) + 614
    s.timing(t_print, TASK_ID, PREFILL_MS, PROMPT_TOKENS, DECODE_MS, DECODE_TOKENS,
             DRAFT_ACCEPTED, DRAFT_GENERATED)
    cached = PROMPT_TOKENS + DECODE_TOKENS - 1
    release = s.finish(t_print + 37, TASK_ID, cached)
    completions += 1
    info["prefill_release_us"] = release

    # ---- the same agent conversation grows turn by turn to 98,100 tokens
    t = release
    while cached < SNAP_TOKENS:
        t += int(rng.uniform(14, 38) * 1e6)
        gen = rng.randint(90, 640)
        added = max(180, min(6000, int(rng.lognormvariate(7.5, 0.55))))
        if cached + added + gen - 1 >= SNAP_TOKENS - 2500:   # last turn lands exactly
            added = SNAP_TOKENS + 1 - gen - cached
        n_prompt = cached + added
        task = s.task_id(t, completions)
        s.request_in(t - 900, 4 * n_prompt + rng.randint(2000, 9000))
        s.say(t - 820, slt("get_availabl", -1, f"selected slot by LCP similarity, sim_best = "
                            f"{cached / n_prompt:.3f} (> 0.100 thold), f_keep = 1.000"))
        s.say(t - 640, slt("launch_slot_", task, "processing task"))
        s.say(t, slt("update_slots", task, f"new prompt, n_ctx_slot = 131072, n_keep = 0, "
                                            f"task.n_tokens = {n_prompt}"))
        s.say(t + 38, slt("update_slots", task, f"n_tokens = {cached}, memory_seq_rm [{cached}, end)"))
        ms_tok = PREFILL_MS / PROMPT_TOKENS * (1 + (cached - PROMPT_TOKENS) / 160000) * rng.uniform(0.98, 1.03)
        p_us = int(added * ms_tok * 1000)
        t_first = s.prefill(task, t, cached, added, p_us, False)
        rate = rng.uniform(0.55, 0.8)
        steps = max(1, round(gen / (1 + 4 * rate)))
        acc = gen - steps
        step_ms = DECODE_MS / (DECODE_TOKENS - DRAFT_ACCEPTED) * (1 + (cached - PROMPT_TOKENS) / 400000)
        e_us = int(steps * step_ms * rng.uniform(0.98, 1.02) * 1000)
        # coarse traffic of turns nobody sampled, so counters stay consistent between captures
        s.wire("server", rel(t), rel(t_first), added * H2W_PER_POS, 0)
        s.wire("claw", rel(t), rel(t_first), added * W2H_PER_POS, 0)
        s.wire("server", rel(t_first), rel(t_first + e_us), steps * 5 * H2W_PER_POS, 0)
        s.wire("claw", rel(t_first), rel(t_first + e_us), steps * 5 * W2H_PER_POS, 0)
        t_print = t_first + e_us + rng.randint(400, 900)
        s.timing(t_print, task, p_us / 1000, added, e_us / 1000, gen, acc, 4 * steps)
        cached = n_prompt + gen - 1
        t = s.finish(t_print + rng.randint(25, 60), task, cached)
        completions += 1
    assert cached == SNAP_TOKENS, cached
    info["big_release_us"] = t

    # ---- a different conversation arrives: the slot's 98,100 tokens go to the prompt cache
    w_start = t + 41_726_311
    t1 = w_start + int(SNAP_TOOK_MS * 1000)
    info["t1_us"] = t1
    state = state_size_bytes(SNAP_TOKENS)
    mib = state / 1048576
    est = max(131072, (8192 * 1048576) // (state // SNAP_TOKENS))
    s.request_in(w_start - 600, 7_912)
    s.say(w_start - 310, slt("get_availabl", -1, f"selected slot by LRU, t_last = {t - PROC_US - 212_004}"))
    s.say(w_start + 36, srv("get_availabl", "updating prompt cache"))
    s.say(w_start + 118, srv("prompt_save", f" - saving prompt with length {SNAP_TOKENS}, "
                                            f"total state size = {mib:.3f} MiB"))
    s.say(t1 - 1240, srv("load", " - looking for better prompt, base f_keep = 0.000, sim = 0.002"))
    s.say(t1 - 930, srv("update", f" - cache state: 1 prompts, {mib:.3f} MiB "
                                  f"(limits: 8192.000 MiB, 131072 tokens, {est} est)"))
    s.say(t1 - 905, srv("update", f"   - prompt 0x5b1c3e0a8f10: {SNAP_TOKENS:7d} tokens, "
                                  f"checkpoints: {0:2d}, {mib:9.3f} MiB"))
    s.say(t1, srv("get_availabl", f"prompt cache update took {SNAP_TOOK_MS:.2f} ms"))
    info["state_mib"] = mib
    task = s.task_id(t1, completions)
    new_prompt, gen = 1846, 187
    s.say(t1 + 61, slt("launch_slot_", task, "processing task"))
    s.say(t1 + 240, slt("update_slots", task, f"new prompt, n_ctx_slot = 131072, n_keep = 0, "
                                               f"task.n_tokens = {new_prompt}"))
    s.say(t1 + 281, slt("update_slots", task, "n_tokens = 0, memory_seq_rm [0, end)"))
    p_us = int(new_prompt * 2.1214 * 1000)
    t_first = s.prefill(task, t1 + 240, 0, new_prompt, p_us, True)
    steps = 52
    e_us = int(steps * 162.31 * 1000)
    s.decode(task, t_first, steps, gen - steps, e_us, True, until_rel=rel(t1) + 10)
    t_print = t_first + e_us + 588
    s.timing(t_print, task, p_us / 1000, new_prompt, e_us / 1000, gen, gen - steps, 4 * steps)
    s.finish(t_print + 41, task, new_prompt + gen - 1)
    info["w_snap_start_us"] = w_start
    info["task_after"] = task
    s.log.sort(key=lambda e: e[0])
    return s, info
