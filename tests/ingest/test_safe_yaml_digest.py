"""Manifest YAML bounded before it is built (pipeline/ingest/safe_yaml.py), each refusal word for
word and at its limit; and a campaign folder's content digest (pipeline/ingest/digest.py): what
changes it and what does not."""
from __future__ import annotations

import os

import pytest

from pipeline.ingest import digest, safe_yaml
from pipeline.ingest.safe_yaml import MAX_BYTES, MAX_SCALAR_CHARS, ManifestYamlError


def _load(tmp_path, data: bytes):
    path = tmp_path / "manifest.yaml"
    path.write_bytes(data)
    return safe_yaml.load(path, "p2p/c/manifest.yaml")


def _refused(tmp_path, data: bytes) -> str:
    with pytest.raises(ManifestYamlError) as exc:
        _load(tmp_path, data)
    return str(exc.value)


def test_plain_yaml_is_read(tmp_path):
    assert _load(tmp_path, b"campaign: c\nfiles:\n  - {path: a, format: ping}\n") == \
        {"campaign": "c", "files": [{"path": "a", "format": "ping"}]}


def test_an_alias_is_refused_on_its_line(tmp_path):
    assert _refused(tmp_path, b"a: &x [1]\nb: 2\nc: *x\n") == (
        "p2p/c/manifest.yaml:3: expected plain values, found the alias *x (aliases and merge keys "
        "are not allowed in a manifest)")


def test_a_key_given_twice_is_refused_with_both_lines(tmp_path):
    # PyYAML alone keeps the last: "reconstructed" would silently override "captured"
    assert _refused(tmp_path, b"campaign: c\nprovenance: captured\nfiles: []\n"
                              b"provenance: reconstructed\n") == (
        "p2p/c/manifest.yaml:4: expected each key once in a mapping, found 'provenance' again "
        "(first on line 2); keep the one you mean")
    # inside a list's mapping too, on the line of the second
    assert _refused(tmp_path, b"files:\n  - path: a\n    format: ping\n    format: iperf3\n") == (
        "p2p/c/manifest.yaml:4: expected each key once in a mapping, found 'format' again "
        "(first on line 3); keep the one you mean")


def test_keys_that_differ_in_type_are_two_keys(tmp_path):
    # 1 (an integer) and "1" (a string) are different keys in YAML
    assert _load(tmp_path, b"1: a\n'1': b\n") == {1: "a", "1": "b"}


def test_a_value_may_be_4096_characters_not_more(tmp_path):
    assert MAX_SCALAR_CHARS == 4096
    assert _load(tmp_path, b"a: " + b"x" * 4096 + b"\n") == {"a": "x" * 4096}
    assert _refused(tmp_path, b"a: 1\nb: " + b"x" * 4097 + b"\n") == (
        "p2p/c/manifest.yaml:2: expected a value of at most 4096 characters, found 4097")


def test_eight_levels_of_nesting_below_the_top_and_not_nine(tmp_path):
    # k nested lists: the outermost is level 0, the innermost level k - 1
    assert _load(tmp_path, b"[" * 9 + b"]" * 9) == [[[[[[[[[]]]]]]]]]
    assert _refused(tmp_path, b"\n" + b"[" * 10 + b"]" * 10) == (
        "p2p/c/manifest.yaml:2: expected at most 8 levels of nesting, found more")


def test_a_manifest_may_be_a_megabyte_not_more(tmp_path):
    assert MAX_BYTES == 1 << 20
    filler = b"# " + b"x" * (MAX_BYTES - 2 - len(b"\na: 1\n")) + b"\na: 1\n"
    assert len(filler) == MAX_BYTES and _load(tmp_path, filler) == {"a": 1}
    assert _refused(tmp_path, filler + b"\n") == (
        f"p2p/c/manifest.yaml: expected a manifest of at most {MAX_BYTES} bytes, found {MAX_BYTES + 1}")


def test_bytes_that_are_not_utf8_are_named_by_line(tmp_path):
    assert _refused(tmp_path, b"a: 1\nb: 2\nc: \xe9t\xe9\n") == (
        "p2p/c/manifest.yaml:3: expected UTF-8 text, found byte 0xe9")


def test_broken_yaml_names_its_line_and_the_parsers_words(tmp_path):
    assert _refused(tmp_path, b"a: 1\nb: [1, 2\nc: 3\n") == (
        "p2p/c/manifest.yaml:3: expected valid YAML, found expected ',' or ']', but got ':'")


# --- the folder digest ----------------------------------------------------------------------

def test_a_digest_sees_bytes_names_and_links_but_not_times(tmp_path):
    folder = tmp_path / "c"
    assert digest.folder_digest(folder) is None                 # no folder: nothing to compare
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_bytes(b"1")
    (folder / "sub" / "b.txt").write_bytes(b"2")
    first = digest.folder_digest(folder)
    assert len(first) == 64
    os.utime(folder / "a.txt", (1, 1))                          # a touch: the same bytes
    assert digest.folder_digest(folder) == first
    (folder / "a.txt").write_bytes(b"3")                        # new bytes
    changed = digest.folder_digest(folder)
    assert changed != first
    (folder / "a.txt").write_bytes(b"1")                        # the old bytes again
    assert digest.folder_digest(folder) == first
    (folder / "sub" / "b.txt").write_bytes(b"4")                # new bytes one folder down
    assert digest.folder_digest(folder) not in (first, changed)
    (folder / "sub" / "b.txt").write_bytes(b"2")
    assert digest.folder_digest(folder) == first
    (folder / "a.txt").rename(folder / "c.txt")                 # a rename
    assert digest.folder_digest(folder) != first
    (folder / "c.txt").rename(folder / "a.txt")
    os.symlink("a.txt", folder / "l")                           # a link: by its target text
    linked = digest.folder_digest(folder)
    assert linked != first
    os.remove(folder / "l")
    os.symlink("sub", folder / "l")
    assert digest.folder_digest(folder) not in (first, linked)


def test_a_linked_folder_is_an_entry_never_walked_into(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_bytes(b"x")
    folder = tmp_path / "c"
    folder.mkdir()
    os.symlink(outside, folder / "linked")
    before = digest.folder_digest(folder)
    (outside / "x.txt").write_bytes(b"changed outside the tree")
    assert digest.folder_digest(folder) == before


def test_each_kind_of_entry_has_its_own_text(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    os.symlink("f", tmp_path / "l")
    os.mkfifo(tmp_path / "p")
    import hashlib
    assert digest._entry(tmp_path / "f") == hashlib.sha256(b"abc").hexdigest()
    assert digest._entry(tmp_path / "l") == "link:f"
    assert digest._entry(tmp_path / "p") == "special:4096"          # stat.S_IFIFO
