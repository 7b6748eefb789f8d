"""The raw_data sensor, evaluated with Dagster's sensor test context and a test clock (no sleeps).

The tree is a copy of the shipped raw_data/; "the last build" is a warehouse whose
meta_build_inputs holds the digests a completed build writes (tests/commands/test_end_to_end.py checks a
real build writes exactly these).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import duckdb
import pytest
from dagster import (
    AddDynamicPartitionsRequest,
    AssetKey,
    DagsterInstance,
    DeleteDynamicPartitionsRequest,
    SkipReason,
    build_sensor_context,
)

from pipeline.commands.in_process import copy_tree
from pipeline.ingest.scan import campaign_folders
from pipeline.orchestration import sensor as raw_data_sensor
from pipeline.orchestration.assembly import definitions_for
from pipeline.orchestration.automation import raw_data_changed
from pipeline.orchestration.partitions import CAMPAIGNS
from pipeline.project import Project

from conftest import REPO

SETTLE = 60.0


@pytest.fixture(scope="module")
def defs(tmp_path_factory):
    project = copy_tree(REPO, tmp_path_factory.mktemp("graph"))
    return definitions_for(project)


@pytest.fixture
def tree(tmp_path, monkeypatch, defs):
    project = copy_tree(REPO, tmp_path / "root")
    monkeypatch.setenv("INTERCONNECT_ROOT", str(project.root))
    monkeypatch.delenv("INTERCONNECT_DB", raising=False)
    monkeypatch.setenv(raw_data_sensor.SETTLE_ENV, str(int(SETTLE)))
    now = {"t": 1_000_000.0}
    monkeypatch.setattr(raw_data_sensor, "clock", lambda: now["t"])
    instance = DagsterInstance.ephemeral()
    names = [n for _, n, _ in campaign_folders(project.raw_data)]
    instance.add_dynamic_partitions(CAMPAIGNS.name, names)
    state = {"cursor": None}

    def tick(advance: float = 0.0):
        now["t"] += advance
        context = build_sensor_context(instance=instance, cursor=state["cursor"],
                                       definitions=defs)
        result = raw_data_changed(context)
        state["cursor"] = context.cursor
        return result

    return project, tick


def record_build(project: Project) -> None:
    """What a completed build of the tree as it is now leaves in meta_build_inputs."""
    project.warehouse.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(project.warehouse))
    rows = raw_data_sensor.tree_digests(project)
    con.execute("create or replace table meta_build_inputs (folder varchar, campaign varchar, "
                "content_sha256 varchar)")
    con.executemany("insert into meta_build_inputs values (?, ?, ?)",
                    [(f, f.split("/", 1)[1] if "/" in f else None, d) for f, d in rows.items()])
    con.close()


def _skip(result) -> str:
    assert isinstance(result, SkipReason), result
    return result.skip_message


def _runs(result):
    return list(result.run_requests or [])


def test_nothing_at_start_up_when_the_last_build_covered_the_files(tree):
    project, tick = tree
    record_build(project)
    assert _skip(tick()) == "raw_data/ is what the last build covered"
    # a touch and a rewrite with the same bytes change times, not content
    ping = project.raw_data / "deployments/qwen38-27b-pp/ping/server-to-claw-gbe25.txt"
    ping.write_bytes(ping.read_bytes())
    os.utime(ping, (time.time() + 100, time.time() + 100))
    assert _skip(tick(1000)) == "raw_data/ is what the last build covered"


def test_waits_for_quiet_then_builds_only_the_changed_campaign(tree, defs):
    project, tick = tree
    record_build(project)
    ping = project.raw_data / "deployments/qwen38-27b-pp/ping/server-to-claw-gbe25.txt"
    ping.write_text(ping.read_text() + "\n")
    assert _skip(tick()) == "raw_data/ changed; waiting until it has been quiet for 60 s"
    assert _skip(tick(30)) == "raw_data/ quiet for 30 of 60 s"
    # still being written: the wait starts again
    ping.write_text(ping.read_text() + "\n")
    assert _skip(tick(40)).startswith("raw_data/ changed; waiting")
    assert _skip(tick(59)) == "raw_data/ quiet for 59 of 60 s"
    result = tick(1)
    (run,) = _runs(result)
    assert run.tags["dagster/asset_partition_range_start"] == "qwen38-27b-pp"
    assert run.tags["dagster/asset_partition_range_end"] == "qwen38-27b-pp"
    keys = set(run.asset_selection)
    graph = defs.resolve_asset_graph()
    # the campaign layer and what is downstream of it; not the reference layer
    assert AssetKey("raw_ping") in keys and AssetKey("docs") in keys
    assert AssetKey("fct_deployment_constants") in keys
    assert AssetKey("ref_ethernet_classes") not in keys
    assert all(graph.get(k).is_partitioned or k in keys for k in keys)
    # the same content asks again with the same run key: Dagster runs it once
    (again,) = _runs(tick(5))
    assert again.run_key == run.run_key


def test_two_changed_campaigns_two_runs(tree):
    project, tick = tree
    record_build(project)
    for rel in ("deployments/lab-veth-tbf/README.md", "p2p/swan-10-regions/README.md"):
        path = project.raw_data / rel
        path.write_text(path.read_text() + "\nedited\n")
    tick()
    runs = _runs(tick(SETTLE))
    assert sorted(r.tags["dagster/asset_partition_range_start"] for r in runs) == \
        ["lab-veth-tbf", "swan-10-regions"]


def test_reference_change_rebuilds_every_campaign(tree):
    project, tick = tree
    record_build(project)
    csv = project.reference / "ethernet_classes.csv"
    csv.write_text(csv.read_text() + "\n")
    tick()
    (run,) = _runs(tick(SETTLE))
    assert run.asset_selection is None          # the whole job
    # partitions in folder order (deployments/, p2p/, then labs/, each by name): the range
    # covers every campaign, from deployments/lab-rpc-tbf050 to the last of labs/ by name
    last_lab = sorted(d.name for d in (project.root / "raw_data" / "labs").iterdir() if d.is_dir())[-1]
    assert (run.tags["dagster/asset_partition_range_start"],
            run.tags["dagster/asset_partition_range_end"]) == ("lab-rpc-tbf050", last_lab)


def test_new_and_removed_campaigns(tree):
    project, tick = tree
    record_build(project)
    shutil.rmtree(project.raw_data / "p2p/aws-p3-tc")
    tick()
    result = tick(SETTLE)
    (delete,) = [r for r in result.dynamic_partitions_requests
                 if isinstance(r, DeleteDynamicPartitionsRequest)]
    assert list(delete.partition_keys) == ["aws-p3-tc"]
    (run,) = _runs(result)
    # only the shared tables and pages, which drop the campaign
    assert AssetKey("docs") in run.asset_selection and AssetKey("raw_ping") not in run.asset_selection
    shutil.copytree(REPO / "raw_data/p2p/aws-p3-tc", project.raw_data / "p2p/aws-p3-tc-2")
    manifest = project.raw_data / "p2p/aws-p3-tc-2/manifest.yaml"
    manifest.write_text(manifest.read_text().replace("campaign: aws-p3-tc", "campaign: aws-p3-tc-2"))
    tick()
    result = tick(SETTLE)
    (add,) = [r for r in result.dynamic_partitions_requests
              if isinstance(r, AddDynamicPartitionsRequest)]
    assert list(add.partition_keys) == ["aws-p3-tc-2"]
    assert [r.tags["dagster/asset_partition_range_start"] for r in _runs(result)] == ["aws-p3-tc-2"]


def test_no_build_yet_means_everything_is_new(tree):
    project, tick = tree
    assert _skip(tick()).startswith("raw_data/ changed; waiting")
    # the reference folder is new too: one run over every campaign
    (run,) = _runs(tick(SETTLE))
    assert run.asset_selection is None


def test_a_build_writing_the_warehouse_is_waited_for(tree):
    project, tick = tree
    record_build(project)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('open', flush=True); time.sleep(60)", str(project.warehouse)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        assert _skip(tick()) == "a build is writing the warehouse; looking again at the next tick"
    finally:
        holder.kill()
        holder.wait()
    assert _skip(tick()) == "raw_data/ is what the last build covered"


@pytest.mark.parametrize("cursor", ["5f1c0d9e2a", "[1, 2]", "{not json"])
def test_a_cursor_from_another_version_is_no_state(tree, defs, cursor):
    # the sensor of earlier builds kept a hex fingerprint as its cursor: the first tick after
    # an upgrade must not fail on it
    project, _ = tree
    instance = DagsterInstance.ephemeral()
    context = build_sensor_context(instance=instance, cursor=cursor, definitions=defs)
    assert _skip(raw_data_changed(context)).startswith("raw_data/ changed; waiting")
