"""GGUF metadata: one row per key/value pair of a GGUF file's header.

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "gguf".
"""
from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import numpy as np
from gguf import GGUFReader, GGUFValueType
from gguf.gguf_reader import READER_SUPPORTED_VERSIONS

from pipeline.ingest.base import Format, ParseError

ARRAY_SUMMARY_OVER = 64       # string arrays longer than this are stored as {"len": n}
LAYER_ARRAY_MAX = 1024        # numeric/bool arrays up to this length are kept (per-layer values)


class _ShortRead(Exception):
    def __init__(self, offset: int, size: int):
        self.offset, self.size = offset, size


class _MetadataReader(GGUFReader):
    """GGUFReader that refuses short reads and stops after the KV section.

    The stock reader slices its memory map without checking the length, so a
    cut file yields short arrays (an IndexError later, or a silently shortened
    string). Checking every read turns truncation into one precise offset.
    """

    last_offset = 0  # where the last read started: the offset an error names

    def _get(self, offset, dtype, count=1, override_order=None):
        self.last_offset = int(offset)
        if type(self.data) is np.memmap:
            # the same mapped bytes as a plain array: slicing a memmap does bookkeeping on
            # every slice, which made a 32,000-token vocabulary take seconds to read
            self.data = self.data.view(np.ndarray)
        if int(offset) + np.dtype(dtype).itemsize * int(count) > len(self.data):
            raise _ShortRead(int(offset), len(self.data))   # before numpy's view of a short slice
        arr = super()._get(offset, dtype, count, override_order)
        if len(arr) != int(count):
            raise _ShortRead(int(offset), len(self.data))
        return arr

    def _get_field_parts(self, orig_offs, raw_type):
        """The stock walk, except for arrays this parser keeps only the length of (strings
        over ARRAY_SUMMARY_OVER, numbers over LAYER_ARRAY_MAX): the stock reader makes an
        array object per item, seconds for a 32,000-token vocabulary; here the items are
        stepped over (every length and end still checked against the file's size)."""
        if GGUFValueType(raw_type) != GGUFValueType.ARRAY:
            return super()._get_field_parts(orig_offs, raw_type)
        raw_itype = self._get(orig_offs, np.uint32)
        alen = self._get(orig_offs + 4, np.uint64)
        n, item = int(alen[0]), GGUFValueType(int(raw_itype[0]))
        types = [GGUFValueType.ARRAY, item]
        if item == GGUFValueType.STRING and n > ARRAY_SUMMARY_OVER:
            offs = orig_offs + 12
            for _ in range(n):
                length = int(self._get(offs, np.uint64)[0])
                offs += 8
                if offs + length > len(self.data):
                    self.last_offset = offs
                    raise _ShortRead(offs, len(self.data))
                offs += length
            return offs - orig_offs, [raw_itype, alen], [], types
        nptype = self.gguf_scalar_to_np.get(item)
        if nptype is not None and n > LAYER_ARRAY_MAX:
            items = self._get(orig_offs + 12, nptype, n)
            return 12 + int(items.nbytes), [raw_itype, alen, items], [], types
        return super()._get_field_parts(orig_offs, raw_type)

    # Metadata only: a header dump need not hold complete tensor infos or data.
    def _build_tensor_info(self, offs, count):
        return offs, []

    def _build_tensors(self, start_offs, fields):
        self.tensors = []


def _scalar_text(vtype: GGUFValueType, part: np.ndarray) -> str:
    v = part[0]
    if vtype == GGUFValueType.BOOL:
        return "true" if bool(v) else "false"
    if vtype in (GGUFValueType.FLOAT32, GGUFValueType.FLOAT64):
        # numpy's repr of a float32 is the shortest text that round-trips the
        # float32, so 1e-06 stays "1e-06" instead of 9.999999974752427e-07.
        return repr(float(str(v)))
    return str(int(v))


def _json_item(vtype: GGUFValueType, part: np.ndarray):
    if vtype == GGUFValueType.STRING:
        return part.tobytes().decode("utf-8")
    if vtype == GGUFValueType.BOOL:
        return bool(part[0])
    if vtype in (GGUFValueType.FLOAT32, GGUFValueType.FLOAT64):
        return float(str(part[0]))
    return int(part[0])


