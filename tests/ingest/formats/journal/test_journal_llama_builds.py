"""llama-server logs as text, detected by content (pipeline/ingest/formats/journal.py): journalctl
short-iso (both offset styles), short-iso-precise with a continuation line, -o cat, a plain
stderr file with --log-timestamps/--log-prefix, docker logs --timestamps and rpc-server output.
The samples are written from the tools' format strings (systemd src/shared/logs-show.c
output_short / output_timestamp_realtime; llama.cpp common/log.cpp and tools/server)."""

import pytest

from pipeline.ingest.formats.journal import FORMAT, parse

from parser_cases import assert_rejects
from paths import FIXTURES

FIX = FIXTURES / "llama_logs"
# 2026-08-17T18:40:00+02:00 = 2026-08-17T16:40:00Z = 1786984800 s since the epoch
T0 = 1786984800


def _events(path):
    return [(r["event"], r["slot_id"], r["task_id"], r["ms"], r["tokens"]) for r in parse(path) if r["event"]]


@pytest.mark.parametrize("name", ["short-iso.log", "short-iso-old-offset.log"])
def test_short_iso_both_offsets(name):
    rows = parse(FIX / "good" / name)
    assert all(set(r) == set(FORMAT.columns) | {"source_line"} for r in rows)
    first = rows[0]                       # the "-- Boot … --" line is skipped
    assert (first["source_line"], first["realtime_us"], first["hostname"], first["unit"], first["pid"]) == \
        (2, T0 * 1_000_000, "server", "llama-server", 2291)
    events = _events(FIX / "good" / name)
    assert events[:3] == [("launch", 0, 7, None, None), ("new_prompt", 0, 7, None, 1000),
                          ("prompt_done", 0, 7, None, 1000)]
    # the unprefixed timing lines take the task of their header
    assert ("prompt_eval", 0, 7, 2000.0, 1000) in events and ("eval", 0, 7, 5000.0, 100) in events
    draft = next(r for r in rows if r["event"] == "draft_acceptance")
    assert (draft["task_id"], draft["accepted"], draft["generated"]) == (7, 60, 80)
    # journalctl could not show a line that was not printable: named, not decoded
    blob = next(r for r in rows if r["event"] == "unreadable")
    assert blob["message"] == "[131B blob data]" and blob["source_line"] == 10
    # 18:40:07+02:00 is 7 s after T0
    assert next(r for r in rows if r["event"] == "eval")["realtime_us"] == (T0 + 7) * 1_000_000


def test_short_iso_precise_and_a_continuation_line():
    rows = parse(FIX / "good" / "short-iso-precise.log")
    save = next(r for r in rows if r["event"] == "prompt_save")
    assert (save["tokens"], save["state_mib"]) == (98100, 3301.125)
    assert save["realtime_us"] == T0 * 1_000_000 + 251_000      # 16:40:00.251000+00:00
    done = next(r for r in rows if r["event"] == "cache_update_done")
    assert done["ms"] == 14418.0
    # the indented line is the next line of the print_timing entry: same time, same task
    cont = rows[-1]
    assert (cont["event"], cont["task_id"], cont["ms"], cont["realtime_us"]) == \
        ("prompt_eval", 9, 120.5, (T0 + 15) * 1_000_000)


def test_cat_output_with_the_current_wording():
    rows = parse(FIX / "good" / "cat.log")
    assert all(r["realtime_us"] is None and r["log_rel_s"] is None for r in rows)
    events = {r["event"]: r for r in rows}
    assert events["prompt_eval"]["tokens"] == 128 and events["graphs_reused"]["count"] == 39
    d = events["draft_acceptance"]
    assert (d["accepted"], d["generated"], d["mean_len"]) == (555, 810, 2.85)


def test_stderr_with_log_timestamps_keeps_the_offset():
    rows = parse(FIX / "good" / "stderr-timestamps.log")
    # "0.05.000.100": 0 min, 5 s, 0 ms, 100 us
    done = next(r for r in rows if r["event"] == "prompt_done")
    assert done["log_rel_s"] == pytest.approx(5.0001) and done["tokens"] == 512
    rpc = next(r for r in rows if r["event"] == "rpc_device")
    assert rpc["endpoint"] == "10.203.0.2:50052" and rpc["log_rel_s"] == pytest.approx(0.812001)
    assert rows[0]["event"] is None and rows[0]["message"].startswith("build: 11434")


def test_docker_timestamps():
    rows = parse(FIX / "good" / "docker.log")
    # 2026-05-16T22:30:42.866123456Z: nanoseconds cut to microseconds
    import datetime as dt
    t = int(dt.datetime(2026, 5, 16, 22, 30, 42, tzinfo=dt.timezone.utc).timestamp())
    assert rows[0]["realtime_us"] == t * 1_000_000 + 866_123 and rows[0]["tokens"] == 862


def test_rpc_server_log():
    assert [r["event"] for r in parse(FIX / "good" / "rpc-server.log")] == \
        [None, None, "rpc_accept", "rpc_close", "rpc_accept"]


@pytest.mark.parametrize("name, line, words", [
    ("short.log", 1, "journalctl -o short output, which has no year and no time zone"),
    ("not-a-log.txt", 1, "expected llama-server or rpc-server log lines"),
    ("broken-iso.log", 2, "expected journalctl -o short-iso lines"),
    ("latin1.log", 2, "found byte 0xd0"),
])
def test_bad_text_logs_name_file_and_line(name, line, words):
    assert_rejects(parse, FIX / "bad" / name, line, words)
