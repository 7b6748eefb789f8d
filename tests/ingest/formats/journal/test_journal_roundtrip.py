"""Property-based round trips for llama-server logs: a server's life printed from random values
through llama.cpp's own format strings, in each era's wording (2024, 2025, Oct 2026), with and
without common/log.cpp's ``--log-timestamps``/``--log-prefix`` prefix, parses back to exactly
those values; a log cut anywhere keeps every complete line and marks the cut one, never reading a
wrong number out of it; undecodable bytes name their line.

Format strings (ggml-org/llama.cpp; see pipeline/ingest/formats/llama_server_fields.py for where each is):
``slot %12.*s: id %2d | task %d | `` + message (SLT_*), ``srv  %12.*s: `` (SRV_*), bare lines
(SLT_CNT and the 2024 timing block after its ``print_timing`` header), and common/log.cpp's
``%d.%02d.%03d.%03d `` (minutes, seconds, ms, us since start) plus a level letter ``I ``.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import journal
from pipeline.ingest.formats.llama_server_fields import FIELDS

from parser_cases import assert_named

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
ERAS = ("2024", "2025", "2026")


def _func(name: str) -> str:
    return "%12.*s" % (12, name)        # right-aligned in 12 columns, cut at 12


def _slot(func: str, slot: int, task: int, message: str) -> str:
    return "slot %s: id %2d | task %d | %s" % (_func(func), slot, task, message)


def _srv(func: str, message: str) -> str:
    return "srv  %s: %s" % (_func(func), message)


def _expect(**fields) -> dict:
    return {**dict.fromkeys(FIELDS), **fields}


ms = st.integers(0, 10**9).map(lambda c: c / 100)          # printed %10.2f
tokens = st.integers(0, 10**6)


@st.composite
def task_lines(draw, era: str, slot: int, task: int):
    """(line without log prefix, expected fields) for one task, in the era's wording."""
    out = []
    here = dict(slot_id=slot, task_id=task)
    out.append((_slot("launch_slot_with_task", slot, task,
                      "processing task" + (", is_child = 0" if era == "2026" else "")),
                _expect(event="launch", **here)))
    n_prompt = draw(tokens)
    name = "n_prompt_tokens" if era == "2024" else "task.n_tokens"
    out.append((_slot("update_slots", slot, task, f"new prompt, n_ctx_slot = {draw(tokens)}, "
                      f"n_keep = 0, {name} = {n_prompt}"), _expect(event="new_prompt", tokens=n_prompt, **here)))
    for done in draw(st.lists(tokens, max_size=3)):
        batch, progress = draw(tokens), draw(st.floats(0, 1))
        message = (f"prompt processing progress, n_past = {done}, n_tokens = {batch}, progress = {progress:f}"
                   if era == "2024" else
                   f"prompt processing progress, n_tokens = {done}, batch.n_tokens = {batch}, "
                   f"progress = {progress:f}")
        out.append((_slot("update_slots", slot, task, message),
                    _expect(event="prompt_progress", tokens=done, **here)))
    done, batch = draw(tokens), draw(tokens)
    message = {"2024": f"prompt done, n_past = {done}, n_tokens = {batch}",
               "2025": f"prompt done, n_tokens = {done}, batch.n_tokens = {batch}",
               "2026": f"prompt processing done, n_tokens = {done}, batch.n_tokens = {batch}"}[era]
    out.append((_slot("update_slots", slot, task, message), _expect(event="prompt_done", tokens=done, **here)))
    (p_ms, p_n), (e_ms, e_n), t_ms = (draw(ms), draw(tokens)), (draw(ms), draw(tokens)), draw(ms)
    timing = [
        ("prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)"
         % (p_ms, p_n, p_ms / max(p_n, 1), 1e3 * p_n / max(p_ms, 0.01)),
         _expect(event="prompt_eval", ms=p_ms, tokens=p_n, **here)),
        ("       eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)"
         % (e_ms, e_n, e_ms / max(e_n, 1), 1e3 * e_n / max(e_ms, 0.01)),
         _expect(event="eval", ms=e_ms, tokens=e_n, **here)),
        ("      total time = %10.2f ms / %5d tokens" % (t_ms, p_n + e_n),
         _expect(event="total", ms=t_ms, tokens=p_n + e_n, **here)),
    ]
    if era == "2024":                   # one SLT_INF "\n" + three bare lines
        out.append((_slot("print_timing", slot, task, ""), _expect(event="timing_header", **here)))
        out.extend(timing)
    else:
        reused = draw(tokens)
        timing.append(("   graphs reused = %10d" % reused, _expect(event="graphs_reused", count=reused, **here)))
        out.extend((_slot("print_timing", slot, task, line), fields) for line, fields in timing)
    if draw(st.booleans()):             # speculative decoding
        accepted, generated = draw(tokens), draw(tokens)
        rate = accepted / generated if generated else 0.0
        if era == "2024":               # SLT_CNT: a bare line after the block
            out.append(("draft acceptance rate = %0.5f (%5d accepted / %5d generated)" % (rate, accepted, generated),
                        _expect(event="draft_acceptance", accepted=accepted, generated=generated, **here)))
        else:
            mean = draw(st.integers(0, 99999)) / 100
            out.append((_slot("print_timing", slot, task, "draft acceptance = %0.5f (%5d accepted / %5d "
                              "generated), mean len = %5.2f" % (rate, accepted, generated, mean)),
                        _expect(event="draft_acceptance", accepted=accepted, generated=generated,
                                mean_len=mean, **here)))
    if era != "2024" and draw(st.booleans()):   # the prompt cache (SRV_WRN in 2025, SRV_TRC now)
        length, mib, took = draw(tokens), draw(st.integers(0, 10**8)) / 1000, draw(ms)
        out += [(_srv("update", "updating prompt cache"), _expect(event="cache_update_start")),
                (_srv("update", " - saving prompt with length %d, total state size = %.3f MiB" % (length, mib)),
                 _expect(event="prompt_save", tokens=length, state_mib=mib)),
                (_srv("update", " - cache state: 1 prompts, %.3f MiB (limits: 8192.000 MiB)" % mib),
                 _expect(event="cache_state", state_mib=mib)),
                (_srv("update_slots", "prompt cache update took %.2f ms" % took),
                 _expect(event="cache_update_done", ms=took))]
    n_past = draw(tokens)
    name = "n_past" if era == "2024" else "n_tokens"
    out.append((_slot("release", slot, task, f"stop processing: {name} = {n_past}, truncated = 0"),
                _expect(event="release", tokens=n_past, **here)))
    return out


