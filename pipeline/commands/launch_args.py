"""``python -m pipeline.commands.launch_args [CAMPAIGN]``: the partition arguments of ``make launch``.

Registers the campaign folders of ``INTERCONNECT_ROOT`` as partitions in the Dagster instance at
``DAGSTER_HOME`` (a new folder is a new partition, a removed one is deleted), then prints
``--partition CAMPAIGN`` or, without a campaign, ``--partition-range FIRST...LAST`` covering
every campaign, for ``dg launch --job rebuild_everything …``. Every asset has a single-run backfill policy,
so a range is one run.
"""
from __future__ import annotations

import sys

from pipeline.project import Project


def main(argv: list[str]) -> int:
    from dagster import DagsterInstance

    from pipeline.orchestration.partitions import sync_campaign_folders
    with DagsterInstance.get() as instance:
        ordered = sync_campaign_folders(instance, Project.from_env().raw_data)
    if argv:
        if argv[0] not in ordered:
            print(f"no campaign {argv[0]!r} under raw_data/ (known: {', '.join(ordered) or 'none'})",
                  file=sys.stderr)
            return 1
        print(f"--partition {argv[0]}")
    elif ordered:
        print(f"--partition-range {ordered[0]}...{ordered[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
