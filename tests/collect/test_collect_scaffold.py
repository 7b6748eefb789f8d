"""``python -m pipeline.collect scaffold``: a manifest written from the tool outputs in a folder,
asking only what the tools cannot know (issue 38). The folders are copies of shipped campaigns
with their manifest taken away, as a user would have them after copying tool outputs by hand,
and files of other projects' test suites."""
from __future__ import annotations

import shutil

import pytest
import yaml

from pipeline.collect import questions as qs
from pipeline.collect.__main__ import main
from pipeline.collect.scaffold import scaffold

from paths import REPO

QWEN = REPO / "raw_data/deployments/qwen38-27b-pp"


def _bare(tmp_path, src=QWEN, name="mine"):
    dest = tmp_path / "raw_data" / src.parent.name / name
    shutil.copytree(src, dest)
    (dest / "manifest.yaml").unlink()
    (dest / "README.md").unlink()
    return dest


def _manifest(folder):
    return yaml.safe_load((folder / "manifest.yaml").read_text())


@pytest.mark.parametrize("manifest", sorted(REPO.glob("raw_data/*/*/manifest.yaml")),
                         ids=lambda m: m.parent.name)
def test_every_shipped_file_is_given_the_format_its_manifest_names(tmp_path, manifest):
    folder = tmp_path / manifest.parent.name
    shutil.copytree(manifest.parent, folder)
    (folder / "manifest.yaml").unlink()
    _, outputs, found = scaffold(folder, qs.Asker({}, interactive=False))
    want = {f["path"]: f["format"] for f in yaml.safe_load(manifest.read_text())["files"]}
    assert {o.path: o.format for o in outputs} == want
    assert [f.path for f in found if f.format is None] == []


SETS = {  # what no tool output says: which link the iperf3 runs and captures used, the links'
    # names and classes, claw's interface on each (it has two ethtool files), the title
    **{f"files.{p}.link": "gbe25" for p in (
        "iperf3/claw-to-server.json", "iperf3/server-to-claw.json", "netdev/claw-prefill.netdev",
        "netdev/claw-snapshot.netdev", "netdev/server-prefill.netdev", "netdev/server-snapshot.netdev")},
    "links.gbe25.label": "2.5 GbE", "links.gbe25.class": "2.5gbe",
    "links.gbe25.interfaces.claw": "eno1",
    "links.gbe1_usb.label": "1 GbE USB-C", "links.gbe1_usb.class": "1gbe",
    "links.gbe1_usb.interfaces.claw": "enx00e04cc2e1e5",
    "links.gbe25.nominal_speed": "no", "links.gbe1_usb.nominal_speed": "no",
    "title": "Qwen3.8-27B pipeline-parallel deployment",
}


def test_the_shipped_deployment_is_scaffolded_back_to_its_own_manifest(tmp_path, capsys):
    folder = _bare(tmp_path, name="qwen38-27b-pp")
    argv = ["scaffold", "--campaign-dir", str(folder), "--defaults"]
    assert main(argv + [a for k, v in SETS.items() for a in ("--set", f"{k}={v}")]) == 0
    got, shipped = _manifest(folder), yaml.safe_load((QWEN / "manifest.yaml").read_text())
    # every file's context as shipped, except split_hosts (a reconstruction's note on the env file)
    shipped_ctx = {f["path"]: {k: v for k, v in f["context"].items() if k != "split_hosts"}
                   for f in shipped["files"]}
    assert {f["path"]: f["context"] for f in got["files"]} == shipped_ctx
    assert got["hosts"] == shipped["hosts"]                   # head: the journal's _HOSTNAME
    # status (current or retired) is the one link field only a person gives
    assert got["links"] == {k: {a: v for a, v in link.items() if a != "status"}
                            for k, link in shipped["links"].items()}
    # prefill 13,959 tokens and decode 962 tokens: task 11924 has the most of both
    assert got["params"] == shipped["params"]
    assert got["date"] == str(shipped["date"])                # the journal's first entry, UTC
    assert got["provenance"] == "captured"
    out = capsys.readouterr().out
    assert "14 file(s) added" in out and "params.prefill_task = 11924 (default)" in out
    assert (folder / "README.md").read_text().startswith("# qwen38-27b-pp — *captured*")


def test_what_is_left_unanswered_is_named_with_what_it_costs(tmp_path, capsys):
    folder = _bare(tmp_path)
    assert main(["scaffold", "--campaign-dir", str(folder), "--defaults"]) == 0
    out = capsys.readouterr().out
    # two links are named by the ping files, so an iperf3 run's link is not guessed
    assert "not set: files.iperf3/claw-to-server.json.link: its rows join no link" in out
    assert "not set: links.gbe25.class: no class: the link gets no what-if prediction" in out
    iperf = [f for f in _manifest(folder)["files"] if f["path"] == "iperf3/claw-to-server.json"]
    assert iperf[0]["context"] == {"sender": "claw", "receiver": "server"}