@st.composite
def server_logs(draw, relative_stamps: bool = True):
    """(the log's text, the fields each of its lines must parse to, incl. log_rel_s)."""
    era = draw(st.sampled_from(ERAS))
    stamps = relative_stamps and draw(st.booleans())
    port = draw(st.integers(1, 65535))
    endpoint = f"10.0.{draw(st.integers(0, 255))}.{draw(st.integers(1, 254))}:{port}"
    # the device's name and description: RPC[ep] / RPC0[ep] twice; since b11434 RPC0 and ep
    name, desc = {"2024": (f"RPC[{endpoint}]",) * 2, "2025": (f"RPC0[{endpoint}]",) * 2,
                  "2026": ("RPC0", endpoint)}[era]
    lines = [("main: HTTP server is listening, hostname: 127.0.0.1, port: 8080", _expect()),
             ("llama_model_load_from_file_impl: using device %s (%s) (unknown id) - %d MiB free"
              % (name, desc, draw(st.integers(0, 10**6))), _expect(event="rpc_device", endpoint=endpoint))]
    for task in draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=3, unique=True)):
        lines += draw(task_lines(era, draw(st.integers(0, 3)), task))
    text, expected = [], []
    t_us = 0
    for i, (line, fields) in enumerate(lines):
        rel = None
        # a bare line after a print_timing header (2024) is part of that one message: no prefix
        bare_block = era == "2024" and not line.startswith(("slot ", "srv ", "main:", "llama_"))
        if stamps and not bare_block:
            t_us += draw(st.integers(0, 10**8))
            rel = t_us / 1e6
            line = "%d.%02d.%03d.%03d I %s" % (t_us // 60_000_000, t_us // 1_000_000 % 60,
                                                t_us // 1000 % 1000, t_us % 1000, line)
        text.append(line + "\n")
        expected.append({**fields, "log_rel_s": None if rel is None else pytest.approx(rel, abs=1e-9),
                         "source_line": i + 1})
    return "".join(text), expected


def _write(tmp_path: Path, data) -> Path:
    path = tmp_path / "server.log"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _fields(rows):
    keys = (*FIELDS, "log_rel_s", "source_line")
    return [{k: row[k] for k in keys} for row in rows]


@SETTINGS
@given(server_logs())
def test_llama_server_log_parses_back_every_era(tmp_path, log):
    text, expected = log
    assert _fields(journal.parse(_write(tmp_path, text))) == expected


@SETTINGS
@given(server_logs(), st.integers(0, 10**9))
# found by mutmut's clean run: a cut inside the leading blanks of a 2024 bare timing line
@example(log=("slot print_timing: id  0 | task 1 | \n       eval time =       1.00 ms /     1 tokens\n",
              [{**_expect(event="timing_header", slot_id=0, task_id=1), "log_rel_s": None, "source_line": 1},
               {**_expect(event="eval", slot_id=0, task_id=1, ms=1.0, tokens=1), "log_rel_s": None,
                "source_line": 2}]), where=40)
def test_a_log_cut_anywhere_keeps_its_complete_lines_and_marks_the_cut_one(tmp_path, log, where):
    text, expected = log
    data = text.encode()
    cut = data[: where % len(data)]
    complete = cut.count(b"\n")
    try:
        rows = journal.parse(_write(tmp_path, cut))
    except ParseError as exc:           # nothing llama-server wrote was left
        assert_named(exc, tmp_path / "server.log")
        assert complete <= 1
        return
    assert _fields(rows[:complete]) == expected[:complete]
    if not cut.rsplit(b"\n", 1)[-1].strip():     # cut at a line's end, or in its leading blanks
        assert len(rows) == complete
    else:                               # the cut line is kept, and none of its numbers read
        (last,) = rows[complete:]
        assert last["event"] == "truncated" and last["source_line"] == complete + 1
        assert all(last[k] is None for k in FIELDS if k != "event") and last["log_rel_s"] is None


@SETTINGS
@given(server_logs(), st.sampled_from([b"\xff", b"\xc3(", b"\x80", b"\xed\xa0\x80"]), st.integers(0, 10**6))
def test_llama_server_log_undecodable_bytes_name_their_line(tmp_path, log, junk, at):
    text, _ = log
    lines = text.encode().splitlines(keepends=True)
    at = 1 + at % len(lines)
    lines[at - 1] = lines[at - 1][:5] + junk + lines[at - 1][5:]
    with pytest.raises(ParseError) as info:
        journal.parse(_write(tmp_path, b"".join(lines)))
    assert_named(info.value, tmp_path / "server.log")
    assert info.value.line == at and "UTF-8" in str(info.value)


# --- the same lines as journalctl -o short-iso[-precise] and docker logs --timestamps print them
# systemd src/shared/logs-show.c: strftime "%Y-%m-%dT%H:%M:%S", ".%06u" for -precise, then the
# zone "%+03d:%02d" (v250+) or strftime's "%z" ("+0200", before); " <host> <identifier>[<pid>]: ".
# docker: RFC 3339 UTC with nanoseconds, "2026-08-17T16:40:00.123456789Z <message>".

@st.composite
def stamped_logs(draw):
    import datetime as dt
    shape = draw(st.sampled_from(["short-iso", "short-iso-precise", "short-iso-old-offset", "docker"]))
    text, expected = draw(server_logs(relative_stamps=False))
    minutes = 0 if shape == "docker" else draw(st.integers(-12 * 60, 14 * 60).map(lambda m: m - m % 15))
    zone = dt.timezone(dt.timedelta(minutes=minutes))
    t_us = draw(st.integers(10**15, 2 * 10**15))
    pid = draw(st.integers(1, 2**22))
    out, want = [], []
    for line, fields in zip(text.splitlines(), expected):
        t_us += draw(st.integers(0, 10**7))
        if shape != "short-iso-precise" and shape != "docker":
            t_us -= t_us % 1_000_000                         # whole seconds only
        local = dt.datetime.fromtimestamp(t_us // 1_000_000, zone)
        stamp = local.strftime("%Y-%m-%dT%H:%M:%S")
        sign, off = ("-" if minutes < 0 else "+"), abs(minutes)
        if shape == "docker":
            out.append(f"{stamp}.{t_us % 1_000_000:06d}{draw(st.integers(0, 999)):03d}Z {line}")
            host = unit = who = None
        else:
            frac = f".{t_us % 1_000_000:06d}" if shape == "short-iso-precise" else ""
            zone_text = (f"{sign}{off // 60:02d}{off % 60:02d}" if shape == "short-iso-old-offset"
                         else f"{sign}{off // 60:02d}:{off % 60:02d}")
            out.append(f"{stamp}{frac}{zone_text} server llama-server[{pid}]: {line}")
            host, unit, who = "server", "llama-server", pid
        want.append({**fields, "realtime_us": t_us, "hostname": host, "unit": unit, "pid": who})
    return shape, "\n".join(out) + "\n", want


@SETTINGS
@given(stamped_logs())
def test_journal_and_docker_timestamps_parse_back(tmp_path, log):
    shape, text, expected = log
    rows = journal.parse(_write(tmp_path, text))
    keys = (*FIELDS, "realtime_us", "hostname", "unit", "pid", "source_line")
    assert [{k: r[k] for k in keys} for r in rows] == [{k: e[k] for k in keys} for e in expected], shape
