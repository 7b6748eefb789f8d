"""The page cache (pipeline/publish/page_cache.py) changes no byte of the site and keeps no
check: a site built with the cache, cold and warm, equals the one built without it, on a small
site of our own and on the committed tree's docs/; a link to a page that is gone, or to an
anchor that is gone, still fails the strict build when the page holding the link is unchanged;
a conversion that warned is converted (and warns) again; a damaged entry is converted again;
what a build did not use is deleted.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from built_tree import built_once

from pipeline.publish.page_cache import ENV, FOLDER

CONFIG = """site_name: cache test
docs_dir: docs
strict: {strict}
validation:
  links:
    anchors: warn
theme:
  name: material
plugins:
  - page-cache
  - search
markdown_extensions:
  - tables
  - attr_list
  - toc:
      permalink: true
  - pipeline.publish.element_ids
nav:
  - Home: index.md
  - A: a.md
  - B: b.md
"""
PAGES = {
    "index.md": "# Home\n\nSee [A](a.md) and [B's section](b.md#second).\n\n| x | y |\n|---|---|\n"
                "| 1 | 2 |\n",
    "a.md": "# A\n\n## First\n\nText of A, and [home](index.md).\n",
    "b.md": "# B\n\n## Second\n\n| k | v |\n|---|---|\n| a | 1 |\n\nBack to [A](a.md#first).\n",
}


def _site(root: Path, strict: bool = True, pages: dict | None = None) -> Path:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "mkdocs.yml").write_text(CONFIG.format(strict=str(strict).lower()), encoding="utf-8")
    for name, text in (pages or PAGES).items():
        (root / "docs" / name).write_text(text, encoding="utf-8")
    return root


def _build(root: Path, out: str, cache: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, ENV: "1" if cache else "0", "NO_MKDOCS_2_WARNING": "1", "SITE_URL": ""}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", "mkdocs.yml",
                           "-d", str(root / out)], cwd=root, env=env, capture_output=True,
                          text=True)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _counts(err: str) -> tuple[int, int]:
    """(kept, converted) from the plugin's line in the build's log."""
    found = re.search(r"page-cache: (\d+) page\(s\) kept, (\d+) converted", err)
    assert found, err[-2000:]
    return int(found.group(1)), int(found.group(2))


def test_cold_and_warm_builds_equal_a_build_without_the_cache(tmp_path):
    root = _site(tmp_path)
    assert _build(root, "plain", cache=False).returncode == 0
    assert not (root / FOLDER).exists()
    cold = _build(root, "cold")
    warm = _build(root, "warm")
    assert cold.returncode == warm.returncode == 0, cold.stderr + warm.stderr
    assert _counts(cold.stderr) == (0, 3) and _counts(warm.stderr) == (3, 0)
    plain = _files(root / "plain")
    assert _files(root / "cold") == plain and _files(root / "warm") == plain
    # one page edited: that one converted, the other two kept, the same bytes as without
    (root / "docs" / "a.md").write_text(PAGES["a.md"] + "\nMore text.\n", encoding="utf-8")
    edited = _build(root, "edited")
    assert _counts(edited.stderr) == (2, 1)
    assert _build(root, "edited-plain", cache=False).returncode == 0
    assert _files(root / "edited") == _files(root / "edited-plain")


def test_a_link_to_a_page_that_is_gone_fails_though_the_linking_page_is_kept(tmp_path):
    # c.md is outside the nav, so removing it leaves mkdocs.yml (part of every key) as it was
    pages = {**PAGES, "a.md": PAGES["a.md"] + "\nSee [C](c.md).\n", "c.md": "# C\n"}
    root = _site(tmp_path, pages=pages)
    assert _build(root, "first").returncode == 0
    (root / "docs" / "c.md").unlink()
    done = _build(root, "second")
    assert done.returncode != 0
    assert _counts(done.stderr) == (2, 1)     # a.md's conversion was not used: its link changed
    assert "'a.md' contains a link 'c.md'" in done.stderr, done.stderr


def test_a_link_to_an_anchor_that_is_gone_fails_though_the_linking_page_is_kept(tmp_path):
    root = _site(tmp_path)
    assert _build(root, "first").returncode == 0
    (root / "docs" / "b.md").write_text(PAGES["b.md"].replace("## Second", "## Renamed"),
                                        encoding="utf-8")
    done = _build(root, "second")                 # index.md kept, its link into b.md checked
    assert done.returncode != 0 and _counts(done.stderr) == (2, 1)
    assert "'b.md#second'" in done.stderr and "not contain an anchor '#second'" in done.stderr


def test_a_link_into_a_kept_page_is_checked_against_that_pages_kept_anchors(tmp_path):
    root = _site(tmp_path)
    assert _build(root, "first").returncode == 0
    (root / "docs" / "index.md").write_text(PAGES["index.md"] + "\n[Nope](b.md#nope)\n",
                                            encoding="utf-8")
    done = _build(root, "second")                 # b.md kept, its anchors read from the cache
    assert done.returncode != 0 and _counts(done.stderr) == (2, 1)
    assert "'b.md#nope'" in done.stderr and "not contain an anchor '#nope'" in done.stderr


def test_a_conversion_that_warned_is_converted_and_warns_again(tmp_path):
    pages = {**PAGES, "a.md": PAGES["a.md"] + "\n[missing](nowhere.md)\n"}
    root = _site(tmp_path, strict=False, pages=pages)
    for out in ("first", "second"):
        done = _build(root, out)
        assert done.returncode == 0
        assert "contains a link 'nowhere.md'" in done.stderr, (out, done.stderr)
    assert _counts(done.stderr) == (2, 1)


def test_a_damaged_entry_is_converted_again_and_what_is_unused_is_deleted(tmp_path):
    root = _site(tmp_path)
    assert _build(root, "first").returncode == 0
    entries = sorted((root / FOLDER).glob("*.json"))
    assert len(entries) == 6                     # each page's conversion and search entries
    for entry in entries:
        entry.write_text('{"content": 1', encoding="utf-8")       # cut short
    again = _build(root, "again")
    assert again.returncode == 0 and _counts(again.stderr) == (0, 3)
    assert _files(root / "again") == _files(root / "first")
    (root / "docs" / "a.md").write_text(PAGES["a.md"] + "\nMore.\n", encoding="utf-8")
    assert _build(root, "third").returncode == 0
    assert len(list((root / FOLDER).glob("*.json"))) == 6       # a.md's old entries gone
    assert not list((root / FOLDER).glob("*.tmp"))


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The committed tree's docs/ and mkdocs.yml, as the session's build left them."""
    import shutil
    root = tmp_path_factory.mktemp("shipped-site")
    built = built_once()
    shutil.copytree(built / "docs", root / "docs")
    shutil.copy(built / "mkdocs.yml", root / "mkdocs.yml")
    return root


