"""Fields of llama-server (and rpc-server) log lines, by a hand parser (no library reads them).

The format strings, from ggml-org/llama.cpp. Line prefixes (tools/server/server-common.h, earlier
tools/server/utils.hpp)::

    #define SLT_INF(slot, fmt, ...) LOG_INF("slot %12.*s: id %2d | task %d | " fmt, 12, __func__, (slot).id, …)
    #define SRV_INF(fmt, ...)       LOG_INF("srv  %12.*s: " fmt, 12, __func__, …)   (also _WRN, _TRC)
    #define SLT_CNT(slot, fmt, ...) LOG_CNT(""                                 fmt, …)
    #define SPC_TRC(fmt, ...)       LOG_TRC("spec %12.*s: " fmt, 12, __func__, …)     (common/speculative.cpp)

``%12.*s`` right-aligns the function name in 12 columns and cuts it at 12. common/log.cpp puts
``%d.%02d.%03d.%03d `` (minutes.seconds.ms.us since start, --log-timestamps) and a level letter
``I ``/``W ``/``E ``/``D `` (--log-prefix) in front; a process launcher may add ``[<pid>] ``.

The messages, in every wording they have had (tools/server/server-context.cpp unless noted;
``old`` = builds of 2024, ``mid`` = 2025, ``now`` = b11434, Oct 2026)::

    launch       "processing task\\n" / "processing task, is_child = %d\\n"
    new_prompt   old "new prompt, n_ctx_slot = %d, n_keep = %d, n_prompt_tokens = %d\\n"
                 mid/now "new prompt, n_ctx_slot = %d, n_keep = %d, task.n_tokens = %d\\n" (SLT_TRC now)
    prompt_progress old "prompt processing progress, n_past = %d, n_tokens = %d, progress = %f\\n"
                 mid "prompt processing progress, n_tokens = %d, batch.n_tokens = %d, progress = %f\\n"
    prompt_done  old "prompt done, n_past = %d, n_tokens = %d\\n"
                 mid "prompt done, n_tokens = %d, batch.n_tokens = %d\\n"
                 2026 "prompt processing done, n_tokens = %d, batch.n_tokens = %d\\n"
    release      old "stop processing: n_past = %d, truncated = %d\\n" / now "… n_tokens = %d …"
    timing block old: one SLT_INF "\\n" + three lines, so a header "slot print_timing: id N | task T | "
                 and unprefixed lines; now: one SLT_INF per line:
                 "prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\\n"
                 "       eval time = %10.2f ms / %5d tokens (…)\\n"
                 "      total time = %10.2f ms / %5d tokens\\n"
                 "   graphs reused = %10d\\n"                                                (now)
    draft_acceptance old SLT_CNT "draft acceptance rate = %0.5f (%5d accepted / %5d generated)\\n"
                 now SLT_INF "draft acceptance = %0.5f (%5d accepted / %5d generated), mean len = %5.2f\\n"
    spec_statistics common/speculative.cpp "statistics %s: #calls(b,g,a) = %zu %zu %zu, #gen drafts = %zu,
                 #acc drafts = %zu, #gen tokens = %zu, #acc tokens = %zu…" (now "%16s … %4zu %6zu %6zu …", SPC_TRC)
    prompt cache (SRV_WRN in 2025, SRV_TRC now, so absent at the default verbosity):
      cache_update_start "updating prompt cache\\n"
      prompt_save  " - saving prompt with length %d, total state size = %.3f MiB\\n" (now "… (draft: %.3f MiB)")
      cache_state  " - cache state: %zu prompts, %.3f MiB (limits: …)\\n"  (tools/server/server-task.cpp)
      cache_update_done "prompt cache update took %.2f ms\\n"
    rpc_device   src/llama.cpp: "%s: using device %s (%s) (%s) - %zu MiB free\\n" with the RPC device name
                 "RPC%d[<host>:<port>]" (ggml/src/ggml-rpc/ggml-rpc.cpp; "RPC[<endpoint>]" in older builds)
    rpc_accept / rpc_close  rpc-server: "Accepted client connection\\n" / "Client connection closed\\n"

:class:`TimingContext` gives unprefixed timing lines the slot and task of the latest
``print_timing`` line of the same stream. Every other line gets ``event`` NULL (and its slot and
task if it has the slot prefix).
"""
from __future__ import annotations

import re

FIELDS = ("event", "slot_id", "task_id", "ms", "tokens", "accepted", "generated", "state_mib",
          "mean_len", "count", "spec_type", "endpoint")

# Optional "[pid] ", then "MM.SS.mmm.uuu ", then a level letter, as common/log.cpp prints them.
_LOG_PREFIX = r"^(?:\[\d+\] )?(?:(?P<lm>\d+)\.(?P<ls>\d{2})\.(?P<lms>\d{3})\.(?P<lus>\d{3}) )?(?:[IWEDT] )?"
_PREFIX = re.compile(_LOG_PREFIX)
# re.S: a native journal MESSAGE may hold newlines; the message must still match.
_SLOT = re.compile(r"slot +(?P<func>\S{1,12}): id +(?P<slot>-?\d+) \| task (?P<task>-?\d+) \|(?: (?P<rest>.*))?$", re.S)
_SRV = re.compile(r"srv +(?P<func>\S{1,12}): (?P<rest>.*)$", re.S)

_NUM = r"(-?\d+(?:\.\d+)?)"
_INT = r"(\d+)"

