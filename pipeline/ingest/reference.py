"""Declared parameters: ``raw_data/reference/<name>.csv`` becomes table ``ref_<name>``.

They are not measurements, so each row must say where its values come from: a
``source`` column that is never empty.
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


def validate(path: Path) -> None:
    with open(path, newline="", encoding="utf-8") as fh:
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
