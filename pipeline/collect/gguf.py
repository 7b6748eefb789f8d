"""Copy the header and metadata of a (multi-GB) GGUF model into a small GGUF.

A GGUF file is: magic ``GGUF``, uint32 version, uint64 tensor_count, uint64
kv_count, the KV pairs, the tensor infos, padding, then the tensor data
(ggml-org/ggml docs/gguf.md). The copy keeps bytes ``[0, end of KV section)``
verbatim, so every metadata key sits at the same byte offset and reads the
same through ``gguf.GGUFReader`` (the ``gguf`` parser's ``source_line`` is that
offset). Its tensor_count is set to 0 and the file padded to the alignment,
which makes it a complete, valid GGUF with no tensors; the original's tensor
count, size and data offset go into the manifest context instead.

The KV section is found with ``gguf.GGUFReader`` (memory-mapped, so only the
pages it touches are read) with tensor building switched off: the tensor data
is never read, and an original whose data is cut off copies just as well.
File: ``gguf/<original file name>``.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from importlib.metadata import version as pkg_version
from pathlib import Path

import numpy as np
from gguf import GGUFReader

from pipeline.collect.campaign import CollectError, Output, commit, utc_iso
from pipeline.collect.common import add_campaign_args, base_context, campaign_from, name

TENSOR_COUNT_OFFSET = 8      # after magic (4) and version (4)


class _Short(Exception):
    pass


class _HeaderReader(GGUFReader):
    """Reads header, KVs and tensor infos; never builds (or touches) tensor data."""

    def _get(self, offset, dtype, count=1, override_order=None):
        arr = super()._get(offset, dtype, count, override_order)
        if len(arr) != int(count):      # the stock reader returns short arrays at EOF
            raise _Short(int(offset))
        return arr

    def _build_tensors(self, start_offs, fields):
        self.tensors = []


def header_copy(path: Path) -> tuple[bytes, dict]:
    """The small GGUF's bytes and facts about the original."""
    try:
        reader = _HeaderReader(path)
    except _Short as exc:
        raise CollectError(f"{path}: truncated inside the GGUF header (at byte {exc.args[0]})") from None
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        raise CollectError(f"{path}: not a readable GGUF ({exc})") from None
    count_field = reader.fields["GGUF.tensor_count"]
    kv_fields = [f for f in reader.fields.values() if not f.name.startswith("GGUF.")]
    last = kv_fields[-1] if kv_fields else reader.fields["GGUF.kv_count"]
    kv_end = int(last.offset) + sum(int(p.nbytes) for p in last.parts)
    with open(path, "rb") as fh:
        head = bytearray(fh.read(kv_end))       # the only bytes read from the original
    # Zero in the original's own byte order (the field's dtype carries it).
    zero = np.zeros(1, dtype=count_field.parts[0].dtype).tobytes()
    head[TENSOR_COUNT_OFFSET:TENSOR_COUNT_OFFSET + len(zero)] = zero
    align = int(reader.alignment)
    head += b"\0" * (-len(head) % align)
    facts = {
        "original_file": path.name,
        "original_size_bytes": path.stat().st_size,
        "original_tensor_count": int(count_field.parts[0][0]),
        "original_data_offset_bytes": int(reader.data_offset),
        "kv_count": len(kv_fields),
    }
    return bytes(head), facts


def _same_metadata(original: Path, copy: bytes, tmp_dir: Path) -> None:
    """Self-check before committing: the copy's KV fields equal the original's."""
    with tempfile.NamedTemporaryFile(dir=tmp_dir, prefix=".gguf-check-", suffix=".gguf") as tmp:
        tmp.write(copy)
        tmp.flush()
        small = GGUFReader(tmp.name)
        big = _HeaderReader(original)

        def kv(r):
            return [(f.name, int(f.offset), [bytes(p.tobytes()) for p in f.parts])
                    for f in r.fields.values() if not f.name.startswith("GGUF.")]
        if kv(small) != kv(big) or small.tensors:
            raise CollectError(f"{original}: header copy does not read back like the original")


def add_parser(sub) -> None:
    p = sub.add_parser("gguf", help="copy a GGUF's header+metadata into a small GGUF",
                       description=__doc__.split("\n\n")[0])
    add_campaign_args(p)
    p.add_argument("model", type=Path, help="path of the .gguf model file")
    p.add_argument("--name", type=name, help="file name in the campaign (default: the model's)")
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    if not args.model.is_file():
        raise CollectError(f"{args.model}: no such file")
    with open(args.model, "rb") as fh:
        if fh.read(4) != b"GGUF":
            raise CollectError(f"{args.model}: not a GGUF file (no GGUF magic)")
    camp = campaign_from(args)
    started = time.time()
    data, facts = header_copy(args.model)
    tmp_dir = next(p for p in (args.campaign_dir, *args.campaign_dir.resolve().parents) if p.is_dir())
    _same_metadata(args.model, data, tmp_dir)
    ended = time.time()
    ctx = base_context(args) | facts | {
        "command": args.command_line, "tool_version": f"gguf-py {pkg_version('gguf')}",
        "started": utc_iso(started), "ended": utc_iso(ended),
    }
    commit(camp, [Output(f"gguf/{args.name or args.model.name}", "gguf", ctx, data=data)])
    return 0
