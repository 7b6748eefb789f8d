"""One campaign folder scanned (pipeline/ingest/scan.py: scan_campaign), entry by entry: every
status a file can get beside a good manifest, with its campaign, format and exact reason; what
an absent, broken or linked manifest does to the files; twins ingested once; the digests."""
from __future__ import annotations

import hashlib
import os

from pipeline.ingest.digest import folder_digest
from pipeline.ingest.scan import campaign_folders, scan_campaign

MANIFEST = """campaign: c1
kind: deployment
date: 2026-08-17
provenance: captured
hosts: {a: {role: head}}
files:
  - path: gone.txt
    format: ping
  - path: one.txt
    format: ping
    context: {link: l1, gbit: 10}
  - path: twin.txt
    format: ping
    context: {gbit: 10, link: l1}
  - path: linked.txt
    format: ping
  - path: sub/inner.txt
    format: ping
"""


def _folder(tmp_path, manifest=MANIFEST):
    raw = tmp_path / "raw_data"
    folder = raw / "deployments" / "c1"
    (tmp_path / "elsewhere").mkdir()
    folder.mkdir(parents=True)
    for name, text in (("one.txt", "PING"), ("twin.txt", "PING"), ("odd.txt", "pcap bytes"),
                       ("stray.txt", "stray!")):
        (folder / name).write_text(text)
    (tmp_path / "elsewhere" / "inner.txt").write_text("outside")
    os.symlink(folder / "one.txt", folder / "linked.txt")
    os.symlink(tmp_path / "elsewhere", folder / "sub")
    if manifest is not None:
        (folder / "manifest.yaml").write_text(manifest)
    return raw, folder


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_every_status_beside_a_good_manifest(tmp_path):
    raw, folder = _folder(tmp_path)
    scan = scan_campaign(raw, "deployments", "c1", {"ping", "iperf3"})
    m = "deployments/c1/manifest.yaml"
    got = [(e.source_file, e.campaign, e.format, e.status, e.reason) for e in scan.files]
    link = "listed in deployments/c1/manifest.yaml but a symbolic link or not a regular file; " \
           "only regular files inside raw_data/ are read"
    assert got == [
        ("deployments/c1/gone.txt", "c1", "ping", "missing", f"{m} lists gone.txt, which does not exist"),
        ("deployments/c1/one.txt", "c1", "ping", "listed", None),
        # the same bytes and the same context (its keys in another order): read once
        ("deployments/c1/twin.txt", "c1", "ping", "duplicate",
         f"deployments/c1/twin.txt: same content (sha256 {_sha('PING')[:12]}) and context as "
         "deployments/c1/one.txt; ingested once"),
        ("deployments/c1/linked.txt", "c1", "ping", "refused", f"deployments/c1/linked.txt: {link}"),
        ("deployments/c1/sub/inner.txt", "c1", "ping", "refused",
         f"deployments/c1/sub/inner.txt: {link}"),
        ("deployments/c1/odd.txt", "c1", None, "unlisted",
         f"deployments/c1/odd.txt: not listed in {m}, so its context is unknown"),
        ("deployments/c1/stray.txt", "c1", None, "unlisted",
         f"deployments/c1/stray.txt: not listed in {m}, so its context is unknown"),
        # the linked folder itself, found by the walk (the listed link above replaced its entry)
        ("deployments/c1/sub", "c1", None, "refused",
         "deployments/c1/sub: a symbolic link to a folder; links are not followed"),
    ]
    sizes = {e.source_file.rsplit("/", 1)[1]: (e.size_bytes, e.sha256) for e in scan.files}
    # read files are measured and hashed; refused and missing ones are never opened
    assert sizes["one.txt"] == (4, _sha("PING")) and sizes["odd.txt"] == (10, _sha("pcap bytes"))
    assert sizes["stray.txt"] == (6, _sha("stray!"))
    assert sizes["linked.txt"] == sizes["gone.txt"] == sizes["inner.txt"] == (None, None)
    assert scan.problem is None and scan.campaign.campaign == "c1"
    assert scan.content_sha256 == folder_digest(folder)
    assert scan.manifest_sha256 == _sha(MANIFEST)


