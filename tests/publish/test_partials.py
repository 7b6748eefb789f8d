"""A page reads the marts its own front matter names and those its partials declare, found
through Jinja's parser (includes of includes too); What changed is discovered like every page
and told apart by ``rendered_by``."""
import pytest

from pipeline.publish import pages


def _template(root, rel, marts=None, body=""):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    head = "" if marts is None else "{#---\nmarts: [" + ", ".join(marts) + "]\n---#}\n"
    path.write_text(head + body)
    return path


def test_a_page_reads_its_own_marts_then_its_partials_in_include_order(tmp_path):
    _template(tmp_path, "page.md.j2", ["a", "b"],
              '{% include "partials/p.md.j2" %}\n{% from "partials/m.md.j2" import x %}\n')
    _template(tmp_path, "partials/p.md.j2", ["c", "a"], '{% include "partials/q.md.j2" %}\n')
    _template(tmp_path, "partials/q.md.j2", ["d"])
    _template(tmp_path, "partials/m.md.j2", None, "{% macro x() %}{% endmacro %}")   # declares none
    (page,) = pages.discover_pages(tmp_path)
    # own (a, b), then p's (c; a already there), then q's through p (d)
    assert page.marts == ("a", "b", "c", "d")


def test_an_include_circle_does_not_loop(tmp_path):
    _template(tmp_path, "page.md.j2", ["a"], '{% include "partials/p.md.j2" %}')
    _template(tmp_path, "partials/p.md.j2", ["b"], '{% include "partials/q.md.j2" %}')
    _template(tmp_path, "partials/q.md.j2", ["c"], '{% include "partials/p.md.j2" %}')
    (page,) = pages.discover_pages(tmp_path)
    assert page.marts == ("a", "b", "c")


def test_the_ledger_page_is_discovered_apart(tmp_path):
    _template(tmp_path, "page.md.j2", ["a"])
    (tmp_path / "what-changed.md.j2").write_text("{#---\ntitle: What changed\nrendered_by: ledger\n"
                                                "marts: []\n---#}\n")
    assert [p.name for p in pages.discover_pages(tmp_path)] == ["page"]
    assert [p.name for p in pages.discover_pages(tmp_path, rendered_by="ledger")] == ["what-changed"]
    (tmp_path / "odd.md.j2").write_text("{#---\nrendered_by: python\nmarts: []\n---#}\n")
    with pytest.raises(pages.PageError, match="rendered_by must be one of marts, ledger, found 'python'"):
        pages.discover_pages(tmp_path)
