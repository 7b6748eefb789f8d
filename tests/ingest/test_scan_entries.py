"""What a scan refuses or leaves out, entry by entry (pipeline/ingest/scan.py): the folders
under an area that cannot be campaigns, and the files inside a campaign that are not read
(links, devices, undecodable names), each with its status and its exact reason."""
from __future__ import annotations

import os

from pipeline.ingest.scan import _present, rejected_folders, shown_name


def test_entries_under_an_area_that_cannot_be_campaigns(tmp_path):
    raw = tmp_path / "raw_data"
    deployments, p2p = raw / "deployments", raw / "p2p"
    (deployments / "good-1").mkdir(parents=True)
    (deployments / "bad name").mkdir()
    (deployments / "README.md").write_text("about\n")       # an area's README is expected
    (deployments / "stray.txt").write_text("x")
    (p2p / "_hidden").mkdir(parents=True)
    os.symlink(deployments / "good-1", p2p / "linked")
    got = [(e.source_file, e.status, e.reason, e.campaign, e.format) for e in rejected_folders(raw)]
    assert got == [
        ("deployments/bad name", "bad_name",
         "deployments/bad name: expected a campaign folder name of letters, digits, '.', '_' or "
         "'-' (at most 64, starting with a letter or digit), found 'bad name'", None, None),
        ("deployments/stray.txt", "unlisted",
         "deployments/stray.txt: a file outside any campaign folder", None, None),
        ("p2p/_hidden", "bad_name",
         "p2p/_hidden: expected a campaign folder name of letters, digits, '.', '_' or '-' (at "
         "most 64, starting with a letter or digit), found '_hidden'", None, None),
        ("p2p/linked", "refused",
         "p2p/linked: a symbolic link; only regular files and folders inside raw_data/ are read",
         None, None),
    ]


def test_an_area_that_is_a_link_or_missing_is_not_looked_into(tmp_path):
    raw = tmp_path / "raw_data"
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "bad name").mkdir(parents=True)
    raw.mkdir()
    os.symlink(elsewhere, raw / "p2p")                       # and deployments/ does not exist
    assert rejected_folders(raw) == []


def test_an_undecodable_folder_name_is_shown_with_its_bytes(tmp_path):
    raw = tmp_path / "raw_data"
    (raw / "p2p").mkdir(parents=True)
    os.mkdir(os.fsencode(raw / "p2p") + b"/caf\xe9")
    (entry,) = rejected_folders(raw)
    assert entry.source_file == "p2p/caf\\xe9" and entry.status == "bad_name"
    assert entry.reason.endswith("found 'caf\\\\xe9'")
    assert shown_name(os.fsdecode(b"caf\xe9")) == "caf\\xe9"


def test_files_a_campaign_folder_holds_but_does_not_read(tmp_path):
    raw = tmp_path / "raw_data"
    folder = raw / "p2p" / "c"
    (folder / "sub").mkdir(parents=True)
    (folder / "data.txt").write_text("x")
    (folder / "sub" / "more.txt").write_text("y")
    (folder / "manifest.yaml").write_text("campaign: c\n")     # the campaign's own files: not data
    (folder / "README.md").write_text("notes\n")
    (folder / "sub" / "README.md").write_text("a README below the top is data\n")
    (folder / ".hidden").write_text("z")
    os.symlink(folder / "data.txt", folder / "link.txt")
    os.symlink(folder / "sub", folder / "linked-dir")
    os.mkfifo(folder / "pipe")
    with open(os.fsencode(folder) + b"/bad\xff.txt", "w") as fh:
        fh.write("q")
    files, refused = _present(raw, folder)
    assert sorted(files) == ["p2p/c/data.txt", "p2p/c/sub/README.md", "p2p/c/sub/more.txt"]
    assert files["p2p/c/data.txt"] == folder / "data.txt"
    assert sorted((e.source_file, e.status, e.reason) for e in refused) == [
        ("p2p/c/bad\\xff.txt", "bad_name",
         "p2p/c/bad\\xff.txt: expected a UTF-8 file name, found undecodable bytes; rename the file"),
        ("p2p/c/link.txt", "refused",
         "p2p/c/link.txt: a symbolic link; only regular files inside raw_data/ are read"),
        ("p2p/c/linked-dir", "refused",
         "p2p/c/linked-dir: a symbolic link to a folder; links are not followed"),
        ("p2p/c/pipe", "refused", "p2p/c/pipe: not a regular file (device, FIFO or socket)"),
    ]
