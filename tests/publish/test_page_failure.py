"""A campaign whose own page cannot be rendered is withheld, never the whole site.

The deployment template is made to fail for one campaign only (a division by zero in Jinja,
standing for any template error on data the template did not expect); the build publishes every
other page, puts a notice naming the template and the error at that campaign's URL, and exits 3.
"""
from __future__ import annotations

import shutil

from pipeline.commands.in_process import copy_tree

from conftest import REPO, run_cli_build


def test_one_campaign_page_error_withholds_only_that_campaign(tmp_path):
    root = tmp_path / "root"
    copy_tree(REPO, root)
    for area, keep in (("deployments", {"lab-veth-tbf", "qwen38-27b-pp"}), ("p2p", set()),
                       ("labs", set())):
        for folder in (root / "raw_data" / area).iterdir():
            if folder.is_dir() and folder.name not in keep:
                shutil.rmtree(folder)
    template = root / "templates" / "deployment.md.j2"
    text = template.read_text()
    marker = "{% set k = row('fct_deployment_constants') %}\n"
    assert marker in text
    template.write_text(text.replace(
        marker, marker + "{% if k.campaign == 'lab-veth-tbf' %}{{ 1 / 0 }}{% endif %}\n"))
    proc = run_cli_build(root, "--no-site")
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "withheld campaign lab-veth-tbf:" in proc.stderr
    assert "ZeroDivisionError" in proc.stderr
    stub = (root / "docs/deployments/lab-veth-tbf.md").read_text()
    assert "withheld" in stub and "templates/deployment.md.j2" in stub
    assert "ZeroDivisionError: division by zero" in stub
    # nothing else of its page was published: no CSV downloads
    assert not (root / "docs/deployments/lab-veth-tbf").exists()
    # the other campaign and the shared pages are published as usual
    qwen = (root / "docs/deployments/qwen38-27b-pp.md").read_text()
    assert "withheld" not in qwen.split("\n## ")[0] and "### 0.1 Verified constants" in qwen
    assert (root / "docs/index.md").exists() and (root / "docs/data-quality.md").exists()
    # the ledger holds none of its figures; What changed names it withheld (against the
    # committed docs, where it was published) and the p2p campaigns deleted above as removed
    ledger = _csv(root / "docs/what-changed/data/figures.csv")
    assert not any(r["page"] == "deployments/lab-veth-tbf" for r in ledger)
    status = {r["row_key"]: r["value"] for r in ledger if r["table"] == "meta_campaign_status"}
    assert status == {"campaign=lab-veth-tbf": "withheld", "campaign=qwen38-27b-pp": "published"}
    kinds = {(c["kind"], c["figure_id"])
             for c in _csv(root / "docs/what-changed/data/figure_changes.csv")}
    assert {("campaign_withheld", "campaign:lab-veth-tbf"), ("campaign_removed", "campaign:aws-p3-tc"),
            ("campaign_removed", "campaign:swan-10-regions"),
            ("page_removed", "deployments/lab-veth-tbf#")} <= kinds


def _csv(path):
    import csv
    import io
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
