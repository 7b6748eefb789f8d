"""journalctl -o json parser: entries, byte-array messages, llama-server fields, bad lines."""
import json

import duckdb
import pandas as pd
import pytest

from pipeline.ingest.formats.journal import FORMAT, parse
from pipeline.ingest.runner import ensure_table

from parser_cases import assert_rejects
from paths import FIXTURES

FIX = FIXTURES / "journal"
GOOD = sorted((FIX / "good").glob("*.json"))
BAD = sorted((FIX / "bad").glob("*.json"))
LLAMA = FIX / "good" / "llama-server.json"

BAD_REASONS = {
    "empty.json": (1, "an empty file"),
    # a binary .journal file: magic LPKSHHRH, then non-UTF-8 bytes (0xd0 0xed is not UTF-8)
    "binary-journal.json": (1, "expected UTF-8 text (a llama-server log), found byte 0xd0"),
    "short-output.json": (1, "journalctl -o short output, which has no year and no time zone"),
    "json-seq.json": (1, "Expecting value at column 1"),       # RS-prefixed records
    "docker-json-file.json": (1, "a journal entry with __REALTIME_TIMESTAMP"),
}


def test_an_export_cut_mid_entry_keeps_its_complete_entries():
    # journalctl -o json copied while it ran: 3 whole entries, the 4th cut inside its object
    # (no newline): kept as a truncated line, none of its fields read
    rows = parse(FIX / "cut" / "cut-last-line.json")
    assert [r["source_line"] for r in rows] == [1, 2, 3, 4]
    assert all(r["realtime_us"] is not None and r["event"] != "truncated" for r in rows[:3])
    last = rows[3]
    assert last["event"] == "truncated" and last["realtime_us"] is None
    assert last["message"].startswith("{") and last["message"].endswith('"_COMM":"llama-server"')


def test_fixture_sets_are_complete():
    assert [p.name for p in GOOD] == ["llama-server.json", "systemd-237-style.json"]
    assert {p.name for p in BAD} == set(BAD_REASONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_fixtures_have_every_column(path):
    rows = parse(path)
    assert rows
    for row in rows:
        assert set(row) == set(FORMAT.columns) | {"source_line"}


def test_entry_columns():
    rows = parse(LLAMA)
    assert len(rows) == 24  # one per line of the fixture
    first = rows[0]
    assert (first["realtime_us"], first["hostname"], first["unit"], first["pid"]) == \
        (1786995727317094, "server", "init.scope", 1)
    assert first["event"] is None and first["source_line"] == 1
    # __REALTIME_TIMESTAMP is text in the export; 1786995727317094 + 812800 us for line 7
    assert rows[6]["realtime_us"] == 1786995728129894 and rows[6]["pid"] == 2291


def test_llama_server_events_in_order():
    events = [(r["source_line"], r["event"], r["slot_id"], r["task_id"], r["ms"], r["tokens"])
              for r in parse(LLAMA) if r["event"]]
    assert events == [
        (3, "cache_update_start", None, None, None, None),
        (4, "prompt_save", None, None, None, 2048),
        (5, "cache_state", None, None, None, None),
        (6, "cache_update_done", None, None, 812.5, None),
        (7, "launch", 0, 500, None, None),
        (8, "new_prompt", 0, 500, None, 600),
        (9, "prompt_progress", 0, 500, None, 256),
        (10, "prompt_progress", 0, 500, None, 512),
        (11, "prompt_done", 0, 500, None, 600),
        (12, "timing_header", 0, 500, None, None),
        (13, "timing_header", 1, 77, None, None),        # another unit's llama-server
        (14, "prompt_eval", 0, 500, 1200.0, 600),         # carried from line 12 (same _PID)
        (15, "prompt_eval", 1, 77, 100.0, 50),            # carried from line 13
        (16, "eval", 0, 500, 4250.0, 100),
        (17, "total", 0, 500, 5450.0, 700),               # 1200 + 4250 ms, 600 + 100 tokens
        (18, "draft_acceptance", 0, 500, None, None),
        (19, "release", 0, 500, None, 699),
        (24, "eval", None, None, 999.0, 10),              # a process that printed no header
    ]


def test_cache_and_draft_fields():
    rows = {r["source_line"]: r for r in parse(LLAMA)}
    assert rows[4]["state_mib"] == 96.125 and rows[5]["state_mib"] == 96.125
    assert (rows[18]["accepted"], rows[18]["generated"]) == (60, 80)


def test_byte_array_and_null_messages():
    rows = {r["source_line"]: r for r in parse(LLAMA)}
    # [13, 108, 111, …] = "\rload_tensors: 50% done": decoded, leading \r stripped
    assert rows[21]["message"] == "load_tensors: 50% done"
    # bytes 0xff 0xfe are not UTF-8: each becomes U+FFFD
    assert rows[22]["message"] == "rpc: peer sent \ufffd\ufffd bytes"
    assert rows[23]["message"] is None and rows[23]["event"] is None


def test_old_systemd_spacing_and_repeated_field():
    launch, health = parse(FIX / "good" / "systemd-237-style.json")
    assert (launch["event"], launch["task_id"]) == ("launch", 501)
    # MESSAGE given twice: a string and a byte array, joined by a newline
    assert health["message"] == "srv  log_server_r: request: GET /health 127.0.0.1 200\nsecond \x01value"


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixtures_name_file_line_and_reason(path):
    line, words = BAD_REASONS[path.name]
    assert_rejects(parse, path, line, words)


GOOD_LINE = (FIX / "good" / "llama-server.json").read_bytes().splitlines(keepends=True)[0]


@pytest.mark.parametrize("data, line, words", [
    (b"", 1, "an empty file"),
    (b"\n\n", 1, "an empty file"),
    (b"garbage\n", 1, "expected llama-server or rpc-server log lines"),   # text, but not a log
    (GOOD_LINE + b"\x00\x01\x02\n", 2, "Expecting value"),
    (GOOD_LINE + GOOD_LINE + b"\xc3\x28{}\n", 3, "byte 0xc3"),
    (b"[1, 2, 3]\n", 1, "found a JSON list"),
    (b'{"__REALTIME_TIMESTAMP": "soon", "MESSAGE": "x"}\n', 1, "__REALTIME_TIMESTAMP"),
])
def test_inline_bad_bytes(tmp_path, data, line, words):
    path = tmp_path / "inline.json"
    path.write_bytes(data)
    assert_rejects(parse, path, line, words)


@pytest.mark.parametrize("message, expected", [
    ([13, 13, 65], "\rA"),                 # only one leading \r is the terminal's
    ([300, 1], "[300, 1]"),                # not bytes: kept as the JSON text
    ([], ""),
    (12, "12"),
    ({"odd": True}, "{'odd': True}"),
])
def test_odd_message_values_never_crash(tmp_path, message, expected):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"__REALTIME_TIMESTAMP": "1", "_PID": "x", "MESSAGE": message}) + "\n")
    (row,) = parse(path)
    assert row["message"] == expected and row["pid"] is None and row["realtime_us"] == 1


def test_rows_fit_the_declared_table():
    con = duckdb.connect()
    ensure_table(con, FORMAT)
    con.register("incoming", pd.DataFrame(parse(LLAMA)))
    con.execute(f"insert into {FORMAT.table} by name select * from incoming")
    assert con.execute(f"select sum(ms) from {FORMAT.table} where event = 'prompt_eval'").fetchall() \
        == [(1300.0,)]  # 1200 + 100
