"""pipeline/ingest/formats/journal.py, rule by rule: each refusal word for word (file, line, expected,
found), and the details a reader relies on: a cut last line kept as text with no field read, a
complete JSON object without its newline read, blank lines and journalctl's own marks inside a
file skipped, the time zone of each export, message text kept exactly. Lines are written in the
shapes journalctl (logs-show.c), docker and llama-server print."""
from __future__ import annotations

import json
import time

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.journal import parse

LAUNCH = "slot launch_slot_: id  0 | task 5 | processing task"      # a line llama-server prints
ISO = "2026-08-17T18:40:00.123456+02:00 frank llama-server[4242]: "
DOCKER = "2026-08-17T16:40:00.5Z "


def _write(tmp_path, data: bytes | str):
    path = tmp_path / "run.log"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _refusal(tmp_path, data) -> str:
    path = _write(tmp_path, data)
    with pytest.raises(ParseError) as info:
        parse(path)
    return str(info.value).replace(str(path), "run.log")


def _entry(**fields) -> str:
    return json.dumps({"__REALTIME_TIMESTAMP": "1755448800123456", "_PID": "4242",
                       "_SYSTEMD_UNIT": "llama.service", "MESSAGE": LAUNCH, **fields})


LONG = "y" * 80


@pytest.mark.parametrize("data, message", [
    (f"{LAUNCH}\nsrv  ok \xff?\n".encode("latin-1"),
     "run.log:2: expected UTF-8 text (a llama-server log), found byte 0xff at column 9"),
    (f"{_entry()}\n".encode() + b'{"MESSAGE": "\xfe"}\n',
     "run.log:2: expected UTF-8 JSON (journalctl -o json), found byte 0xfe at column 14"),
    (f'{_entry()}\n{{"MESSAGE": {LONG}\n',
     "run.log:2: expected one JSON object per line (journalctl -o json), found Expecting value "
     f"at column 13 in {('{' + chr(34) + 'MESSAGE' + chr(34) + ': ' + LONG)[:60]!r}"),
    ("[1, 2]\n", "run.log:1: expected a JSON object (journalctl -o json), found a JSON list"),
    ('{"MESSAGE": "x"}\n',
     "run.log:1: expected a journal entry with __REALTIME_TIMESTAMP, found an object without it"),
    (f"Aug 17 18:40:00 frank llama-server[4242]: {LAUNCH}\n",
     "run.log:1: expected a journal export with dates (journalctl -o json or -o short-iso), found "
     "journalctl -o short output, which has no year and no time zone"),
    (f"{ISO}{LAUNCH}\nnot a journal line {LONG}\n",
     "run.log:2: expected journalctl -o short-iso lines ('<time> <host> <identifier>[<pid>]: "
     f"<message>'), found {('not a journal line ' + LONG)[:60]!r}"),
    (f"{DOCKER}{LAUNCH}\nnot docker {LONG}\n",
     "run.log:2: expected docker logs --timestamps lines ('<RFC 3339 time>Z <message>'), found "
     f"{('not docker ' + LONG)[:60]!r}"),
    ("\n\n", "run.log:1: expected llama-server log lines, found an empty file"),
    (f"hello {LONG}\nworld\n",
     "run.log:1: expected llama-server or rpc-server log lines (slot …, srv …, timings), found "
     f"none in 2 line(s), the first {('hello ' + LONG)[:60]!r}"),
], ids=["text-not-utf8", "json-not-utf8", "json-broken", "json-list", "json-no-time", "short",
        "iso-foreign-line", "docker-foreign-line", "empty", "no-llama-line"])
def test_each_refusal_says_where_and_what(tmp_path, data, message):
    assert _refusal(tmp_path, data) == message


def test_a_cut_last_line_is_kept_as_text_with_nothing_read(tmp_path):
    rows = parse(_write(tmp_path, f"{LAUNCH}\n".encode() + b"slot launch_slot_: id  1 | task 9\xff\r"))
    cut = rows[-1]
    assert cut["event"] == "truncated" and cut["source_line"] == 2
    # its text decoded with replacement, the trailing carriage return dropped, no field read
    assert cut["message"] == "slot launch_slot_: id  1 | task 9\ufffd"
    assert {k: cut[k] for k in ("realtime_us", "hostname", "unit", "pid", "slot_id", "task_id")} == \
        dict.fromkeys(("realtime_us", "hostname", "unit", "pid", "slot_id", "task_id"))


