"""The no-op record is derived state (pipeline/commands/build_key.py): one that cannot be read as
a record, whatever it holds, is no record, and the build runs, instead of a traceback on every
build (a record that is valid JSON but not an object gave an AttributeError)."""
from __future__ import annotations

import pytest

from pipeline.commands import build_key
from pipeline.project import Project


@pytest.mark.parametrize("text", ["[]", "null", "42", '"a string"', "{not json", ""])
def test_a_record_that_is_not_one_means_build(tmp_path, text, monkeypatch):
    monkeypatch.delenv("INTERCONNECT_DB", raising=False)
    project = Project(tmp_path)
    path = build_key.record_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    assert build_key.unchanged(project, {"any": "inputs"}) is None


def test_a_record_of_other_inputs_means_build(tmp_path, monkeypatch):
    monkeypatch.delenv("INTERCONNECT_DB", raising=False)
    project = Project(tmp_path)
    path = build_key.record_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"inputs": {"raw_data": "old"}, "outputs": {}, "exit_code": 0, "summary": ""}')
    assert build_key.unchanged(project, {"raw_data": "new"}) is None
