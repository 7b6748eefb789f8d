"""One ingest of several files (pipeline/ingest/runner.py: ingest_files): what the summary
counts, what each file's registry entry says, and that a refused file never stops the files
after it. A toy format whose parser reads one row a line, refuses a file saying "bad" and
crashes on one saying "boom"."""
from __future__ import annotations

import hashlib

import duckdb

from pipeline.ingest.base import Format, ParseError
from pipeline.ingest.runner import ingest_files
from pipeline.ingest.scan import FileEntry
from pipeline.ingest.store import RawStore


def _parse(path):
    text = path.read_text()
    if text.startswith("bad"):
        raise ParseError(path, 2, "a good line", "'bad'")
    if text.startswith("boom"):
        raise ValueError("no luck")
    return [{"source_line": n, "word": w} for n, w in enumerate(text.split(), start=1)]


TOY = Format(name="toy", table="raw_toy", version=3, columns={"word": "VARCHAR"}, parse=_parse)


def _files(raw, contents: dict) -> list[FileEntry]:
    folder = raw / "p2p" / "c"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in contents.items():
        (folder / name).write_text(text)
        out.append(FileEntry(f"p2p/c/{name}", "c", "toy", "listed",
                             sha256=hashlib.sha256(text.encode()).hexdigest()))
    return out


class Log:
    def __init__(self):
        self.lines = []

    def warning(self, message):
        self.lines.append(message)


def test_a_refused_or_crashing_file_is_quarantined_and_the_next_ones_still_read(tmp_path):
    raw, store = tmp_path / "raw_data", RawStore(tmp_path / "store")
    files = _files(raw, {"a.txt": "x y", "b.txt": "bad", "c.txt": "boom", "d.txt": "z"})
    # a file of another format and one the manifest did not list are not this format's
    files += [FileEntry("p2p/c/e.txt", "c", "ping", "listed", sha256="0" * 64),
              FileEntry("p2p/c/f.txt", "c", "toy", "unlisted", sha256="1" * 64)]
    log = Log()
    summary = ingest_files(store, TOY, raw, "c", files, log)
    # a: 2 rows, d: 1 row; b and c quarantined
    assert (summary.parsed, summary.rows, summary.quarantined, summary.skipped, summary.removed) == \
        (2, 3, 2, 0, 0)
    sha = {f.source_file: f.sha256 for f in files}
    got = sorted(store.registry("c", ["raw_toy"]), key=lambda r: r["source_file"])
    boom = ("p2p/c/c.txt: the toy parser failed on this file (ValueError: no luck); the file is "
            "quarantined")
    assert got == [
        {"source_file": "p2p/c/a.txt", "campaign": "c", "format": "toy", "sha256": sha["p2p/c/a.txt"],
         "parser_version": 3, "status": "ok", "reason": None, "rows_ingested": 2},
        {"source_file": "p2p/c/b.txt", "campaign": "c", "format": "toy", "sha256": sha["p2p/c/b.txt"],
         "parser_version": 3, "status": "quarantined",
         "reason": "p2p/c/b.txt:2: expected a good line, found 'bad'", "rows_ingested": 0},
        {"source_file": "p2p/c/c.txt", "campaign": "c", "format": "toy", "sha256": sha["p2p/c/c.txt"],
         "parser_version": 3, "status": "quarantined", "reason": boom, "rows_ingested": 0},
        {"source_file": "p2p/c/d.txt", "campaign": "c", "format": "toy", "sha256": sha["p2p/c/d.txt"],
         "parser_version": 3, "status": "ok", "reason": None, "rows_ingested": 1},
    ]
    assert log.lines == ["quarantined p2p/c/b.txt:2: expected a good line, found 'bad'",
                         f"quarantined {boom}"]
    # a connection of its own: DuckDB's default one (duckdb.sql) is shared with whatever process
    # forked this one, and hangs in a forked child (mutmut's workers)
    with duckdb.connect() as con:
        rows = con.sql(store.relation("c", "raw_toy", {"source_file": "VARCHAR", "campaign": "VARCHAR",
                                                       "source_line": "BIGINT", "word": "VARCHAR"})
                       + " order by source_file, source_line").fetchall()
    assert rows == [("p2p/c/a.txt", "c", 1, "x"), ("p2p/c/a.txt", "c", 2, "y"), ("p2p/c/d.txt", "c", 1, "z")]


def test_a_second_ingest_skips_what_it_has_and_removes_what_left(tmp_path):
    raw, store = tmp_path / "raw_data", RawStore(tmp_path / "store")
    files = _files(raw, {"a.txt": "x y", "b.txt": "bad", "c.txt": "u", "d.txt": "z"})
    ingest_files(store, TOY, raw, "c", files)
    # b and d leave the campaign, a and c stay: 2 skipped, 2 removed, nothing parsed
    summary = ingest_files(store, TOY, raw, "c", [files[0], files[2]])
    assert (summary.parsed, summary.rows, summary.quarantined, summary.skipped, summary.removed) == \
        (0, 0, 0, 2, 2)
    assert sorted(r["source_file"] for r in store.registry("c", ["raw_toy"])) == \
        ["p2p/c/a.txt", "p2p/c/c.txt"]
