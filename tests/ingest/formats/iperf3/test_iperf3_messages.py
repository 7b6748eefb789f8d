"""What iperf3 files that cannot be ingested are told as, word for word (the user reads these
lines to fix a file), and the corners of the parser: line numbers after a leading blank line, an
empty ``connected`` list, a TCP run carrying only UDP's old ``sum``, a --json-stream file after a
blank line."""
from __future__ import annotations

import json

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import iperf3


def _tcp(**end) -> dict:
    side = {"seconds": 10.0, "bytes": 1_000_000, "bits_per_second": 800_000.0}
    return {"start": {"connected": [{"local_host": "10.0.0.1", "remote_host": "10.0.0.2"}],
                      "version": "iperf 3.16", "timestamp": {"timesecs": 1},
                      "test_start": {"protocol": "TCP", "num_streams": 1, "reverse": 0}},
            "intervals": [], "end": end or {"sum_sent": dict(side, retransmits=0),
                                            "sum_received": side}}


def _message(parse, path) -> str:
    with pytest.raises(ParseError) as info:
        parse(path)
    return str(info.value)


@pytest.mark.parametrize("text, line, expected, found", [
    # --json-stream: a line cut inside a string; json's own words, the cut string's opening
    # quote is the line's 23rd character
    ('{"event": "start", "data": {}}\n{"event": "interval", "da\n', 2,
     "one JSON event per line (iperf3 --json-stream)", "Unterminated string starting at at column 23"),
    # --json-stream: the tool's error event, quoted
    ('{"event": "start", "data": {}}\n{"event": "error", "data": "boom"}\n', 2,
     "a finished iperf3 test", "iperf3 error 'boom'"),
    # -J: line 1 is blank, "{" on line 2, "error" on line 3
    ('\n{\n"error": "unable to connect"\n}\n', 3,
     "a finished iperf3 test", "iperf3 error 'unable to connect'"),
    # -J cut short: json's own position
    ('{"start": {\n', 2,
     "complete JSON", "Expecting property name enclosed in double quotes at line 2 column 1"),
    # JSON without the sums: named at the top-level "end"
    ('{"start": {},\n "end": {"streams": []}}\n', 2,
     "iperf3 -J output with end.sum_sent and end.sum_received (or end.sum for UDP before 3.11)",
     "JSON without them"),
], ids=["stream-cut", "stream-error", "error-after-blank-line", "cut-json", "no-sums"])
def test_each_unreadable_iperf3_file_is_told_word_for_word(tmp_path, text, line, expected, found):
    p = tmp_path / "i.json"
    p.write_text(text)
    assert _message(iperf3.parse, p) == f"{p}:{line}: expected {expected}, found {found}"


def test_a_tcp_run_with_only_the_old_udp_sum_is_refused(tmp_path):
    # end.sum stands in for the two sums only in UDP files of iperf3 before 3.11
    p = tmp_path / "t.json"
    p.write_text(json.dumps(_tcp(sum={"seconds": 10.0, "bytes": 1, "bits_per_second": 1.0})))
    assert "expected iperf3 -J output with end.sum_sent" in _message(iperf3.parse, p)


def test_an_empty_connected_list_leaves_the_hosts_missing(tmp_path):
    doc = _tcp()
    doc["start"]["connected"] = []
    p = tmp_path / "e.json"
    p.write_text(json.dumps(doc))
    (row,) = iperf3.parse(p)
    assert (row["local_host"], row["remote_host"], row["sent_bytes"]) == (None, None, 1_000_000)


def test_a_json_stream_file_after_blank_lines_is_read_as_a_stream(tmp_path):
    doc = _tcp()
    p = tmp_path / "s.json"
    p.write_text("\n\n" + "\n".join(json.dumps({"event": k, "data": doc[k]}) for k in ("start", "end"))
                 + "\n")
    (row,) = iperf3.parse(p)
    # the end event is the 4th line (two blank lines, then start)
    assert (row["sent_bytes"], row["source_line"]) == (1_000_000, 4)
