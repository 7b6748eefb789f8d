"""A storage failure's cause first, with the file, in a few lines (pipeline/util/storage_errors.py).

The messages are the tools' own: DuckDB and shutil.copytree writing onto a tmpfs that is full
(mounted by the test; root may, CI runs as root), and the one a build printed when its
warehouse (INTERCONNECT_DB) sat on a 30 MiB tmpfs, before this module existed."""
from __future__ import annotations

import os
import shutil
import subprocess

import duckdb
import pytest

from pipeline.util.storage_errors import LIMIT, explain

from paths import REPO

ADVICE = "free space on that filesystem (or point INTERCONNECT_DB / the publish directory elsewhere) and build again"

# printed by `python -m pipeline.commands.build --no-site` with INTERCONNECT_DB on a 30 MiB tmpfs
INVALIDATED = (
    '_duckdb.FatalException: FATAL Error: Failed: database has been invalidated because of a '
    'previous fatal error. The database must be restarted prior to being used again.\n'
    'Original error: "Failed to create checkpoint because of error: Could not write file '
    '"/tmp/small/w.duckdb": No space left on device"')


@pytest.fixture
def full(tmp_path):
    where = tmp_path / "full"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot mount a tmpfs: {done.stderr}")
        pytest.skip(f"cannot mount a tmpfs: {done.stderr}")
    yield where
    subprocess.run(["umount", str(where)], check=True)


def test_the_invalidated_warehouse_says_the_disk_is_full_first():
    said = explain(INVALIDATED)
    assert said.startswith(f"no space left on device writing /tmp/small/w.duckdb: {ADVICE}. DuckDB: ")
    assert said.endswith("(the warehouse was invalidated by it)")


def test_duckdb_writing_onto_a_full_disk(full):
    con = duckdb.connect(str(full / "w.duckdb"))
    with pytest.raises(duckdb.Error) as caught:
        con.execute("create table t as select range a, md5(range::varchar) b from range(200000)")
        con.execute("checkpoint")
    con.close()                     # the file is released before the tmpfs goes
    said = explain(str(caught.value))
    assert said.startswith(f"no space left on device writing {full}/w.duckdb"), said


def test_a_copy_onto_a_full_disk_names_one_file_and_counts_the_rest(full):
    with pytest.raises(shutil.Error) as caught:
        shutil.copytree(REPO / "docs", full / "copy")
    message = str(caught.value)
    failed = message.count("[Errno 28]")
    assert failed > 10 and len(message) > 5000           # one entry per file it could not copy
    said = explain(message)
    assert said.startswith(f"no space left on device writing {full}/copy/")
    assert f"(and {failed - 1} more files the same way): {ADVICE}" in said
    assert len(said) < 400 and "Errno" not in said


def test_an_oserror_names_its_file():
    said = explain(str(OSError(28, "No space left on device", "/srv/docs/index.md")))
    assert said == f"no space left on device writing /srv/docs/index.md: {ADVICE}"


def test_other_errors_are_left_as_they_are_but_cut_short():
    assert explain("Binder Error: column x not found") == "Binder Error: column x not found"
    long = "y " * 2000                                     # 4,000 characters
    said = explain(long)
    # whitespace runs folded to one space: 3,999 characters, LIMIT kept, the rest counted
    assert said.startswith("y y") and said.endswith(
        f"… ({3999 - LIMIT:,} more characters; V=1 shows the full log)")
