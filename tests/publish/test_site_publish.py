"""The site and the optional publish directory are swapped in whole, by one rename."""
import os

from pipeline.publish.site import publish, swap_link


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
