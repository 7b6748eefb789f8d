"""A big text file read as several byte ranges at once, each through its own named pipe.

DuckDB numbers a file's lines (``row_number() over ()``) on one thread, because it must keep
the file's order. A capture cut into ranges at record boundaries can be numbered on every
core: a thread copies each range in 1 MiB blocks into a FIFO that DuckDB reads as a file,
counting the range's lines on the way, so a range's local line numbers become the file's by
adding the lines of the ranges before it. The file itself is never changed or copied to disk.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

_BLOCK = 1 << 20
_LOOK = 1 << 16


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
    """A FIFO that serves bytes ``start``..``end`` of ``path`` to one reader, counting the
    newlines it served (``lines`` once ``join`` returned)."""

    def __init__(self, path: Path, start: int, end: int, folder: Path, name: str):
        self.path, self.start, self.end = Path(path), start, end
        self.fifo = Path(folder) / name
        os.mkfifo(self.fifo)
        self.lines = 0
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
        try:
            with open(self.path, "rb", buffering=0) as src:
                src.seek(self.start)
                left = self.end - self.start
                while left > 0 and not self._stop:
                    block = src.read(min(_BLOCK, left))
                    if not block:
                        break
                    left -= len(block)
                    self.lines += block.count(b"\n")
                    view = memoryview(block)
                    while view:
                        view = view[os.write(out, view):]
        except BrokenPipeError:
            pass  # the reader stopped early (its query failed): nothing more to serve
        except OSError as exc:
            self.error = exc
        finally:
            os.close(out)

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
        return self.lines
