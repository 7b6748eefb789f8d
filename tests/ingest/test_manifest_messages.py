"""Every problem a manifest can have, word for word (pipeline/ingest/manifest.py, ``validate``):
one broken field at a time on a good document, the exact list of problems it gives; and what a
good document becomes."""
from __future__ import annotations

import datetime as dt

import pytest

from pipeline.ingest.manifest import Entry, ManifestError, validate

GOOD = {"campaign": "c1", "kind": "p2p", "title": "T", "date": "2026-08-17",
        "provenance": "captured", "hosts": {"a": {"role": "sender"}},
        "links": {"l1": {"label": "LAN", "interfaces": {"a": "eth0"}}},
        "params": {"mtu": 9000},
        "files": [{"path": "ping.txt", "format": "ping", "context": {"link": "l1"}}]}


def _problems(**changes) -> list[str]:
    doc = {**GOOD, **changes}
    doc = {k: v for k, v in doc.items() if v is not DROP}
    with pytest.raises(ManifestError) as exc:
        validate(doc, "c1", "p2p", "p2p/c1/manifest.yaml")
    assert str(exc.value) == "p2p/c1/manifest.yaml: " + "; ".join(exc.value.problems)
    assert exc.value.manifest == "p2p/c1/manifest.yaml"
    return exc.value.problems


DROP = object()

CASES = [
    ({"campaign": "c2"}, ["campaign: expected the folder's name 'c1' (each campaign folder is one "
                          "campaign), found 'c2'"]),
    ({"kind": "deployment"}, ["kind: expected 'p2p' for a campaign under p2p/, found 'deployment'"]),
    ({"title": 5}, ["title: expected text, found int"]),
    ({"provenance": None}, ["provenance: expected one of reconstructed, captured, found None"]),
    ({"date": "17/08/2026"}, ["date: expected an ISO date such as 2026-08-17, found '17/08/2026'"]),
    ({"date": 20260817}, ["date: expected an ISO date such as 2026-08-17, found 20260817"]),
    ({"hosts": ["a"]}, ["hosts: expected a mapping of host names to {role: …}, found list"]),
    ({"hosts": {1: {"role": "head"}}}, ["hosts: expected host names as text, found 1"]),
    ({"hosts": {"a": {"role": "boss"}}}, ["hosts.a.role: expected one of head, worker, sender, "
                                          "receiver, found 'boss'"]),
    ({"hosts": {"a": "head"}}, ["hosts.a: expected a mapping of names to values, found str"]),
    ({"hosts": {"a": {"role": ["head"]}}}, ["hosts.a.role: expected a string or a number, found list"]),
    ({"hosts": {"a": {2: "x"}}}, ["hosts.a: expected text keys, found 2"]),
    ({"links": "l1"}, ["links: expected a mapping of link ids to attributes, found str"]),
    ({"links": {3: {}}}, ["links: expected link ids as text, found 3"]),
    ({"links": {"l1": "LAN"}}, ["links.l1: expected a mapping (label, class, interfaces …), found str"]),
    ({"links": {"l1": {"label": {"x": 1}}}}, ["links.l1.label: expected a string or a number, found dict"]),
    ({"links": {"l1": {"interfaces": ["eth0"]}}},
     ["links.l1.interfaces: expected a mapping of names to values, found list"]),
    ({"links": {"l1": {"interfaces": {"a": None, "b": ["x"]}}}},
     ["links.l1.interfaces.b: expected a string or a number, found list"]),
    ({"params": [1]}, ["params: expected a mapping, found list"]),
    ({"files": DROP}, ["files: expected a list of the campaign's data files, found no 'files' key"]),
    ({"files": {"path": "x"}}, ["files: expected a list of {path, format, context} entries, found dict"]),
    ({"files": ["ping.txt"]}, ["files[0]: expected a mapping with path and format, found str"]),
    ({"files": [{"path": "a", "format": "ping", "size": 1, "by": "me"}]},
     ["files[0]: expected only path, format and context, found by, size"]),
    ({"files": [{"path": "a", "format": ""}]},
     ["files[0].format: expected a format name (iperf3, ping …), found str"]),
    ({"files": [{"path": "a"}]}, ["files[0].format: expected a format name (iperf3, ping …), found nothing"]),
    ({"files": [{"path": "", "format": "ping"}]},
     ["files[0].path: expected a path relative to the campaign folder, found an empty string"]),
    ({"files": [{"path": 7, "format": "ping"}]},
     ["files[0].path: expected a path relative to the campaign folder, found int"]),
    ({"files": [{"path": "~/x", "format": "ping"}]},
     ["files[0].path: expected a path relative to the campaign folder, found the absolute path '~/x' "
      "(only files inside raw_data/ are read)"]),
    ({"files": [{"path": "a\\b", "format": "ping"}]},
     ["files[0].path: expected a path relative to the campaign folder, found the absolute path "
      "'a\\\\b' (only files inside raw_data/ are read)"]),
    ({"files": [{"path": "sub/../../x", "format": "ping"}]},
     ["files[0].path: expected a path inside the campaign folder, found 'sub/../../x' (it climbs "
      "out with '..')"]),
    ({"files": [{"path": "sub/README.md", "format": "ping"}]},
     ["files[0].path: 'sub/README.md' is the campaign's own README.md, not a data file"]),
    ({"files": [{"path": "manifest.yaml", "format": "ping"}]},
     ["files[0].path: 'manifest.yaml' is the campaign's own manifest.yaml, not a data file"]),
    ({"files": [{"path": "a", "format": "ping"}, {"path": "./a", "format": "iperf3"}]},
     ["files[1].path: a is listed twice"]),
    ({"files": [{"path": "a", "format": "ping", "context": "x"}]},
     ["files[0].context: expected a mapping of names to values, found str"]),
    ({"owner": "me", "extra": 1}, ["expected only the keys campaign, date, files, hard_links, hosts, "
                                   "kind, links, params, provenance, title, found extra, owner"]),
    ({"hard_links": True}, ["hard_links: expected 'allowed' (or no key), found True"]),
]


