"""Fault injection for the trust tests: ``INTERCONNECT_FAULT=<point>`` kills the process
(SIGKILL, no cleanup) when the build reaches that point, so a test can prove that a kill at
exactly that moment leaves every file old or new. Unset, a checkpoint costs one dict lookup.

Points: ``build:starting`` (``make docs`` decided there is work to do: the last build's record
is gone, nothing else touched), ``ingest:parsed`` (rows parsed, nothing written), ``ingest:written`` (the new Parquet
file written under its temporary name), ``ingest:renamed`` (renamed into place, the old
version not yet removed), ``ingest:shards-renamed`` (a sharded capture's shards renamed
into place, its head not yet), ``page:staged`` (a page rendered into the staging folder),
``docs:mid-write`` (docs/ half replaced: one page replaced, half of the bytes of the second
written under their temporary name).
"""
from __future__ import annotations

import os
import signal

ENV = "INTERCONNECT_FAULT"


def checkpoint(point: str) -> None:
    if os.environ.get(ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)
