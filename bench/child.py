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
        import pipeline.ingest.netdev  # noqa: F401
        import pipeline.ingest.ping  # noqa: F401
        import pipeline.ingest.runner  # noqa: F401
        import pipeline.ingest.scan  # noqa: F401


def netdev_duckdb_scan(path: str) -> dict:
    """DuckDB's own line scan of a capture: read the lines, keep the interface lines and take
    their counters out (the same split the parser uses), summed so nothing is kept."""
    import duckdb
    from pipeline.ingest.netdev import lines_sql
    fields = "list_filter(string_split(line[instr(line, ':') + 1:], ' '), lambda x: x <> '')"
    total = " + ".join(f"cast(f[{p}] as ubigint)" for p in (1, 2, 3, 4, 9, 10, 11, 12))
    con = duckdb.connect()
    con.execute("set enable_progress_bar = false")
    n, _total = con.execute(f"select count(*), sum({total}::hugeint) from (select {fields} as f "
                       f"from {lines_sql(Path(path))} where contains(line, ':'))").fetchall()[0]
    return {"rows": n}


def netdev_light_scan(path: str) -> dict:
    """The lighter scan: lines read and matched by a regexp, nothing extracted."""
    import duckdb
    from pipeline.ingest.netdev import lines_sql
    con = duckdb.connect()
    con.execute("set enable_progress_bar = false")
    n = con.execute(f"select count(*) from {lines_sql(Path(path))} "
                    r"where regexp_matches(line, '^\s*[^\s:|]+:')").fetchall()[0][0]
    return {"rows": n}


def ingest_file(fmt_name: str, path: str, store: str) -> dict:
    """The project's ingest of one raw file into a raw store (parse, check, Parquet)."""
    import shutil
    from importlib import import_module
    from pipeline.ingest.runner import ingest_files
    from pipeline.ingest.scan import FileEntry
    fmt = import_module(f"pipeline.ingest.{fmt_name}").FORMAT
    shutil.rmtree(store, ignore_errors=True)
    src = Path(path)
    entry = FileEntry(src.name, "bench", fmt.name, "listed", None, sha256="0" * 64)
    from pipeline.store import RawStore
    summary = ingest_files(RawStore(Path(store)), fmt, src.parent, "bench", [entry])
    if summary.parsed != 1:
        raise SystemExit(f"{path}: not ingested ({summary})")
    return {"rows": summary.rows}


def import_module_timed(name: str) -> dict:
    import importlib
    importlib.import_module(name)
    return {}


JOBS = {f.__name__: f for f in (netdev_duckdb_scan, netdev_light_scan, ingest_file,
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
