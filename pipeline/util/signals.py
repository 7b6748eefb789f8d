"""Signal dispositions kept across a call that changes them.

Dagster's in-process execution (``dagster._utils.interrupts.capture_interrupts``) restores
SIGTERM to the *SIGINT* handler it found when it is done. In a process whose SIGINT is ignored
(a pytest-xdist worker, a job started in the background by a shell), SIGTERM is then ignored
too, and every process started afterwards inherits that: a server it starts can no longer be
stopped with SIGTERM. :func:`kept_signals` puts back what each signal had before.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

KEPT = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def kept_signals(signals=KEPT) -> Iterator[None]:
    """Run the body, then give each of ``signals`` back the handler it had (main thread only:
    elsewhere handlers cannot be changed, so nothing is saved or restored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {s: signal.getsignal(s) for s in signals}
    try:
        yield
    finally:
        for s, handler in saved.items():
            if handler is not None:        # None: set from C, not restorable from Python
                signal.signal(s, handler)