def _row(field) -> dict:
    vtype = field.types[0] if field.types else None
    if vtype == GGUFValueType.ARRAY:
        # parts: key len, key, type, item type, length, items…
        item_type = GGUFValueType(int(field.parts[3][0]))
        n = int(field.parts[4][0])
        value_type = f"ARRAY[{item_type.name}]"
        limit = ARRAY_SUMMARY_OVER if item_type == GGUFValueType.STRING else LAYER_ARRAY_MAX
        if n > limit:
            value = json.dumps({"len": n})
        elif item_type == GGUFValueType.ARRAY:
            # Nested arrays are flattened by the reader; keep only their count.
            value = json.dumps({"len": n})
        else:
            value = json.dumps([_json_item(item_type, field.parts[i]) for i in field.data],
                               ensure_ascii=False)
    elif vtype == GGUFValueType.STRING:
        value_type = "STRING"
        value = field.parts[-1].tobytes().decode("utf-8")
    else:
        value_type = vtype.name
        value = _scalar_text(vtype, field.parts[-1])
    return {"key": field.name, "value_type": value_type, "value": value,
            "source_line": int(field.offset)}


HEADER_BYTES = 24        # magic, version (u32), tensor_count (u64), kv_count (u64)
MIN_KV_BYTES = 14        # key length (u64), a 1-byte key, value type (u32), a 1-byte value
MAX_TENSORS = 1 << 20    # models have thousands of tensors; a header dump may hold none of their infos
MAX_KVS_UNCHECKED = 1 << 16   # below this the reader meets a short file where it ends, to the byte


def _check_counts(path: Path, head: bytes, size: int) -> None:
    """The header's counts against the file: an absurd count (a kv_count no file of this size can
    hold, past MAX_KVS_UNCHECKED; a tensor_count past MAX_TENSORS) is named with its field and
    offset, not met later as a cut KV section or a duplicate empty key."""
    if len(head) < HEADER_BYTES:
        return                                        # the reader names where it ends
    (version,) = struct.unpack_from("<I", head, 4)
    order = ">" if version & 0xFFFF == 0 else "<"     # a big-endian file, as gguf-py tells it
    if struct.unpack_from(f"{order}I", head, 4)[0] not in READER_SUPPORTED_VERSIONS:
        return                                        # the reader names the version
    tensors, kvs = struct.unpack_from(f"{order}QQ", head, 8)
    if tensors > MAX_TENSORS:
        raise ParseError(path, 8, f"a tensor_count of at most {MAX_TENSORS:,}", f"{tensors:,}")
    most = (size - HEADER_BYTES) // MIN_KV_BYTES
    if kvs > most and kvs > MAX_KVS_UNCHECKED:
        raise ParseError(path, 16, f"a kv_count this file can hold (at most {most:,} key/value "
                         f"pairs in {size:,} bytes, {MIN_KV_BYTES} bytes each at least)", f"{kvs:,}")


def parse(path: Path) -> list[dict]:
    path = Path(path)
    size = path.stat().st_size
    if size == 0:
        raise ParseError(path, 0, "a GGUF file", "an empty file")
    with path.open("rb") as f:
        head = f.read(HEADER_BYTES)
    if head[:4] != b"GGUF":
        raise ParseError(path, 0, "GGUF magic b'GGUF'", f"{head[:4]!r}")
    _check_counts(path, head, size)
    try:
        # Bound before __init__ runs, so a failure inside it can name its offset.
        reader = _MetadataReader.__new__(_MetadataReader)
        reader.__init__(path)
        fields = [f for f in reader.fields.values() if not f.name.startswith("GGUF.")]
        rows = []
        for f in fields:
            reader.last_offset = int(f.offset)  # a bad string value names its field
            rows.append(_row(f))
        return rows
    except _ShortRead as exc:
        raise ParseError(path, exc.offset, "a complete GGUF header and KV section",
                         f"end of file at byte {exc.size} (truncated)") from None
    except UnicodeDecodeError as exc:
        raise ParseError(path, reader.last_offset, "UTF-8 keys and string values",
                         f"invalid UTF-8 ({exc.reason})") from None
    except (ValueError, KeyError) as exc:
        # Unsupported version, unknown value type, duplicate key, bad alignment.
        found = str(exc).strip("'\"")
        version = re.search(r"version (\d+)", found)
        if version:
            found = f"GGUF version {version[1]} (readable: {READER_SUPPORTED_VERSIONS})"
        raise ParseError(path, reader.last_offset, "a valid GGUF header", found) from None


FORMAT = Format(
    name="gguf",
    table="raw_gguf",
    version=3,                  # 3: absurd counts and cut values named by field and byte
    columns={"key": "VARCHAR", "value_type": "VARCHAR", "value": "VARCHAR"},
    parse=parse,
    description="GGUF header metadata, one row per key (gguf.GGUFReader).",
)
