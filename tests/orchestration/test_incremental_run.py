"""One raw file changed: the sensor's run rebuilds only that campaign's partition and what is
downstream of it. The run is executed, and its step list and materializations are asserted,
not only the run request."""
from __future__ import annotations

import shutil

import pytest
from dagster import AssetKey, DagsterEventType, DagsterInstance, build_sensor_context

from pipeline.ingest.scan import campaign_folders
from pipeline.orchestration import sensor as raw_data_sensor
from pipeline.orchestration.assembly import definitions_for
from pipeline.orchestration.automation import raw_data_changed
from pipeline.orchestration.partitions import CAMPAIGNS
from pipeline.project import Project

CHANGED = "qwen38-27b-pp"
PING = f"deployments/{CHANGED}/ping/server-to-claw-gbe25.txt"


@pytest.fixture(scope="module")
def run(tmp_path_factory, built):
    """A copy of the session's built tree (warehouse and raw store included), one ping file
    edited, the sensor's run for it executed."""
    mp = pytest.MonkeyPatch()
    root = tmp_path_factory.mktemp("incremental") / "root"
    shutil.copytree(built.root, root, symlinks=True)
    project = Project(root)
    mp.setenv("INTERCONNECT_ROOT", str(root))
    mp.setenv("INTERCONNECT_DB", str(root / ".warehouse" / "interconnect.duckdb"))
    campaigns = [name for _, name, _ in campaign_folders(project.raw_data)]
    others = {p: p.stat().st_mtime_ns for p in project.raw_store.rglob("*.parquet")
              if p.relative_to(project.raw_store).parts[0] != CHANGED}
    ping = project.raw_data / PING
    ping.write_text(ping.read_text() + "\n")            # new bytes, same measurement
    now = {"t": 1_000_000.0}
    mp.setattr(raw_data_sensor, "clock", lambda: now["t"])
    mp.setenv(raw_data_sensor.SETTLE_ENV, "10")
    defs = definitions_for(project)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(CAMPAIGNS.name, campaigns)
    cursor = None
    requests = []
    for advance in (0, 10):                             # sees the change, then it is quiet
        now["t"] += advance
        context = build_sensor_context(instance=instance, cursor=cursor, definitions=defs)
        result = raw_data_changed(context)
        cursor = context.cursor
        requests = list(getattr(result, "run_requests", None) or [])
    (request,) = requests
    job = defs.resolve_implicit_global_asset_job_def()
    executed = job.execute_in_process(instance=instance, asset_selection=list(request.asset_selection),
                                      tags=request.tags)
    after = {p: p.stat().st_mtime_ns for p in others if p.exists()}
    yield executed, defs, others, after
    mp.undo()


def _events(result, kind):
    return [e for e in result.all_events if e.event_type == kind]


def test_the_run_succeeds_and_touches_only_the_changed_campaign(run):
    executed, _, others, after = run
    assert executed.success
    partitions = {e.partition for e in _events(executed, DagsterEventType.ASSET_MATERIALIZATION)
                  if e.partition is not None}
    assert partitions == {CHANGED}
    # no other campaign's parsed files were rewritten (or removed)
    assert after == others


def test_the_step_list_is_the_campaign_layer_and_downstream(run):
    executed, defs, _, _ = run
    steps = {e.step_key for e in _events(executed, DagsterEventType.STEP_START)}
    # the reference layer (declared tables and the models on them) is upstream: not run
    assert "reference_tables" not in steps and "reference_models" not in steps
    # the changed campaign's raw layer (one step: its scan and every format), its models (one
    # step), the shared models and pages; no other campaign's raw or model step
    key = CHANGED.replace('-', '_')
    assert {"raw_layer.campaigns_of_run", f"raw_layer.ingest_campaign[{key}]",
            "raw_layer.raw_layer_summary", f"campaign_models.campaign_model_step[{key}]",
            "campaign_models.campaign_models_summary", "shared_models", "docs"} <= steps
    assert [s for s in steps if s.startswith("raw_layer.ingest_campaign[")] == [
        f"raw_layer.ingest_campaign[{key}]"]
    assert [s for s in steps if s.startswith("campaign_models.campaign_model_step[")] == [
        f"campaign_models.campaign_model_step[{key}]"]
    graph = defs.resolve_asset_graph()
    materialized = {e.asset_key for e in _events(executed, DagsterEventType.ASSET_MATERIALIZATION)}
    assert AssetKey("ref_ethernet_classes") not in materialized
    # every step that ran is downstream of the raw layer of the campaign (or is that layer)
    raw = {k for k in graph.get_all_asset_keys() if graph.get(k).is_partitioned}
    downstream = set().union(*(graph.get(k).child_keys for k in raw)) | raw
    closure = set(downstream)
    while True:
        more = set().union(*(graph.get(k).child_keys for k in closure)) - closure
        if not more:
            break
        closure |= more
    assert materialized <= closure


def test_only_the_changed_file_is_parsed_again(run):
    executed, _, _, _ = run
    meta = {e.asset_key.path[-1]: e.event_specific_data.materialization.metadata
            for e in _events(executed, DagsterEventType.ASSET_MATERIALIZATION)}
    assert meta["raw_ping"]["parsed_files"].value == 1
    assert meta["raw_netdev"]["parsed_files"].value == 0
    assert meta["raw_netdev"]["unchanged_files"].value == 4     # the campaign's 4 captures


def test_each_model_shows_its_columns_and_what_they_hold_in_dagster(run):
    executed, _, _, _ = run
    meta = {e.asset_key.path[-1]: e.event_specific_data.materialization.metadata
            for e in _events(executed, DagsterEventType.ASSET_MATERIALIZATION)}
    # a campaign model (its columns as the campaign template has them) and a comparison model
    for name, column, words in (("fct_deployment_constants", "verify_steps", "decode steps"),
                                ("fct_p2p_pp_verdict", "rtt_worst_s", "the longer of the two")):
        columns = {c.name: c for c in meta[name]["dagster/column_schema"].value.columns}
        assert words in columns[column].description, (name, column)
        assert columns[column].type in ("DOUBLE", "BIGINT", "HUGEINT", "INTEGER")
        # every column carries a description (tests/warehouse/test_column_notes.py holds the SQL to it)
        assert all(c.description for c in columns.values()), name
