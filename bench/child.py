"""One measured run in a fresh interpreter: ``python -m bench.child <job> <args…>`` does the
job and prints ``{"seconds": …, "peak_rss_mb": …, …}`` as its last line. The time covers the
job only (not the interpreter's start); the peak RSS is the whole process's, imports included."""
from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path


def _imports(job: str) -> None:
    """What a job imports, loaded before its clock starts."""
    if job != "import_module_timed":
        import duckdb  # noqa: F401

        import pipeline.ingest.formats.netdev  # noqa: F401
        import pipeline.ingest.formats.ping  # noqa: F401
        import pipeline.ingest.runner  # noqa: F401
        import pipeline.ingest.scan  # noqa: F401


def netdev_scan(path: str, kind: str) -> dict:
    """DuckDB's own line scan of a capture: ``read_csv`` as one text column, in parallel, no
    order kept, nothing written. ``match``: the interface lines matched by the format's
    regexp (the issue's own baseline query); ``split``: the lines with a colon, their counters
    taken out with the parser's functions and summed; ``check_split``: both, the per-line work
    that the parser's contract asks for (a line that is not ``<iface>: <16 counters>`` is an
    error, and its counters are the rows)."""
    import duckdb

    from pipeline.ingest.formats.netdev import INTERFACE_LINE, lines_sql
    lines = lines_sql(Path(path))
    check = f"regexp_matches(line, '{INTERFACE_LINE}')"
    fields = ("list_filter(string_split(substring(line, instr(line, ':') + 1), ' '), "
              "lambda x: x <> '')")
    total = " + ".join(f"cast(f[{p}] as ubigint)" for p in (1, 2, 3, 4, 9, 10, 11, 12))
    con = duckdb.connect()
    con.execute("set enable_progress_bar = false")
    if kind == "match":
        sql = f"select count(*) from {lines} where contains(line, ':') and {check}"
    else:
        keep = f"contains(line, ':') and {check}" if kind == "check_split" else "contains(line, ':')"
        sql = (f"select count(*), sum({total}::hugeint) from (select {fields} as f "
               f"from {lines} where {keep})")
    return {"rows": con.execute(sql).fetchall()[0][0]}


def ingest_file(fmt_name: str, path: str, store: str) -> dict:
    """The project's ingest of one raw file into a raw store (parse, check, Parquet)."""
    import shutil
    from importlib import import_module

    from pipeline.ingest.runner import ingest_files
    from pipeline.ingest.scan import FileEntry
    fmt = import_module(f"pipeline.ingest.formats.{fmt_name}").FORMAT
    shutil.rmtree(store, ignore_errors=True)
    src = Path(path)
    entry = FileEntry(src.name, "bench", fmt.name, "listed", None, sha256="0" * 64)
    from pipeline.ingest.store import RawStore
    summary = ingest_files(RawStore(Path(store)), fmt, src.parent, "bench", [entry])
    if summary.parsed != 1:
        raise SystemExit(f"{path}: not ingested ({summary})")
    return {"rows": summary.rows}


def import_module_timed(name: str) -> dict:
    import importlib
    importlib.import_module(name)
    return {}


JOBS = {f.__name__: f for f in (netdev_scan, ingest_file,
                                 import_module_timed)}


def main() -> None:
    job, *args = sys.argv[1:]
    _imports(job)
    start = time.perf_counter()
    out = JOBS[job](*args)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_rss_mb": peak, **out}))


if __name__ == "__main__":
    main()
