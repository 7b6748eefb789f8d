"""A big text file read as several byte ranges at once, each through its own named pipe.

DuckDB numbers a file's lines (``row_number() over ()``) on one thread, because it must keep
the file's order. A capture cut into ranges at record boundaries can be numbered on every
core: a thread hands each range to a FIFO that DuckDB reads as a file (``sendfile``: the kernel
copies from the page cache into the pipe, the bytes never pass through Python), and
``count_lines`` counts the newlines of the ranges before it, so a range's local line numbers
become the file's. The file itself is never changed or copied to disk.
"""
from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

_BLOCK = 1 << 20
# A feeder serves this much at a time, so a released feeder stops soon.
_SERVE = 1 << 18
_LOOK = 1 << 16
# Linux's fcntl to grow a pipe (fewer wake-ups of the reader); best effort.
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


def cut(path: Path, parts: int, marker: bytes) -> list[tuple[int, int]]:
    """``parts`` (or fewer) consecutive byte ranges covering ``path``; every range after the
    first starts with a line that begins with ``marker`` (found after each nominal cut point;
    a file without such lines there is cut fewer times)."""
    size = os.path.getsize(path)
    starts = [0]
    needle = b"\n" + marker
    with open(path, "rb") as fh:
        for k in range(1, parts):
            pos = max(size * k // parts, starts[-1] + 1) - 1
            while pos < size:
                fh.seek(pos)
                window = fh.read(_LOOK + len(needle))
                found = window.find(needle)
                if found >= 0:
                    starts.append(pos + found + 1)
                    break
                if len(window) < _LOOK + len(needle):
                    pos = size
                else:
                    pos += _LOOK
            if pos >= size:
                break
    ends = starts[1:] + [size]
    return [(a, b) for a, b in zip(starts, ends) if b > a]


class Feeder:
    """A FIFO that serves bytes ``start``..``end`` of ``path`` to one reader (``served``: the
    bytes it handed over, once ``join`` returned)."""

    def __init__(self, path: Path, start: int, end: int, folder: Path, name: str):
        self.path, self.start, self.end = Path(path), start, end
        self.fifo = Path(folder) / name
        os.mkfifo(self.fifo)
        self.served = 0
        self.error: BaseException | None = None
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=f"feed-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            out = os.open(self.fifo, os.O_WRONLY)
        except OSError as exc:
            self.error = exc
            return
        served = self.start
        try:
            try:
                fcntl.fcntl(out, _F_SETPIPE_SZ, _BLOCK)
            except OSError:
                pass  # a smaller pipe only means more wake-ups
            with open(self.path, "rb", buffering=0) as src:
                while served < self.end and not self._stop:
                    sent = os.sendfile(out, src.fileno(), served, min(_SERVE, self.end - served))
                    if not sent:
                        break
                    served += sent
        except BrokenPipeError:
            pass  # the reader stopped early (its query failed): nothing more to serve
        except OSError as exc:
            self.error = exc
        finally:
            os.close(out)
            self.served = served - self.start

    def release(self) -> None:
        """Let the feeder finish even if nobody opened the FIFO or read it to its end (its
        reader failed): open the FIFO's other end, discard what it serves, until it stops."""
        self._stop = True
        try:
            fd = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            while self._thread.is_alive():
                try:
                    os.read(fd, _BLOCK)
                except BlockingIOError:
                    pass
                self._thread.join(0.01)
        finally:
            os.close(fd)

    def join(self) -> int:
        self._thread.join()
        if self.error is not None:
            raise self.error
        return self.served


def count_lines(path: Path, start: int, end: int) -> int:
    """Newlines in bytes ``start``..``end`` of ``path`` (read in blocks, never held whole)."""
    lines, buf = 0, bytearray(_BLOCK)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as fh:
        fh.seek(start)
        left = end - start
        while left > 0:
            got = fh.readinto(view[:min(_BLOCK, left)])
            if not got:
                break
            lines += buf.count(b"\n", 0, got)
            left -= got
    return lines