def test_the_committed_sites_pages_are_the_same_bytes_with_and_without_the_cache(shipped):
    plain = _build(shipped, "plain", cache=False)
    assert plain.returncode == 0, plain.stderr[-2000:]
    cold, warm = _build(shipped, "cold"), _build(shipped, "warm")
    assert cold.returncode == warm.returncode == 0, cold.stderr[-2000:] + warm.stderr[-2000:]
    pages = len(list((shipped / "docs").rglob("*.md"))) - len(
        list((shipped / "docs" / "includes").rglob("*.md")))
    assert _counts(cold.stderr) == (0, pages) and _counts(warm.stderr) == (pages, 0)
    expected = _files(shipped / "plain")
    assert _files(shipped / "cold") == expected
    assert _files(shipped / "warm") == expected


def test_the_site_build_reports_what_the_cache_kept_and_nothing_when_it_is_off(shipped,
                                                                              monkeypatch):
    from pipeline.project import Project
    from pipeline.publish.site import build_site
    pages = len(list((shipped / "docs").rglob("*.md"))) - len(
        list((shipped / "docs" / "includes").rglob("*.md")))
    monkeypatch.setenv(ENV, "1")
    first = build_site(Project(shipped))     # fills the cache, whatever ran before on this tree
    assert first.pages_kept + first.pages_converted == pages
    built = build_site(Project(shipped))
    assert (built.pages_kept, built.pages_converted) == (pages, 0)
    assert built.path.parent == shipped / ".site-builds" and built.path.is_dir()
    monkeypatch.setenv(ENV, "0")
    assert build_site(Project(shipped))[1:] == (None, None)


def test_the_strict_site_build_fails_on_a_warning_and_names_it_first(tmp_path):
    # mkdocs --quiet would silence the warning and --strict would then pass: the build runs
    # without it, and the error's first line is the warning
    from pipeline.project import Project
    from pipeline.publish.site import SiteBuildError, build_site
    pages = {**PAGES, "a.md": PAGES["a.md"] + "\n[gone](b.md#nowhere)\n"}
    root = _site(tmp_path, pages=pages)
    with pytest.raises(SiteBuildError) as failed:
        build_site(Project(root))
    first = str(failed.value).splitlines()[0]
    assert first.startswith("mkdocs build --strict failed: WARNING")
    assert "'b.md#nowhere'" in first and "not contain an anchor '#nowhere'" in first
    assert not list((root / ".site-builds").glob("staging-*"))
