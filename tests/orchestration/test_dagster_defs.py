"""The code location the way dg loads it: autoloaded from pipeline/defs, every asset and check
owned and described in words, page assets linking the file they write, groups = layers."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from dagster import MetadataValue

from pipeline.orchestration.assembly import definitions_for
from pipeline.project import Project
from pipeline.publish.charts import discover_charts
from pipeline.publish.pages import discover_pages

from conftest import REPO

LAYERS = {"raw", "reference", "staging", "intermediate", "marts", "catalog", "docs"}
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def graph():
    return definitions_for(Project(REPO)).resolve_asset_graph()


def _dg_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("INTERCONNECT_DB",)}
    env.update(VIRTUAL_ENV=str(BIN.parent), PATH=f"{BIN}:{env.get('PATH', '')}",
               INTERCONNECT_ROOT=str(REPO))
    return env


def test_dg_check_defs_passes_without_a_warning(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_bytes((REPO / "config/dagster.yaml").read_bytes())
    proc = subprocess.run([str(BIN / "dg"), "check", "defs"], cwd=REPO, capture_output=True,
                          text=True, env={**_dg_env(), "DAGSTER_HOME": str(home)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "All definitions loaded successfully." in out
    assert "warning" not in out.lower(), out


def test_autoloaded_defs_are_the_build_definitions(monkeypatch):
    from dagster import load_from_defs_folder
    monkeypatch.setenv("INTERCONNECT_ROOT", str(REPO))
    loaded = load_from_defs_folder(path_within_project=REPO / "pipeline")
    built = definitions_for(Project(REPO))
    keys = lambda d: sorted(k.to_user_string() for k in d.resolve_asset_graph().get_all_asset_keys())  # noqa: E731
    assert keys(loaded) == keys(built)
    assert {s.name for s in loaded.sensors} == {"raw_data_changed"}
    assert {s.name for s in loaded.schedules} == {"nightly_rebuild"}
    assert "warehouse" in loaded.resources


def test_every_asset_is_owned_described_and_in_its_layer(graph):
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        name = key.to_user_string()
        assert node.owners == ["team:interconnect-docs"], name
        words = (node.description or "").split()
        assert len(words) >= 8, (name, node.description)
        assert not node.description.startswith(("Writes ", "docs/", "sql/")), name
        assert node.group_name in LAYERS, (name, node.group_name)
    # the meta_* catalog tables say what they are for
    for key in graph.get_all_asset_keys():
        if key.to_user_string().startswith("meta_"):
            assert "." in graph.get(key).description, key


def test_every_check_is_described_and_owned(graph):
    specs = list(graph.asset_check_specs if hasattr(graph, "asset_check_specs") else [])
    if not specs:
        specs = [graph.get_check_spec(k) for k in graph.asset_check_keys]
    assert len(specs) >= 10
    for spec in specs:
        assert len((spec.description or "").split()) >= 6, spec.name
        assert spec.metadata["owner"] == "team:interconnect-docs", spec.name
        # where the check is declared: its SQL file, or the thresholds it applies
        declared = spec.metadata.get("sql_file") or spec.metadata.get("thresholds")
        assert isinstance(declared, MetadataValue.path("x").__class__), spec.name


def test_the_nightly_build_compares_with_the_published_ledger(monkeypatch, tmp_path):
    from dagster import DagsterInstance, build_schedule_context, validate_run_config

    from pipeline.orchestration.automation import nightly_rebuild
    monkeypatch.setenv("INTERCONNECT_ROOT", str(REPO))
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        request = nightly_rebuild(build_schedule_context(instance=instance))
    assert request.run_config == {"ops": {"what_changed": {"config": {"baseline": "published"}}}}
    job = definitions_for(Project(REPO)).resolve_job_def("rebuild_everything")
    validate_run_config(job, request.run_config)      # raises when the config does not fit


def test_page_assets_link_the_file_they_write_and_say_what_the_page_is_for(graph):
    pages = {p.asset_name: p for p in discover_pages(REPO / "templates")}
    for name, page in pages.items():
        node = graph.get(next(k for k in graph.get_all_asset_keys() if k.to_user_string() == name))
        writes = node.metadata["writes"]
        assert isinstance(writes, MetadataValue.path("x").__class__), name
        assert writes.value.startswith("docs/") and writes.value.endswith(".md"), writes
        assert page.purpose and page.purpose in node.description, name
    for chart in discover_charts():
        assert chart.what, chart.name


@pytest.mark.parametrize("load", [
    "import pipeline.definitions",                                  # dg, the webserver
    "from pipeline.orchestration import scale_out\nscale_out.ingest_job()",       # a run's launcher
])
def test_loading_the_definitions_leaves_pandas_to_the_steps_that_use_it(load):
    # pandas is a third of the definitions' import time; each parser and table writer
    # imports it where it is used
    out = subprocess.run([sys.executable, "-c", f"import sys\n{load}\nprint('pandas' in sys.modules)"],
                         cwd=REPO, env=_dg_env(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False"]
