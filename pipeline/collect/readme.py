"""A captured campaign's README.md (raw_data/README.md: every campaign has one), written once
by the lab that captured it; a README already there (a hand-written one) is kept."""
from __future__ import annotations

from pathlib import Path

from pipeline.util.atomic import atomic_write


def write_readme(folder: Path, text: str) -> Path | None:
    """Write ``text`` as ``folder/README.md`` (temp + rename) unless the file exists; returns
    the path written, or None when one was kept."""
    path = Path(folder) / "README.md"
    if path.exists():
        print(f"kept {path} (already there)")
        return None
    data = text.encode("utf-8")
    atomic_write(path, lambda fh: fh.write(data))
    print(f"wrote {path} (the campaign's README)")
    return path
