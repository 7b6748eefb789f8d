"""Compiled templates kept between builds (pipeline/publish/template_cache.py): a second
environment on the same cache compiles nothing and renders the same text; an edited template,
another environment's options, a damaged entry or a cache that cannot be written are compiled
(and rendered) as without a cache; a copied templates folder keeps its entries."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from jinja2 import DictLoader, Environment

from built_tree import built_once
from pipeline.project import Project
from pipeline.publish import markdown
from pipeline.publish.pages import discover_pages
from pipeline.publish.template_cache import attach

PAGE = "{% from 'macros.md.j2' import cell %}# {{ title }}\n{% for v in values %}\n{{ cell(v) }}\n{% endfor %}\n"
MACROS = "{% macro cell(v) %}| {{ v | num(1) }} |{% endmacro %}\n"


@pytest.fixture
def templates(tmp_path) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "page.md.j2").write_text(PAGE)
    (folder / "macros.md.j2").write_text(MACROS)
    return folder


def _fresh(templates: Path, cache: Path | None):
    """A new environment (as in a new build's process), counting what it compiles."""
    markdown._environment.cache_clear()
    env = markdown.environment(templates, cache)
    compiled = []
    plain = env.compile

    def compile(source, name=None, filename=None, *args, **kwargs):
        compiled.append(name)
        return plain(source, name, filename, *args, **kwargs)

    env.compile = compile
    return env, compiled


def _render(env) -> str:
    return env.get_template("page.md.j2").render(title="T", values=[1.25, 2.0])


def test_a_second_build_compiles_nothing_and_renders_the_same(templates, tmp_path):
    cache = tmp_path / "w.jinja"
    without, compiled = _fresh(templates, None)
    expected = _render(without)
    assert sorted(compiled) == ["macros.md.j2", "page.md.j2"]
    first, compiled = _fresh(templates, cache)
    assert _render(first) == expected and len(compiled) == 2
    assert len(list(cache.iterdir())) == 2           # one entry a template
    second, compiled = _fresh(templates, cache)
    assert _render(second) == expected and compiled == []


def test_an_edited_template_is_compiled_again(templates, tmp_path):
    cache = tmp_path / "w.jinja"
    _render(_fresh(templates, cache)[0])
    (templates / "page.md.j2").write_text(PAGE.replace("# ", "## "))
    env, compiled = _fresh(templates, cache)
    assert _render(env).startswith("## T") and compiled == ["page.md.j2"]
    assert len(list(cache.iterdir())) == 2            # the entry replaced, not added


def test_a_copied_folder_keeps_its_entries(templates, tmp_path):
    cache = tmp_path / "w.jinja"
    expected = _render(_fresh(templates, cache)[0])
    moved = shutil.copytree(templates, tmp_path / "elsewhere" / "templates")
    env, compiled = _fresh(moved, cache)
    assert _render(env) == expected and compiled == []


def test_another_environments_options_do_not_share_entries(tmp_path):
    source = {"t.j2": "{% if x %}\n  a\n{% endif %}\nb\n"}
    cache = tmp_path / "c"

    def env(**options):
        return Environment(loader=DictLoader(source), **options)

    trimmed = attach(env(trim_blocks=True, lstrip_blocks=True), cache)
    assert trimmed.get_template("t.j2").render(x=1) == "  a\nb"
    plain = attach(env(), cache)
    # without the options Jinja keeps the tag lines' newlines: what a cache-less one renders
    assert plain.get_template("t.j2").render(x=1) == env().get_template("t.j2").render(x=1) \
        == "\n  a\n\nb"


def test_a_damaged_entry_is_compiled_again(templates, tmp_path):
    cache = tmp_path / "w.jinja"
    expected = _render(_fresh(templates, cache)[0])
    for entry in cache.iterdir():
        entry.write_bytes(entry.read_bytes()[:40])   # cut short, as by a crash
    env, compiled = _fresh(templates, cache)
    assert _render(env) == expected and len(compiled) == 2


def test_a_cache_that_cannot_be_written_is_no_cache(templates, tmp_path):
    blocked = tmp_path / "w.jinja"
    blocked.write_text("a file where the folder would be")
    env, compiled = _fresh(templates, blocked)
    assert _render(env) == _render(_fresh(templates, None)[0]) and len(compiled) == 2
    assert blocked.read_text() == "a file where the folder would be"


def test_a_build_keeps_its_compiled_templates_beside_its_warehouse():
    root = built_once()
    project = Project(root)
    entries = list((root / ".warehouse" / "interconnect.jinja").iterdir())
    assert project.template_cache == root / ".warehouse" / "interconnect.jinja"
    # every page's template was rendered, and its partials with it: at least one entry each
    assert len(entries) >= len(discover_pages(project.templates))
    assert all(e.name.endswith(".jinja-code") for e in entries)
