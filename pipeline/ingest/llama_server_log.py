"""Fields of llama-server log lines, by a hand parser (no library reads them).

llama-server logs through two prefixes (ggml-org/llama.cpp,
tools/server/server-common.h, formerly tools/server/utils.hpp)::

    #define SLT_INF(slot, fmt, ...) LOG_INF("slot %12.*s: id %2d | task %d | " fmt, 12, __func__, (slot).id, ((slot).task ? (slot).task->id : -1), __VA_ARGS__)
    #define SRV_INF(fmt, ...)       LOG_INF("srv  %12.*s: " fmt, 12, __func__, __VA_ARGS__)
    #define SLT_CNT(slot, fmt, ...) LOG_CNT(""                                 fmt, __VA_ARGS__)

``%12.*s`` right-aligns the function name in 12 columns and cuts it at 12
(``launch_slot_with_task`` -> ``launch_slot_``, ``get_available_slot`` ->
``get_availabl``). The messages read here (tools/server/server-context.cpp
unless noted)::

    launch_slot_with_task  SLT_INF(slot, "%s", "processing task\\n")                                -> launch
    update_slots           SLT_INF(slot, "new prompt, n_ctx_slot = %d, n_keep = %d, task.n_tokens = %d\\n")  -> new_prompt (tokens = task.n_tokens)
    update_slots           SLT_INF(slot, "prompt processing progress, n_tokens = %d, batch.n_tokens = %d, progress = %f\\n")  -> prompt_progress (tokens = n_tokens)
    update_slots           SLT_INF(slot, "prompt done, n_tokens = %d, batch.n_tokens = %d\\n")  -> prompt_done (tokens)
    print_timings          SLT_INF(*this, "\\n"
                               "prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\\n"
                               "       eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\\n"
                               "      total time = %10.2f ms / %5d tokens\\n", …)
                           -> timing_header (the prefix line, empty message), prompt_eval / eval / total (ms, tokens)
                           SLT_CNT(*this, "draft acceptance rate = %0.5f (%5d accepted / %5d generated)\\n")
                           -> draft_acceptance (accepted, generated)
    release                SLT_INF(*this, "stop processing: n_tokens = %d, truncated = %d\\n")  -> release (tokens)
    get_available_slot     SRV_WRN("%s", "updating prompt cache\\n")                              -> cache_update_start
    prompt_save            SRV_WRN(" - saving prompt with length %d, total state size = %.3f MiB\\n")  -> prompt_save (tokens, state_mib)
    update (server-task.cpp, server_prompt_cache::update)
                           SRV_WRN(" - cache state: %zu prompts, %.3f MiB (limits: %.3f MiB, %zu tokens, %zu est)\\n")  -> cache_state (state_mib)
    get_available_slot     SRV_WRN("prompt cache update took %.2f ms\\n")                       -> cache_update_done (ms)

journald stores one entry per output line, so the multi-line timing block
arrives as a header entry ``slot print_timing: id  0 | task 11924 | `` followed
by bare continuation lines. :class:`TimingContext` gives those lines the slot
and task of the latest ``print_timing`` line of the same process. Newer
llama.cpp prints each timing line with its own prefix; both shapes parse.
Every other line gets ``event`` NULL (and its slot/task if it has the prefix).
"""
from __future__ import annotations

import re

FIELDS = ("event", "slot_id", "task_id", "ms", "tokens", "accepted", "generated", "state_mib")

# common/log.cpp may put a timestamp and a level letter in front when
# --log-timestamps / --log-prefix are on: "0.12.345.678 I slot …".
_LOG_PREFIX = r"^(?:\d+\.\d+\.\d+\.\d+ )?(?:[IWEDT] )?"
# re.S: a native journal MESSAGE may hold newlines; the message must still match.
_SLOT = re.compile(_LOG_PREFIX + r"slot +(?P<func>\S{1,12}): id +(?P<slot>-?\d+) \| task (?P<task>-?\d+) \|(?: (?P<rest>.*))?$", re.S)
_SRV = re.compile(_LOG_PREFIX + r"srv +(?P<func>\S{1,12}): (?P<rest>.*)$", re.S)
_BARE = re.compile(_LOG_PREFIX + r"(?P<rest>.*)$", re.S)

_NUM = r"(-?\d+(?:\.\d+)?)"
_INT = r"(\d+)"

# (event, pattern, (field for group 1, field for group 2, …))
_SLOT_EVENTS = [
    ("launch", re.compile(r"processing task\b"), ()),
    ("new_prompt", re.compile(r"new prompt, .*\btask\.n_tokens = " + _INT), ("tokens",)),
    ("prompt_progress", re.compile(r"prompt processing progress, n_tokens = " + _INT), ("tokens",)),
    ("prompt_done", re.compile(r"prompt done, n_tokens = " + _INT), ("tokens",)),
    ("release", re.compile(r"stop processing: n_tokens = " + _INT), ("tokens",)),
]
_TIMING_EVENTS = [
    ("prompt_eval", re.compile(r"\s*prompt eval time = +" + _NUM + r" ms / +" + _INT + " tokens"), ("ms", "tokens")),
    ("eval", re.compile(r"\s*eval time = +" + _NUM + r" ms / +" + _INT + " tokens"), ("ms", "tokens")),
    ("total", re.compile(r"\s*total time = +" + _NUM + r" ms / +" + _INT + " tokens"), ("ms", "tokens")),
    ("draft_acceptance", re.compile(r"\s*draft acceptance rate = +" + _NUM + r" \( *" + _INT
                                    + r" accepted / +" + _INT + r" generated\)"),
     (None, "accepted", "generated")),
]
_SRV_EVENTS = [
    ("cache_update_start", re.compile(r"updating prompt cache\s*$"), ()),
    ("prompt_save", re.compile(r"\s*- saving prompt with length " + _INT
                               + r", total state size = " + _NUM + " MiB"), ("tokens", "state_mib")),
    ("cache_state", re.compile(r"\s*- cache state: \d+ prompts, " + _NUM + " MiB"), ("state_mib",)),
    ("cache_update_done", re.compile(r"prompt cache update took " + _NUM + " ms"), ("ms",)),
]
TIMING = {"prompt_eval", "eval", "total", "draft_acceptance"}
_INTEGER_FIELDS = {"slot_id", "task_id", "tokens", "accepted", "generated"}


def _empty() -> dict:
    return dict.fromkeys(FIELDS)


def _match(table, text: str, out: dict) -> bool:
    for event, pattern, names in table:
        m = pattern.match(text)
        if m:
            out["event"] = event
            for name, value in zip(names, m.groups()):
                if name:
                    out[name] = int(value) if name in _INTEGER_FIELDS else float(value)
            return True
    return False


def parse_message(message: str | None) -> dict:
    """The fields of one log line; every key of FIELDS, None where absent."""
    out = _empty()
    if not message:
        return out
    m = _SLOT.match(message)
    if m:
        out["slot_id"], out["task_id"] = int(m["slot"]), int(m["task"])
        rest = m["rest"] or ""
        if m["func"] == "print_timing" and not rest.strip():
            out["event"] = "timing_header"
        elif not _match(_SLOT_EVENTS, rest, out):
            _match(_TIMING_EVENTS, rest, out)
        return out
    m = _SRV.match(message)
    if m:
        _match(_SRV_EVENTS, m["rest"], out)
        return out
    _match(_TIMING_EVENTS, _BARE.match(message)["rest"], out)
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
