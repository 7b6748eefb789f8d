"""Declared parameters: ``raw_data/reference/<name>.csv`` becomes table ``ref_<name>``.

They are not measurements of a link (``pipeline_scale_out.csv``, the pipeline's own benchmark
written by ``make bench``, describes the tool), so each row must say where its values come from: a
``source`` column that is never empty. They are site-wide, so a reference file that cannot be
read stops the build, naming its file and line (``path:line: expected …, found …``).
"""
from __future__ import annotations

import csv
from pathlib import Path


class ReferenceError(Exception):
    pass


def reference_files(reference_dir: Path) -> list[Path]:
    return sorted(reference_dir.glob("*.csv")) if reference_dir.is_dir() else []


def table_name(path: Path) -> str:
    return "ref_" + path.stem.replace("-", "_")


def _text(path: Path) -> str:
    """The file as UTF-8, or an error naming the line of the first byte that is not."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ReferenceError(f"{path}:{line}: expected UTF-8 text, found byte "
                             f"0x{data[exc.start]:02x}; save the file as UTF-8") from None


def validate(path: Path) -> None:
    import io
    with io.StringIO(_text(path), newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or "source" not in reader.fieldnames:
            raise ReferenceError(f"{path}:1: expected a 'source' column, found {reader.fieldnames}")
        for i, row in enumerate(reader, start=2):
            if not (row.get("source") or "").strip():
                raise ReferenceError(f"{path}:{i}: expected a citation in 'source', found nothing")


def load(con, path: Path) -> int:
    validate(path)
    name = table_name(path)
    con.execute(f"create or replace table \"{name}\" as select * from read_csv(?, header=true, "
                f"auto_detect=true, sample_size=-1)", [str(path)])
    return con.execute(f'select count(*) from "{name}"').fetchall()[0][0]
