"""Kills at exact moments (pipeline/util/faults.py checkpoints) and signals: nothing is lost, nothing
is left half written, nothing stays locked.

- ingest: a raw file's rows and registry entry are one Parquet file renamed into place, so a
  SIGKILL after parsing, after writing the temporary file, or after the rename (before the old
  version is removed) leaves rows that match their registry entry, and the next run brings the
  store in line with the current bytes;
- pages: a kill after a page is staged leaves docs/ entirely old (the kills and disk-full
  failures while publishing: tests/commands/test_publication_faults.py);
- SIGTERM / SIGINT end a build with exit 130 and "interrupted by <signal>", saying what was
  published: docs/ replaced before the site was swapped in is rolled back; no staging folder left;
- a failing page leaves docs/ old.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipeline.commands.in_process import copy_tree
from pipeline.ingest.store import REGISTRY_KEY
from pipeline.project import Project
from pipeline.warehouse.steps import Layout

from build_runs import build_env, edited_copy, files_of, start_build
from built_tree import copy_built
from conftest import REPO

CAPTURE = "raw_data/deployments/qwen38-27b-pp/netdev/server-prefill.netdev"
CAMPAIGN = "qwen38-27b-pp"


_env = build_env


INGEST = """
import sys
from pipeline.warehouse.steps import Layout, ingest, scan
from pipeline.project import Project
layout = Layout(Project.from_env())
scan(layout, sys.argv[1])
print(ingest(layout, sys.argv[1], layout.formats["netdev"]))
"""


def _ingest(root: Path, **extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", INGEST, CAMPAIGN], cwd=REPO, env=_env(root, **extra),
                          capture_output=True, text=True)


def _store_state(root: Path) -> dict[str, tuple[str, int]]:
    """source_file -> (sha256, rows) of every netdev Parquet file, checking each file's rows
    against its own registry entry."""
    store = Layout(Project(root)).store
    con = duckdb.connect()
    found: dict[str, list] = {}
    for path in store.files(CAMPAIGN, "raw_netdev"):
        (meta,) = con.execute("select decode(value) from parquet_kv_metadata(?) where decode(key) = ?",
                              [str(path), REGISTRY_KEY]).fetchall()[0]
        entry = json.loads(meta)
        rows = con.execute("select count(*), count(distinct source_file) from read_parquet(?)",
                           [str(path)]).fetchall()[0]
        # netdev is streamed straight into the file, so its entry leaves the count to the file
        # itself (RawStore.registry reads it); an entry that does state a count must agree
        assert entry.get("rows_ingested", rows[0]) == rows[0], path
        assert [e.get("rows_ingested") for e in store.registry(CAMPAIGN, ["raw_netdev"])
                if e["sha256"] == entry["sha256"]] == [rows[0]]
        assert rows[1] <= 1
        found.setdefault(entry["source_file"], []).append((entry["sha256"], rows[0]))
    return found


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """A tree whose qwen38 netdev captures are in the store, then the largest one edited."""
    root = tmp_path_factory.mktemp("faults")
    copy_tree(REPO, root)
    os.environ.pop("INTERCONNECT_FAULT", None)
    done = _ingest(root)
    assert done.returncode == 0, done.stderr[-2000:]
    return root


@pytest.mark.parametrize("point", ["ingest:parsed", "ingest:written", "ingest:renamed"])
def test_kill_at_each_ingest_phase_keeps_rows_and_registry_together(ingested, tmp_path, point):
    root = tmp_path / "root"
    shutil.copytree(ingested, root)
    capture = root / CAPTURE
    text = capture.read_text()
    capture.write_text(text.replace("# host=", "# edited=1 host=", 1))   # new bytes, same samples
    new_sha = hashlib.sha256(capture.read_bytes()).hexdigest()
    killed = _ingest(root, INTERCONNECT_FAULT=point)
    assert killed.returncode == -signal.SIGKILL, (point, killed.stderr[-1000:])  # it did die there
    state = _store_state(root)
    source = CAPTURE[len("raw_data/"):]
    shas = [sha for sha, _ in state[source]]
    if point == "ingest:renamed":
        assert new_sha in shas          # the new version is in place (the old may linger)
    else:
        assert shas and new_sha not in shas   # still the old version, whole
    # the next run brings the store in line with the current bytes: one version, all its rows
    again = _ingest(root)
    assert again.returncode == 0, again.stderr[-2000:]
    state = _store_state(root)
    assert [sha for sha, _ in state[source]] == [new_sha]
    # one row per interface line of the capture ('<iface>: <16 counters>')
    lines = sum(1 for line in capture.read_text().splitlines() if re.match(r"\s*[^\s:|#@]+:\s*\d", line))
    assert state[source][0][1] == lines


_start = start_build


def _docs(root: Path) -> dict[str, bytes]:
    return files_of(root / "docs")


@pytest.fixture(scope="module")
def built_tree(tmp_path_factory):
    """A built tree (warehouse, store, docs and site present; a copy of the session's build):
    the later builds are incremental."""
    return copy_built(tmp_path_factory.mktemp("built-tree"))


_edited = edited_copy


def test_kill_after_a_page_is_staged_leaves_docs_old(built_tree, tmp_path):
    root = _edited(built_tree, tmp_path / "root")
    before = _docs(root)
    proc = _start(root, "--no-site", INTERCONNECT_FAULT="page:staged")
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    assert _docs(root) == before


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_ends_the_build_cleanly(built_tree, tmp_path, sig):
    root = _edited(built_tree, tmp_path / "root")
    before = _docs(root)
    proc = _start(root)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if list((root / ".site-builds").glob("staging-*")):   # mkdocs is running
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the build ended before mkdocs started"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    # interrupted, not failed: exit 130, the signal named, what was already published said
    assert proc.returncode == 130, err
    # docs/ had been replaced for the site being built: rolled back, so readers see no mix
    assert err.strip().splitlines()[-1] == (
        f"build of {root} interrupted by {sig.name}: nothing published (docs/ and site/ are as "
        "they were)")
    assert "Traceback" not in err and "failed" not in err
    assert not list((root / ".site-builds").glob("staging-*"))
    assert not (root / ".docs-staging").exists() or not any((root / ".docs-staging").iterdir())
    assert _docs(root) == before


def test_a_failing_page_leaves_docs_old(built_tree, tmp_path):
    root = _edited(built_tree, tmp_path / "root")
    bad = root / "templates" / "point-to-point.md.j2"
    bad.write_text(bad.read_text() + "{{ row('fct_p2p_campaigns').nope }}\n")   # fails to render
    before = _docs(root)
    proc = _start(root, "--no-site")
    _, err = proc.communicate()
    assert proc.returncode == 1 and "nothing published" in err
    assert _docs(root) == before


def _garble(path: Path, where: str) -> None:
    data = bytearray(path.read_bytes())
    if where == "data":                 # inside the first column chunk's compressed pages
        start = len(data) // 3
    else:                               # inside the footer's metadata, its magic left intact
        footer = int.from_bytes(data[-8:-4], "little")
        start = len(data) - 8 - footer + 10
    data[start:start + 32] = b"\xab" * 32
    path.write_bytes(bytes(data))


def test_a_raw_store_file_with_bad_bytes_is_parsed_again_from_its_raw_file(built_tree, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(built_tree, root, symlinks=True)
    before = _docs(root)
    store = Layout(Project(root)).store
    heads = sorted(store.heads(CAMPAIGN, "raw_netdev"), key=lambda p: p.stat().st_size)
    garbled = {heads[-1]: "data", heads[-2]: "footer"}
    for path, where in garbled.items():
        _garble(path, where)
    proc = _start(root, "--no-site", "--force")
    _, err = proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    # one line per file, naming it, DuckDB's cause, where it went and the raw file parsed again
    lines = [line for line in err.splitlines() if "DuckDB cannot read this raw store file" in line]
    assert len(lines) == 2, err[-3000:]
    sources = {e["sha256"][:16]: e["source_file"] for e in store.registry(CAMPAIGN, ["raw_netdev"])}
    for path in garbled:
        (line,) = [line for line in lines if line.startswith(f"{path}: ")]
        assert f"{sources[path.name.split('-')[1]]} is parsed again" in line
        asides = list(path.parent.glob(f"{path.name}.unreadable-*"))
        assert len(asides) == 1 and asides[0].name in line
    # the store is whole again (every row matches its registry entry), docs/ as a clean build
    _store_state(root)
    assert _docs(root) == before


def test_a_deleted_campaign_leaves_nothing_in_the_raw_store(built_tree, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(built_tree, root, symlinks=True)
    store = Layout(Project(root)).store
    gone = "lab-veth-tbf"
    assert (store.root / gone).is_dir() and store.lock_file(gone).exists()
    shutil.rmtree(root / "raw_data" / "deployments" / gone)
    proc = _start(root, "--no-site")
    _, err = proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    # its rows, registry entries and lock file are gone with its schema and page
    assert not (store.root / gone).exists() and not store.lock_file(gone).exists()
    assert gone not in store.campaigns() and "qwen38-27b-pp" in store.campaigns()
    assert not (root / "docs" / "deployments" / f"{gone}.md").exists()