WITH_ODD = MANIFEST + """  - path: odd.txt
    format: pcap
  - path: stray.txt
    format: pnig
"""


def test_a_format_no_parser_has_withholds_the_campaign_naming_each_entry(tmp_path):
    """A typo ('pnig') or a format the project does not read ('pcap') is a manifest problem:
    the campaign is withheld with the entries named, as any other manifest problem."""
    raw, _ = _folder(tmp_path, manifest=WITH_ODD)
    scan = scan_campaign(raw, "deployments", "c1", {"ping", "iperf3"})
    assert scan.campaign is None
    # entries 0-4 are MANIFEST's five (gone, one, twin, linked, sub/inner): odd is 5, stray 6
    assert scan.problem == (
        "deployments/c1/manifest.yaml: files[5].format: 'pcap' (odd.txt) has no parser "
        "(known: iperf3, ping); files[6].format: 'pnig' (stray.txt) has no parser (known: "
        "iperf3, ping); did you mean 'ping'?")
    held = {e.source_file.rsplit("/", 1)[1]: (e.status, e.reason) for e in scan.files
            if e.status == "bad_manifest"}
    assert sorted(held) == ["odd.txt", "one.txt", "stray.txt", "twin.txt"]
    assert {r for _, r in held.values()} == {scan.problem}


def test_without_formats_no_format_is_checked(tmp_path):
    raw, _ = _folder(tmp_path, manifest=WITH_ODD)
    scan = scan_campaign(raw, "deployments", "c1")
    assert {e.source_file: e.status for e in scan.files}["deployments/c1/odd.txt"] == "listed"


def test_without_a_manifest_every_file_waits_for_one(tmp_path):
    raw, folder = _folder(tmp_path, manifest=None)
    scan = scan_campaign(raw, "deployments", "c1", {"ping"})
    problem = "deployments/c1: no manifest.yaml gives these files their context"
    assert scan.problem == problem and scan.campaign is None
    got = [(e.source_file, e.campaign, e.status, e.reason, e.sha256) for e in scan.files]
    assert got == [
        ("deployments/c1/odd.txt", "c1", "no_manifest", problem, _sha("pcap bytes")),
        ("deployments/c1/one.txt", "c1", "no_manifest", problem, _sha("PING")),
        ("deployments/c1/stray.txt", "c1", "no_manifest", problem, _sha("stray!")),
        ("deployments/c1/twin.txt", "c1", "no_manifest", problem, _sha("PING")),
        ("deployments/c1/sub", "c1", "refused",
         "deployments/c1/sub: a symbolic link to a folder; links are not followed", None),
        ("deployments/c1/linked.txt", "c1", "refused",
         "deployments/c1/linked.txt: a symbolic link; only regular files inside raw_data/ are read",
         None),
    ]
    assert scan.content_sha256 == folder_digest(folder) and scan.manifest_sha256 is None


def test_a_broken_manifest_holds_every_file_and_is_still_hashed(tmp_path):
    bad = "campaign: c1\nkind: [\n"
    raw, _ = _folder(tmp_path, manifest=bad)
    scan = scan_campaign(raw, "deployments", "c1", {"ping"})
    assert scan.problem.startswith("deployments/c1/manifest.yaml:") and scan.campaign is None
    held = [e for e in scan.files if e.status == "bad_manifest"]
    assert [e.source_file.rsplit("/", 1)[1] for e in held] == ["odd.txt", "one.txt", "stray.txt", "twin.txt"]
    assert {e.reason for e in held} == {scan.problem} and all(e.sha256 for e in held)
    assert scan.manifest_sha256 == _sha(bad)


