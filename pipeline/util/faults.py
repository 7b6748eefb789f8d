"""Fault injection for the trust tests: ``INTERCONNECT_FAULT=<point>`` kills the process
(SIGKILL, no cleanup) when the build reaches that point, so a test can prove that a kill at
exactly that moment leaves every file old or new. Unset, a checkpoint costs one dict lookup.

Points: ``build:starting`` (``make docs`` decided there is work to do: the last build's record
is gone, nothing else touched), ``ingest:parsed`` (rows parsed, nothing written), ``ingest:written`` (the new Parquet
file written under its temporary name), ``ingest:renamed`` (renamed into place, the old
version not yet removed), ``ingest:shards-renamed`` (a sharded capture's shards renamed
into place, its head not yet), ``page:staged`` (a page rendered into the staging folder),
``docs:mid-write`` (docs/ half replaced: one file of the publication moved into place, the
others not yet), ``site:before-swap`` (docs/ replaced, the new site built and named in the
journal, the ``site`` link not yet swapped), ``site:committed`` (the ``site`` link swapped, the
copy to the publish directory not yet made). ``INTERCONNECT_FAULT=enospc@<point>`` raises
"No space left on device" at that point instead of killing.
"""
from __future__ import annotations

import errno
import os
import signal

ENV = "INTERCONNECT_FAULT"
DISK_FULL = "enospc@"   # INTERCONNECT_FAULT=enospc@<point>: the disk fills up there instead


def checkpoint(point: str) -> None:
    fault = os.environ.get(ENV)
    if fault is None:
        return
    if fault == point:
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == f"{DISK_FULL}{point}":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), f"<{point}>")
