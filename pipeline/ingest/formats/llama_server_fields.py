"""Fields of llama-server (and rpc-server) log lines, by a hand parser (no library reads them).

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "llama_server_fields".
"""
from __future__ import annotations

import re

FIELDS = ("event", "slot_id", "task_id", "ms", "tokens", "accepted", "generated", "state_mib",
          "mean_len", "count", "drafts", "spec_type", "endpoint")

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
    ("prompt_progress", re.compile(r"prompt processing(?: progress)?, (?:n_past = " + _INT
                                   + r", )?n_tokens = +" + _INT + r", (?:batch\.n_tokens|progress) = "),
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
        r"statistics\s+(\S+): #calls\(b,g,a\) = +\d+ +\d+ +(\d+), #gen drafts = +(\d+), "
        r"#acc drafts = +\d+, #gen tokens = +(\d+), #acc tokens = +(\d+)"),
     ("spec_type", "count", "drafts", "generated", "accepted")),
    # "RPC0[host:port]" as the name, or (b11434) "RPC0" with the endpoint as its description
    ("rpc_device", re.compile(r"using device (RPC\d*)(?:\[([^\]]+)\]| \(([^)\[]+)\))"),
     (None, "endpoint", "endpoint")),
    ("rpc_accept", re.compile(r"^Accepted client connection\s*$"), ()),
    ("rpc_close", re.compile(r"^Client connection closed\s*$"), ()),
]
TIMING = {"prompt_eval", "eval", "total", "graphs_reused", "draft_acceptance"}
_INTEGER_FIELDS = {"slot_id", "task_id", "tokens", "accepted", "generated", "count", "drafts"}
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