def test_a_linked_manifest_is_not_read(tmp_path):
    raw, folder = _folder(tmp_path, manifest=None)
    (tmp_path / "elsewhere" / "manifest.yaml").write_text(MANIFEST)
    os.symlink(tmp_path / "elsewhere" / "manifest.yaml", folder / "manifest.yaml")
    scan = scan_campaign(raw, "deployments", "c1", {"ping"})
    assert scan.problem == ("deployments/c1/manifest.yaml: a symbolic link; the manifest must be "
                            "a regular file")
    assert scan.campaign is None and scan.manifest_sha256 is None
    assert {e.status for e in scan.files} == {"bad_manifest", "refused"}


def test_a_linked_campaign_folder_is_no_campaign(tmp_path):
    raw, folder = _folder(tmp_path)
    os.symlink(folder, raw / "deployments" / "c2")
    assert [(a, n) for a, n, _ in campaign_folders(raw)] == [("deployments", "c1")]


def test_a_hard_link_is_refused_unless_the_manifest_allows_it(tmp_path):
    # raw_data/…/one.txt and elsewhere/secret.txt are one file: an edit outside raw_data/
    # would change a measurement behind the manifest's back
    raw, folder = _folder(tmp_path)
    os.link(folder / "one.txt", tmp_path / "elsewhere" / "secret.txt")
    scan = scan_campaign(raw, "deployments", "c1", formats={"ping"})
    one = next(e for e in scan.files if e.source_file == "deployments/c1/one.txt")
    assert (one.status, one.reason) == ("refused", (
        "deployments/c1/one.txt: a hard link (2 names for the same bytes), so a file outside "
        "raw_data/ may be it and change it; copy it in (cp without -l), or put 'hard_links: "
        "allowed' in deployments/c1/manifest.yaml if every name is yours"))
    # the manifest opts in: read as any other file
    (folder / "manifest.yaml").write_text(MANIFEST + "hard_links: allowed\n")
    scan = scan_campaign(raw, "deployments", "c1", formats={"ping"})
    one = next(e for e in scan.files if e.source_file == "deployments/c1/one.txt")
    assert one.status == "listed" and one.sha256 == _sha("PING")


def test_a_scan_reads_each_file_once_and_sees_an_edit_whose_mtime_was_put_back(tmp_path,
                                                                              monkeypatch):
    # the folder's content digest and each entry's sha256 are of the same bytes: one read (a
    # 1 GB capture was read twice by every scan, once for each); hashes are remembered per
    # (path, inode, size, mtime, ctime), so an edit is read again even when its mtime is not new
    from pipeline.ingest import scan as scan_module
    from pipeline.util import hashing
    raw, folder = _folder(tmp_path)
    hashing._cached.cache_clear()
    reads: list[str] = []

    def counted(real):
        return lambda path: reads.append(os.path.basename(path)) or real(path)

    monkeypatch.setattr(hashing, "sha256_of", counted(hashing.sha256_of))
    monkeypatch.setattr(scan_module, "sha256_of", counted(scan_module.sha256_of))
    scan = scan_campaign(raw, "deployments", "c1", formats={"ping"})
    # the folder's five regular files once each (linked.txt and the linked sub/ are never read),
    # and the manifest once more where it is validated (a few hundred bytes)
    assert sorted(reads) == ["manifest.yaml", "manifest.yaml", "odd.txt", "one.txt", "stray.txt",
                             "twin.txt"], reads
    one = next(e for e in scan.files if e.source_file == "deployments/c1/one.txt")
    assert one.sha256 == _sha("PING")

    st = (folder / "one.txt").stat()
    (folder / "one.txt").write_text("PONG")                 # same size, mtime put back
    os.utime(folder / "one.txt", ns=(st.st_atime_ns, st.st_mtime_ns))
    reads.clear()
    scan = scan_campaign(raw, "deployments", "c1", formats={"ping"})
    one = next(e for e in scan.files if e.source_file == "deployments/c1/one.txt")
    assert one.sha256 == _sha("PONG")
    assert sorted(reads) == ["manifest.yaml", "one.txt"], reads     # the rest remembered
