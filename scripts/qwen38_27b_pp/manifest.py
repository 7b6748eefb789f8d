"""The campaign's manifest.yaml."""
from __future__ import annotations

import json

from .targets import CAMPAIGN, TASK_ID


def manifest_text(files: list[tuple[str, str, dict]]) -> str:
    def ctx(d: dict) -> str:
        return "{" + ", ".join(f"{k}: {json.dumps(v) if isinstance(v, str) and ',' in v else v}"
                               for k, v in d.items()) + "}"
    out = [
        "# Written by scripts/reconstruct_qwen38_27b_pp.py -- do not edit by hand.",
        f"campaign: {CAMPAIGN}",
        "kind: deployment",
        "title: Qwen3.8-27B pipeline-parallel deployment",
        "date: 2026-08-17",
        "provenance: reconstructed",
        "hosts:",
        "  server: {role: head}",
        "  claw: {role: worker}",
        "links:",
        '  gbe1_usb: {label: "1 GbE USB-C", class: 1gbe, interfaces: {claw: enx00e04cc2e1e5, server: eno1}, status: retired}',
        '  gbe25: {label: "2.5 GbE", class: 2.5gbe, interfaces: {claw: eno1, server: eno1}, status: current}',
        f"params: {{prefill_task: {TASK_ID}, decode_task: {TASK_ID}, service: frank-dragoon}}",
        "files:",
    ]
    for path, fmt, context in files:
        out += [f"  - path: {path}", f"    format: {fmt}", f"    context: {ctx(context)}"]
    return "\n".join(out) + "\n"