def test_a_complete_json_object_without_its_newline_is_read(tmp_path):
    rows = parse(_write(tmp_path, f"{_entry()}\n{_entry(MESSAGE='srv  last')}"))
    assert [r["event"] for r in rows] == ["launch", None] and rows[1]["message"] == "srv  last"
    assert rows[1]["pid"] == 4242 and rows[1]["unit"] == "llama.service"


def test_a_json_entry_without_a_message_has_no_log_time(tmp_path):
    rows = parse(_write(tmp_path, f"{_entry()}\n" + json.dumps({"__REALTIME_TIMESTAMP": "1"}) + "\n"))
    assert rows[1]["message"] is None and rows[1]["log_rel_s"] is None


def test_blank_lines_and_journal_marks_inside_a_file_are_skipped_not_the_end(tmp_path):
    text = (f"{ISO}{LAUNCH}\n\n-- Boot 0123456789abcdef --\n"
            f"{ISO}slot launch_slot_: id  1 | task 6 | processing task\n")
    rows = parse(_write(tmp_path, text))
    assert [(r["source_line"], r["task_id"]) for r in rows] == [(1, 5), (4, 6)]


def test_short_iso_fields_and_the_offset(tmp_path):
    text = f"{ISO}\r{LAUNCH}\n2026-08-17T18:40:01+0200 frank kernel: srv  note X  \n"
    rows = parse(_write(tmp_path, text))
    # 18:40:00.123456 at +02:00 is 2026-08-17 16:40:00.123456 UTC = 1,786,984,800.123456 s
    # since the epoch (20,682 days x 86,400 s + 16 h 40 min)
    assert rows[0]["realtime_us"] == 1786984800123456
    assert (rows[0]["hostname"], rows[0]["unit"], rows[0]["pid"]) == ("frank", "llama-server", 4242)
    assert rows[0]["message"] == LAUNCH                     # the leading \r of a progress line
    # systemd before v250 wrote +0200; no [pid]: none; the message kept exactly, trailing
    # spaces and letters included
    assert rows[1]["realtime_us"] == 1786984801000000 and rows[1]["pid"] is None
    assert rows[1]["message"] == "srv  note X  "


def test_docker_times_are_utc_whatever_the_machine_zone(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        rows = parse(_write(tmp_path, f"{DOCKER}{LAUNCH}\n"))
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    # 16:40:00.5 UTC: .5 is 500,000 us
    assert rows[0]["realtime_us"] == 1786984800500000 and rows[0]["message"] == LAUNCH


def test_plain_text_keeps_each_message_exactly(tmp_path):
    rows = parse(_write(tmp_path, f"{LAUNCH}\nsrv  ends with X  \r\n"))
    assert rows[1]["message"] == "srv  ends with X  " and rows[1]["realtime_us"] is None


def test_a_cut_line_loses_only_its_carriage_return(tmp_path):
    for cut, text in ((b"srv  cut X  \r", "srv  cut X  "), (b"srv  cut X\r", "srv  cut X")):
        rows = parse(_write(tmp_path, f"{LAUNCH}\n".encode() + cut))
        assert rows[-1]["message"] == text


def test_a_negative_two_digit_offset(tmp_path):
    # 05:40:00 at -11:00 is 16:40:00 UTC
    rows = parse(_write(tmp_path, f"2026-08-17T05:40:00-11:00 frank llama-server[1]: {LAUNCH}\n"))
    assert rows[0]["realtime_us"] == 1786984800000000


def test_every_kind_of_log_gives_the_same_columns_and_drops_a_progress_lines_return(tmp_path):
    from pipeline.ingest.formats.journal import FORMAT
    want = set(FORMAT.columns) | {"source_line"}
    for text in (f"{LAUNCH}\n\rsrv  progress\nsrv  ends with X\n",
                 f"{DOCKER}{LAUNCH}\n{DOCKER}\rsrv  progress\n{DOCKER}srv  ends with X\n",
                 f"{ISO}{LAUNCH}\n{ISO}\rsrv  progress\n{ISO}srv  ends with X\n"):
        rows = parse(_write(tmp_path, text))
        assert all(set(r) == want for r in rows), text
        assert [r["message"] for r in rows[1:]] == ["srv  progress", "srv  ends with X"], text