# (event, pattern, (field for group 1, field for group 2, …)); searched within the message
_SLOT_EVENTS = [
    ("launch", re.compile(r"processing task\b"), ()),
    ("new_prompt", re.compile(r"new prompt, .*\b(?:task\.n_tokens|n_prompt_tokens) = " + _INT), ("tokens",)),
    ("prompt_progress", re.compile(r"prompt processing progress, (?:n_past = " + _INT + r", )?n_tokens = " + _INT),
     ("tokens", "tokens_if_no_past")),
    ("prompt_done", re.compile(r"prompt (?:processing )?done, (?:n_past = " + _INT + r", )?n_tokens = " + _INT),
     ("tokens", "tokens_if_no_past")),
    ("release", re.compile(r"stop processing: (?:n_past|n_tokens) = " + _INT), ("tokens",)),
]
_TIMING_EVENTS = [
    ("prompt_eval", re.compile(r"\s*prompt eval time = +" + _NUM + r" ms / +" + _INT + " tokens"), ("ms", "tokens")),
    ("eval", re.compile(r"\s*eval time = +" + _NUM + r" ms / +" + _INT + " tokens"), ("ms", "tokens")),
    ("total", re.compile(r"\s*total time = +" + _NUM + r" ms / +" + _INT + " tokens"), ("ms", "tokens")),
    ("graphs_reused", re.compile(r"\s*graphs reused = +" + _INT), ("count",)),
    ("draft_acceptance", re.compile(r"\s*draft acceptance(?: rate)? = +" + _NUM + r" \( *" + _INT
                                    + r" accepted / +" + _INT + r" generated\)(?:, mean len = +" + _NUM + ")?"),
     (None, "accepted", "generated", "mean_len")),
]
_SRV_EVENTS = [
    ("cache_update_start", re.compile(r"updating prompt cache\s*$"), ()),
    ("prompt_save", re.compile(r"\s*- saving prompt with length " + _INT
                               + r", total state size = " + _NUM + " MiB"), ("tokens", "state_mib")),
    ("cache_state", re.compile(r"\s*- cache state: \d+ prompts, " + _NUM + " MiB"), ("state_mib",)),
    ("cache_update_done", re.compile(r"prompt cache update took " + _NUM + " ms"), ("ms",)),
]
_ANYWHERE = [
    ("spec_statistics", re.compile(
        r"statistics\s+(\S+): #calls\(b,g,a\) = +\d+ +\d+ +(\d+), #gen drafts = +\d+, "
        r"#acc drafts = +\d+, #gen tokens = +(\d+), #acc tokens = +(\d+)"),
     ("spec_type", "count", "generated", "accepted")),
    ("rpc_device", re.compile(r"using device (RPC\d*\[([^\]]+)\])"), (None, "endpoint")),
    ("rpc_accept", re.compile(r"^Accepted client connection\s*$"), ()),
    ("rpc_close", re.compile(r"^Client connection closed\s*$"), ()),
]
TIMING = {"prompt_eval", "eval", "total", "graphs_reused", "draft_acceptance"}
_INTEGER_FIELDS = {"slot_id", "task_id", "tokens", "accepted", "generated", "count"}
_TEXT_FIELDS = {"spec_type", "endpoint"}


def _empty() -> dict:
    return dict.fromkeys(FIELDS)


def _match(table, text: str, out: dict, search: bool = False) -> bool:
    for event, pattern, names in table:
        m = pattern.search(text) if search else pattern.match(text)
        if m:
            out["event"] = event
            for name, value in zip(names, m.groups()):
                if name == "tokens_if_no_past":
                    if out["tokens"] is None and value is not None:
                        out["tokens"] = int(value)
                elif name and value is not None:
                    out[name] = (value if name in _TEXT_FIELDS
                                 else int(value) if name in _INTEGER_FIELDS else float(value))
            return True
    return False


def split_prefix(message: str) -> tuple[str, float | None]:
    """The message without common/log.cpp's prefixes, and the --log-timestamps offset (s)."""
    m = _PREFIX.match(message)
    rel = None
    if m and m["lm"] is not None:
        rel = int(m["lm"]) * 60 + int(m["ls"]) + int(m["lms"]) / 1e3 + int(m["lus"]) / 1e6
    return message[m.end():] if m else message, rel


def parse_message(message: str | None) -> dict:
    """The fields of one log line; every key of FIELDS, None where absent."""
    out = _empty()
    if not message:
        return out
    text, _ = split_prefix(message)
    m = _SLOT.match(text)
    if m:
        out["slot_id"], out["task_id"] = int(m["slot"]), int(m["task"])
        rest = m["rest"] or ""
        if m["func"] == "print_timing" and not rest.strip():
            out["event"] = "timing_header"
        elif not _match(_SLOT_EVENTS, rest, out):
            _match(_TIMING_EVENTS, rest, out)
        return out
    m = _SRV.match(text)
    if m:
        if not _match(_SRV_EVENTS, m["rest"], out):
            _match(_ANYWHERE, m["rest"], out, search=True)
        return out
    if not _match(_TIMING_EVENTS, text, out):
        _match(_ANYWHERE, text, out, search=True)
    return out


class TimingContext:
    """Slot and task for bare timing lines, per stream (process/unit)."""

    def __init__(self) -> None:
        self._latest: dict[object, tuple[int, int]] = {}

    def parse(self, stream: object, message: str | None) -> dict:
        out = parse_message(message)
        if out["event"] == "timing_header" or (out["event"] in TIMING and out["slot_id"] is not None):
            self._latest[stream] = (out["slot_id"], out["task_id"])
        elif out["event"] in TIMING:  # a bare continuation line
            out["slot_id"], out["task_id"] = self._latest.get(stream, (None, None))
        return out
