"""``make check``: rebuild docs/ from raw_data/, sql/ and templates/ in a scratch copy and
compare with the committed docs/. Exit 1, naming every stale, missing or extra file."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from pipeline.project import Project


def stale_files(committed: Path, fresh: Path) -> list[str]:
    names = {p.relative_to(committed).as_posix() for p in committed.rglob("*") if p.is_file()}
    fresh_names = {p.relative_to(fresh).as_posix() for p in fresh.rglob("*") if p.is_file()}
    problems = []
    for name in sorted(names | fresh_names):
        if name not in fresh_names:
            problems.append(f"docs/{name}: committed but no longer produced")
        elif name not in names:
            problems.append(f"docs/{name}: produced but not committed")
        elif (committed / name).read_bytes() != (fresh / name).read_bytes():
            problems.append(f"docs/{name}: differs from a fresh build")
    return problems


def main() -> int:
    from pipeline.commands.in_process import build, copy_tree

    source = Project.from_env()
    with tempfile.TemporaryDirectory(prefix="interconnect-check-") as tmp:
        scratch = copy_tree(source.root, Path(tmp))
        os.environ["INTERCONNECT_DB"] = str(Path(tmp) / ".warehouse" / "check.duckdb")
        build(scratch, site=False)  # docs/ do not depend on the site
        problems = stale_files(source.docs, scratch.docs)
    if problems:
        print("docs/ is stale; run `make docs` and commit:", *problems, sep="\n  ")
        return 1
    print("docs/ is fresh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
