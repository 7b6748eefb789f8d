"""Publishing docs/ from a staging folder (pipeline/publish/docs_swap.py) leaves no staging folder
behind, not even an empty ``.docs-staging/`` (one stayed after every build)."""
from __future__ import annotations

from pipeline.publish.docs_swap import clean_staging, publish


class _Project:
    def __init__(self, root):
        self.root, self.docs, self.docs_staging = root, root / "docs", root / ".docs-staging"


def test_a_publication_leaves_no_staging_folder(tmp_path):
    project = _Project(tmp_path)
    project.docs.mkdir()
    (project.docs / "index.md").write_text("old\n")
    staged = project.docs_staging / "run-1"
    staged.mkdir(parents=True)
    (staged / "index.md").write_text("new\n")
    assert publish(project.docs, staged, set()) == {"written": 1, "removed": 0}
    assert (project.docs / "index.md").read_text() == "new\n"
    assert not project.docs_staging.exists()


def test_cleaning_up_after_a_failure_leaves_no_empty_staging_folder(tmp_path):
    project = _Project(tmp_path)
    (project.docs_staging / "run-1" / "deep").mkdir(parents=True)
    clean_staging(project)
    assert not project.docs_staging.exists()
    # the folder being written by this build stays
    (project.docs_staging / "run-2").mkdir(parents=True)
    clean_staging(project, keep="run-2")
    assert (project.docs_staging / "run-2").is_dir()
