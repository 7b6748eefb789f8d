"""The site and the optional publish directory are swapped in whole, by one rename."""
import os

from pipeline.publish.site import place, publish, retire, swap_link, sweep, tree_digest


def _build(folder, text):
    folder.mkdir(parents=True)
    (folder / "index.html").write_text(text)
    return folder


def test_swap_link_replaces_target_atomically(tmp_path):
    a = _build(tmp_path / "builds/a", "A")
    b = _build(tmp_path / "builds/b", "B")
    link = tmp_path / "site"
    swap_link(link, a)
    assert (link / "index.html").read_text() == "A"
    swap_link(link, b)
    assert link.is_symlink() and (link / "index.html").read_text() == "B"
    assert not (tmp_path / ".site.swap").exists()


def test_publish_copies_then_swaps_and_drops_the_old_version(tmp_path):
    root = tmp_path / "www" / "html"
    publish(_build(tmp_path / "builds/build-1", "one"), root)
    assert (root / "index.html").read_text() == "one"
    first = root.resolve()
    publish(_build(tmp_path / "builds/build-2", "two"), root)
    assert (root / "index.html").read_text() == "two"
    assert not first.exists()            # the previous published copy is removed after the swap
    assert os.path.islink(root)


def _tree(folder, files: dict):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


SITE = {"index.html": "<h1>home</h1>", "sitemap.xml": "<urlset/>", "search.json": "[]"}


def test_a_build_folder_is_reused_only_when_it_holds_what_its_name_says(tmp_path):
    builds = tmp_path / ".site-builds"
    first = place(builds, _tree(tmp_path / ".site-builds/staging-1", SITE))
    assert first.name == f"build-{tree_digest(first)}"
    # a kill inside the deletion of that folder left part of it under the same name
    (first / "sitemap.xml").unlink()
    (first / "search.json").unlink()
    again = place(builds, _tree(tmp_path / ".site-builds/staging-2", SITE))
    assert again == first and sorted(p.name for p in again.iterdir()) == sorted(SITE)
    assert not list(builds.glob(".trash-*")) and not (builds / "staging-2").exists()
    # an edited page is replaced the same way; an intact folder is kept as it is
    (again / "index.html").write_text("edited by hand")
    third = place(builds, _tree(tmp_path / ".site-builds/staging-3", SITE))
    assert (third / "index.html").read_text() == SITE["index.html"]
    inode = (third / "index.html").stat().st_ino
    fourth = place(builds, _tree(tmp_path / ".site-builds/staging-4", SITE))
    assert (fourth / "index.html").stat().st_ino == inode


def test_retire_renames_out_of_the_build_names_before_deleting(tmp_path, monkeypatch):
    # a kill inside the deletion (here: rmtree fails) leaves a .trash- folder, never a
    # half-deleted build-<digest> folder a later build could take for a whole one
    builds = tmp_path / ".site-builds"
    folder = place(builds, _tree(builds / "staging-1", SITE))
    from pipeline.publish import site
    monkeypatch.setattr(site.shutil, "rmtree", lambda *a, **k: None)
    retire(folder)
    assert not folder.exists() and [p.name.startswith(".trash-build-") for p in builds.iterdir()] == [True]
    monkeypatch.undo()
    sweep(builds, ".trash-*")
    assert list(builds.iterdir()) == []


def test_publish_replaces_a_published_copy_that_no_longer_holds_the_build(tmp_path):
    root = tmp_path / "www" / "html"
    build = place(tmp_path / "builds", _tree(tmp_path / "builds/staging-1", SITE))
    publish(build, root)
    (root / "sitemap.xml").unlink()                        # damaged in place
    publish(build, root)
    assert sorted(p.name for p in root.iterdir()) == sorted(SITE)
