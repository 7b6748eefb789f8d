"""Install the site's one third-party script: Tablesort, the library of mkdocs-material's
table-sorting recipe, from the npm registry into docs/javascripts/vendor/ (not committed).

The tarball is pinned by version and by the registry's sha512 integrity, downloaded over
HTTPS with the standard library (no npm needed), checked, and only ``dist/tablesort.min.js``
and its licence are taken out of it. Idempotent: nothing is fetched when the installed file
is already the pinned one. The site's own code that uses it is docs/javascripts/tables.js.

usage: python scripts/install_site_assets.py [docs dir]   (default: docs)
"""
from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

NAME, VERSION = "tablesort", "5.7.1"
TARBALL = f"https://registry.npmjs.org/{NAME}/-/{NAME}-{VERSION}.tgz"
INTEGRITY = "sha512-wm+xSponmlN1spiuwGlrvNGoG8fEso+y86OOjS+Pl0Qsje/cOVSfUvELcXILWc8/sgEdY/NGMPo0qhFGyYKnwQ=="
TAKE = {"package/dist/tablesort.min.js": "tablesort.min.js",
        "package/LICENCE": "tablesort.LICENCE.txt"}
STAMP = "tablesort.version"


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def install(docs: Path) -> str:
    vendor = docs / "javascripts" / "vendor"
    stamp = vendor / STAMP
    wanted = f"{NAME} {VERSION} {INTEGRITY}"
    if stamp.is_file() and stamp.read_text().strip() == wanted and all(
            (vendor / out).is_file() for out in TAKE.values()):
        return f"{NAME} {VERSION} already installed in {vendor}"
    with urllib.request.urlopen(TARBALL, timeout=60) as response:
        data = response.read()
    got = _integrity(data)
    if got != INTEGRITY:
        raise SystemExit(f"install_site_assets: {TARBALL} has integrity {got}, expected "
                         f"{INTEGRITY}; nothing installed")
    vendor.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member, out in TAKE.items():
            extracted = tar.extractfile(member)
            if extracted is None:
                raise SystemExit(f"install_site_assets: {member} missing from {TARBALL}")
            tmp = vendor / f".{out}.tmp"
            tmp.write_bytes(extracted.read())
            tmp.replace(vendor / out)
    stamp.write_text(wanted + "\n")
    return f"installed {NAME} {VERSION} into {vendor}"


if __name__ == "__main__":
    print(install(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs")))