@pytest.mark.parametrize("changes, expected", CASES, ids=[str(i) for i in range(len(CASES))])
def test_each_problem_word_for_word(changes, expected):
    assert _problems(**changes) == expected


def test_not_a_mapping_at_all():
    with pytest.raises(ManifestError) as exc:
        validate(["campaign"], "c1", "p2p", "m.yaml")
    assert exc.value.problems == ["expected a mapping with campaign, kind and files, found list"]


def test_every_problem_at_once_in_document_order():
    assert _problems(campaign=None, kind=None, title=1.5) == [
        "campaign: expected the folder's name 'c1' (each campaign folder is one campaign), found None",
        "kind: expected 'p2p' for a campaign under p2p/, found None",
        "title: expected text, found float"]


def test_a_good_manifest_becomes_a_campaign():
    c = validate({**GOOD, "date": dt.date(2026, 8, 17), "hosts": {"a": {"role": "sender", "nic": None}},
                  "files": [{"path": "./sub/ping.txt", "format": "ping", "context": {"link": "l1"}},
                            {"path": "iperf.json", "format": "iperf3"}]},
                 "c1", "p2p", "p2p/c1/manifest.yaml")
    assert (c.campaign, c.area, c.kind, c.title, c.date, c.provenance) == \
        ("c1", "p2p", "p2p", "T", "2026-08-17", "captured")
    assert c.hosts == {"a": {"role": "sender", "nic": None}}
    assert c.links == {"l1": {"label": "LAN", "interfaces": {"a": "eth0"}}}
    assert c.params == {"mtu": 9000} and c.manifest_file == "p2p/c1/manifest.yaml"
    assert c.entries == [Entry("sub/ping.txt", "ping", {"link": "l1"}), Entry("iperf.json", "iperf3", {})]


@pytest.mark.parametrize("value, iso", [(dt.datetime(2026, 8, 17, 10, 30), "2026-08-17"),
                                        (" 2026-08-17 ", "2026-08-17"), (None, None)])
def test_dates_in_every_form_yaml_gives(value, iso):
    assert validate({**GOOD, "date": value}, "c1", "p2p", "m").date == iso


def test_optional_fields_may_be_left_out():
    c = validate({k: v for k, v in GOOD.items() if k in ("campaign", "kind", "provenance", "files")},
                 "c1", "p2p", "m")
    assert (c.title, c.date, c.hosts, c.links, c.params) == (None, None, {}, {}, {})