def test_a_mistyped_answer_is_refused_and_nothing_is_written(tmp_path, capsys):
    folder = _bare(tmp_path)
    assert main(["scaffold", "--campaign-dir", str(folder), "--defaults",
                 "--set", "links.gbe25.clas=2.5gbe"]) == 1
    err = capsys.readouterr().err
    assert "--set links.gbe25.clas: no such question" in err and "links.gbe25.class" in err
    assert main(["scaffold", "--campaign-dir", str(folder), "--defaults",
                 "--set", "links.gbe25.class=25gbe"]) == 1
    assert "links.gbe25.class='25gbe': expected one of 1gbe, 2.5gbe" in capsys.readouterr().err
    assert not (folder / "manifest.yaml").exists() and not (folder / "README.md").exists()


def test_at_a_terminal_a_wrong_answer_is_asked_again_and_empty_takes_the_default():
    said, prompts = [], []

    def asker(*typed):
        script = iter(typed)
        return qs.Asker({}, interactive=True, say=said.append,
                        ask=lambda prompt: prompts.append(prompt) or next(script))

    roles = qs.one_of(("head", "worker"))
    ask = asker("sideways", "worker")
    assert ask("hosts.b.role", "role of b", "head", roles) == "worker"
    assert said == ["  expected one of head, worker; try again (empty: head)"]
    assert prompts == ["role of b (hosts.b.role) [head]: "] * 2
    assert ask.record[-1].source == "you"
    ask = asker("")
    assert ask("hosts.b.role", "role of b", "head", roles) == "head"
    assert ask.record[-1].source == "default"
    ask = asker("")
    assert ask("links.x.class", "class", None, roles, "no class", optional=True) is None
    assert ask.summary() == ["  not set: links.x.class: no class"]


def test_a_file_no_parser_reads_is_named_and_the_rest_are_listed(tmp_path, capsys):
    folder = _bare(tmp_path)
    (folder / "ping/broken.txt").write_text("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n")
    assert main(["scaffold", "--campaign-dir", str(folder), "--defaults"]) == 0
    out = capsys.readouterr().out
    assert "not listed: ping/broken.txt: " in out and "broken.txt:" in out.split("not listed:")[1]
    paths = [f["path"] for f in _manifest(folder)["files"]]
    assert len(paths) == 14 and "ping/broken.txt" not in paths


def test_a_second_run_keeps_what_is_listed_and_adds_the_new_file(tmp_path, capsys):
    folder = _bare(tmp_path)
    sets = [a for k, v in SETS.items() for a in ("--set", f"{k}={v}")]
    assert main(["scaffold", "--campaign-dir", str(folder), "--defaults", *sets]) == 0
    before = _manifest(folder)
    shutil.copy(QWEN / "ping/server-to-claw-gbe25.txt", folder / "ping/claw-to-server-gbe25.txt")
    capsys.readouterr()
    assert main(["scaffold", "--campaign-dir", str(folder), "--defaults"]) == 0
    after = _manifest(folder)
    assert "1 file(s) added" in capsys.readouterr().out
    new = [f for f in after["files"] if f["path"] == "ping/claw-to-server-gbe25.txt"]
    assert new == [{"path": "ping/claw-to-server-gbe25.txt", "format": "ping",
                    "context": {"link": "gbe25", "receiver": "server", "sender": "claw"}}]
    assert [f for f in after["files"] if f not in new] == before["files"]
    assert after["links"] == before["links"] and after["hosts"] == before["hosts"]


CORPORA = REPO / "tests/corpora"
FOLDER_FORMAT = {"ping": "ping", "ethtool": "ethtool", "netdev": "netdev", "nccl_tests": "nccl_tests",
                 "llama_server": "journal", "nccl_debug": "nccl_debug", "iperf3": "iperf3"}
OTHER_PROJECTS = sorted(
    [p for d in FOLDER_FORMAT if d != "iperf3" for p in (CORPORA / d).rglob("*")
     if p.suffix in (".out", ".log")]
    + [p for p in (CORPORA / "iperf3").rglob("*.json") if p.name not in ("expected.json",)])
# read by another parser on purpose: an nccl-tests run whose table its parser refuses (README of
# the corpus) still carries NCCL_DEBUG=INFO lines, which are nccl_debug's
READ_BY_ANOTHER = {"nccl_tests/issues/NVIDIA+nccl-tests-82.out": "nccl_debug"}


def test_the_corpora_hold_the_files_of_other_projects():
    # 72 jc + 21 pingparsing pings, 6 ethtool, 5 netdev, 7 nccl-tests, 7 llama-server logs,
    # 1 NCCL debug log, 11 iperf3 outputs
    assert len(OTHER_PROJECTS) == 72 + 21 + 6 + 5 + 7 + 7 + 1 + 11


@pytest.mark.parametrize("path", OTHER_PROJECTS, ids=lambda p: str(p.relative_to(CORPORA)))
def test_a_file_of_another_project_is_given_its_format_by_its_own_parser_alone(path):
    """The scaffold names a file's format exactly when that format's parser reads it, and no
    other parser (the env reader above all, which takes any line with '=') claims it."""
    from pipeline.ingest.formats import discover_formats
    from pipeline.collect.scaffold_files import detect
    formats = discover_formats()
    rel = str(path.relative_to(CORPORA))
    own = FOLDER_FORMAT[rel.split("/")[0]]
    try:
        reads = len(formats[own].parse(path)) > 0
    except Exception:  # noqa: BLE001 - a refusal the corpus README lists
        reads = False
    fmt, _, why = detect(path, formats)
    assert fmt == READ_BY_ANOTHER.get(rel, own if reads else None), why
