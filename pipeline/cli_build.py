"""``python -m pipeline.cli_build``: build the project at ``INTERCONNECT_ROOT`` in this process.

The same in-process build tests and ``make check`` use (pipeline.build.build), as a command, so
that tests can run it in a child process and kill it, or start two at once. Exit 0 on success,
1 with the reason on stderr otherwise (for a build that found the writer lock taken, the lock's
own message). ``--no-site`` skips the mkdocs site.
"""
from __future__ import annotations

import sys

from .lock import BuildLockedError
from .project import Project


def _lock_error(exc: BaseException) -> BuildLockedError | None:
    """The BuildLockedError behind a Dagster step failure, if that is what stopped the run."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, BuildLockedError):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def main(argv: list[str] | None = None) -> int:
    from .build import build

    args = sys.argv[1:] if argv is None else argv
    project = Project.from_env()
    try:
        result = build(project, site="--no-site" not in args)
    except Exception as exc:  # noqa: BLE001 - reported, then a non-zero exit
        locked = _lock_error(exc)
        print(f"build of {project.root} failed: {locked or exc}", file=sys.stderr)
        return 1
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main())
