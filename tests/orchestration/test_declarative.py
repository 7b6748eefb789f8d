"""The asset graph is discovered from sql/ and templates/: no Python change adds a model or page."""
import shutil

import pytest
from dagster import AssetKey

from pipeline.definitions import build_definitions
from pipeline.project import Project
from pipeline.publish.pages import PageError
from pipeline.warehouse.models import ModelError

from paths import REPO


@pytest.fixture
def tree(tmp_path):
    for name in ("sql", "templates", "raw_data"):
        shutil.copytree(REPO / name, tmp_path / name)
    return tmp_path


def _deps(defs, name):
    graph = defs.resolve_asset_graph()
    return {k.path[-1] for k in graph.get(AssetKey(name)).parent_keys}


def test_new_sql_and_template_join_the_graph(tree):
    (tree / "sql/marts/fct_new_figure.sql").write_text(
        "-- grain: one row per campaign\n"
        "select campaign, hidden_size * 2 as doubled from fct_deployment_constants "
        "join raw_campaigns using (campaign)\n")
    (tree / "templates/new-page.md.j2").write_text(
        "{#---\ntitle: New\nmarts: [fct_new_figure]\n---#}\n{% for r in fct_new_figure %}{{ r.doubled }}{% endfor %}\n")
    defs = build_definitions(Project(tree))
    assert _deps(defs, "fct_new_figure") == {"fct_deployment_constants", "raw_campaigns"}
    # its marts, and fct_site_summary: the build stamp at the foot of every shared page
    assert _deps(defs, "page_new_page") == {"fct_new_figure", "fct_site_summary"}
    assert "page_new_page" in _deps(defs, "docs") and _deps(defs, "site") == {"docs"}


def test_typo_in_table_name_fails_at_load(tree):
    bad = tree / "sql/marts/fct_typo.sql"
    bad.write_text("-- grain: one row\nselect * from fct_deployment_constantz\n")
    with pytest.raises(ModelError, match=r"fct_typo\.sql.*fct_deployment_constantz"):
        build_definitions(Project(tree))


def test_typo_in_template_front_matter_fails_at_load(tree):
    (tree / "templates/bad.md.j2").write_text("{#---\ntitle: Bad\nmarts: [fct_nope]\n---#}\nx\n")
    with pytest.raises(PageError, match=r"bad\.md\.j2.*fct_nope"):
        build_definitions(Project(tree))


def test_real_project_loads():
    defs = build_definitions(Project(REPO))
    graph = defs.resolve_asset_graph()
    names = {k.path[-1] for k in graph.get_all_asset_keys()}
    assert {"raw_files", "site", "page_ethernet_bandwidth_math", "fct_deployment_constants"} <= names
    # the page reads exactly the marts its front matter declares
    assert "fct_prefill_what_if" in _deps(defs, "page_ethernet_bandwidth_math")
