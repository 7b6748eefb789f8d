"""The Session: llama-server's log lines and the wire traffic (netdev flows) they imply."""
from __future__ import annotations

import math
import random

from .targets import (
    ACK_BYTES,
    ACK_RATIO,
    CLIENT_IP,
    H2W_PER_POS,
    MSS_FRAME,
    TASK_ID,
    UBATCH,
    W2H_PER_POS,
    rel,
)

SLT = "slot {fn:>12.12}: id {slot:2d} | task {task} | "
SRV = "srv  {fn:>12.12}: "


def slt(fn: str, task: int, msg: str) -> str:
    return SLT.format(fn=fn, slot=0, task=task) + msg


def srv(fn: str, msg: str) -> str:
    return SRV.format(fn=fn) + msg


class Session:
    """llama-server's log lines (journal) and the wire traffic they imply (netdev flows)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.log: list[tuple[int, str]] = []          # (realtime µs, MESSAGE)
        # flows[(host, iface, field)] -> list of (a_rel_s, b_rel_s, amount)
        self.flows: dict[tuple[str, str, str], list[tuple[float, float, float]]] = {}
        self.metrics_phase = 1.7  # a /metrics poll every 5 s also takes a task id

    def say(self, us: int, msg: str) -> None:
        self.log.append((us, msg))

    def flow(self, host, iface, direction, a, b, nbytes, npkts):
        self.flows.setdefault((host, iface, direction + "_bytes"), []).append((a, b, nbytes))
        self.flows.setdefault((host, iface, direction + "_packets"), []).append((a, b, npkts))

    def wire(self, sender: str, a: float, b: float, nbytes: int, acks: int) -> None:
        """Data sender->receiver over eno1 plus the receiver's ACK bytes, mirrored on both ends."""
        receiver = "claw" if sender == "server" else "server"
        pk = math.ceil(nbytes / MSS_FRAME)
        self.flow(sender, "eno1", "tx", a, b, nbytes, pk)
        self.flow(receiver, "eno1", "rx", a, b, nbytes, pk)
        if acks:
            ap = max(1, round(acks / ACK_BYTES))
            self.flow(receiver, "eno1", "tx", a, b, acks, ap)
            self.flow(sender, "eno1", "rx", a, b, acks, ap)

    def task_id(self, us: int, completions_before: int) -> int:
        return TASK_ID + math.floor((rel(us) + self.metrics_phase) / 5.0) + completions_before

    # ---------------------------------------------------------- prefill / decode
    def ubatch_pairs(self, n_tokens_new: int, per_pos: tuple[int, int], exact: bool):
        """Per-ubatch (positions, head->worker L2 bytes, worker->head L2 bytes)."""
        sizes = [UBATCH] * (n_tokens_new // UBATCH) + ([n_tokens_new % UBATCH] if n_tokens_new % UBATCH else [])
        xs = [p * per_pos[0] + round(self.rng.gauss(0, 900)) for p in sizes]
        ys = [p * per_pos[1] + round(self.rng.gauss(0, 900)) for p in sizes]
        if exact:  # totals exactly positions * bytes-per-position
            xs[len(xs) // 2] += n_tokens_new * per_pos[0] - sum(xs)
            ys[len(ys) // 2] += n_tokens_new * per_pos[1] - sum(ys)
        return list(zip(sizes, xs, ys))

    def prefill(self, task: int, start_us: int, n_cached: int, n_new: int, total_us: int,
                traffic: bool, exact: bool = False) -> int:
        """Log progress lines per ubatch; emit bursts. Returns first-token time (µs)."""
        rng = self.rng
        pairs = self.ubatch_pairs(n_new, (H2W_PER_POS, W2H_PER_POS), exact)
        n_prompt = n_cached + n_new
        body = total_us - 1100
        raw = [p * (1 + rng.gauss(0, 0.006)) for p, _, _ in pairs]
        durs = [round(body * r / sum(raw)) for r in raw]
        durs[-1] = body - sum(durs[:-1])
        u = start_us + 380
        done = n_cached
        for (p, x, y), d in zip(pairs, durs):
            done += p
            self.say(u + rng.randint(20, 60), slt("update_slots", task,
                     f"prompt processing progress, n_tokens = {done}, batch.n_tokens = {p}, "
                     f"progress = {done / n_prompt:f}"))
            if done == n_prompt:
                self.say(u + rng.randint(70, 110), slt("update_slots", task,
                         f"prompt done, n_tokens = {done}, batch.n_tokens = {p}"))
            if traffic:
                # solve data + ACK-of-the-other-direction = per-ubatch totals x (server tx), y (claw tx)
                a = ACK_RATIO
                dh = round((x - a * y) / (1 - a * a))
                dw = round((y - a * x) / (1 - a * a))
                ack_for_w, ack_for_h = x - dh, y - dw
                t = rel(u) + rng.uniform(0.004, 0.007)
                rh = rng.uniform(282e6, 298e6)
                self.wire("server", t, t + dh / rh, dh, ack_for_h)
                wire_h = dh / rh
                rw = rng.uniform(278e6, 296e6)
                compute = d / 1e6 - 0.007 - wire_h - dw / rw
                tw = t + wire_h + compute * rng.uniform(0.64, 0.70)
                self.wire("claw", tw, tw + dw / rw, dw, ack_for_w)
            u += d
        return start_us + total_us

    def decode(self, task: int, start_us: int, steps: int, accepted: int, total_us: int,
               traffic: bool, until_rel: float | None = None) -> None:
        rng = self.rng
        acc = [0] * steps
        for _ in range(accepted):  # spread accepted drafts over steps, at most 4 per step
            i = rng.randrange(steps)
            while acc[i] >= 4:
                i = rng.randrange(steps)
            acc[i] += 1
        step = total_us / steps
        x, y = 5 * H2W_PER_POS, 5 * W2H_PER_POS   # verify step = 1 + 4 draft positions
        for k in range(steps):
            t = rel(start_us) + (k * step + rng.uniform(300, 900)) / 1e6
            if until_rel is not None and t > until_rel:
                break
            if not traffic:
                continue
            self.wire("server", t, t + x / 250e6, x, 0)
            tw = t + step / 1e6 * rng.uniform(0.55, 0.62)
            self.wire("claw", tw, tw + y / 250e6, y, 0)
            # the tokens stream to the client as SSE chunks over the server's eno1
            sse = (acc[k] + 1) * rng.randint(180, 240)
            tc = tw + step / 1e6 * 0.3
            self.flow("server", "eno1", "tx", tc, tc, sse, acc[k] + 1)
            self.flow("server", "eno1", "rx", tc + 0.0004, tc + 0.0004, ACK_BYTES, 1)

    def timing(self, us: int, task: int, p_ms: float, p_tok: int, e_ms: float, e_tok: int,
               acc: int, gen: int) -> None:
        self.say(us, slt("print_timing", task, ""))
        self.say(us + 2, f"prompt eval time = {p_ms:10.2f} ms / {p_tok:5d} tokens "
                         f"({p_ms / p_tok:8.2f} ms per token, {p_tok / p_ms * 1e3:8.2f} tokens per second)")
        self.say(us + 3, f"       eval time = {e_ms:10.2f} ms / {e_tok:5d} tokens "
                         f"({e_ms / e_tok:8.2f} ms per token, {e_tok / e_ms * 1e3:8.2f} tokens per second)")
        self.say(us + 4, f"      total time = {p_ms + e_ms:10.2f} ms / {p_tok + e_tok:5d} tokens")
        self.say(us + 9, slt("print_timing", task, ""))
        self.say(us + 10, f"draft acceptance rate = {acc / gen:0.5f} ({acc:5d} accepted / {gen:5d} generated)")

    def finish(self, us: int, task: int, n_tokens: int) -> int:
        self.say(us, slt("release", task, f"stop processing: n_tokens = {n_tokens}, truncated = 0"))
        self.say(us + self.rng.randint(250, 600),
                 srv("log_server_r", f"done request: POST /v1/chat/completions {CLIENT_IP} 200"))
        self.say(us + self.rng.randint(700, 1200), srv("update_slots", "all slots are idle"))
        return us

    def request_in(self, us: int, nbytes: int) -> None:
        """The client's HTTP request body arriving on the server's eno1."""
        self.flow("server", "eno1", "rx", rel(us) - 0.004, rel(us) - 0.001, nbytes,
                  math.ceil(nbytes / MSS_FRAME))
        self.flow("server", "eno1", "tx", rel(us) - 0.003, rel(us) - 0.001,
                  ACK_BYTES * math.ceil(nbytes / MSS_FRAME / 2), math.ceil(nbytes / MSS_FRAME / 2))
