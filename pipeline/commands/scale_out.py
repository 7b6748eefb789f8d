"""``python -m pipeline.commands.scale_out [--raw-only] [campaign …]``: each campaign's raw files
and models, a step per campaign for each (the raw layer alone with ``--raw-only``), on the
executor ``INTERCONNECT_EXECUTOR`` names (pipeline/orchestration/scale_out.py)."""
from __future__ import annotations

import os

from pipeline.orchestration.scale_out import EXECUTOR_ENV, RAW_ONLY_ENV, run, start_forkserver


def main(argv: list[str] | None = None) -> int:
    """``python -m pipeline.commands.scale_out [--raw-only] [campaign …]``: one run of
    ``build_campaigns`` (``ingest_campaigns``) with the executor of ``INTERCONNECT_EXECUTOR``,
    recorded in ``DAGSTER_HOME``'s instance (``dg dev`` shows it). Prints the steps that ran;
    exit 0 when the run succeeded."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    os.environ[RAW_ONLY_ENV] = "1" if "--raw-only" in args else "0"
    args = [a for a in args if a != "--raw-only"]
    if not os.environ.get("DAGSTER_HOME"):
        print("scale_out: set DAGSTER_HOME (steps in other processes report to its instance)",
              file=sys.stderr)
        return 2
    if os.environ.get(EXECUTOR_ENV, "").startswith("multiprocess"):
        start_forkserver()
    from dagster import DagsterInstance

    from pipeline.util.lock import BuildLockedError
    try:
        ok, steps = run(DagsterInstance.get(), args or None)
    except (ValueError, BuildLockedError) as exc:
        print(f"scale_out: {exc}", file=sys.stderr)
        return 2
    print(f"{'succeeded' if ok else 'failed'}: {len(steps)} step(s): {', '.join(steps)}",
          file=sys.stderr)
    _quick_exit()
    return 0 if ok else 1


def _quick_exit() -> None:
    """Leave every object of this process to the exit: the interpreter's last collection then
    skips them (0.8 s over Dagster's objects, measured, of a run that is over)."""
    import gc
    gc.freeze()


if __name__ == "__main__":
    raise SystemExit(main())
