"""A GGUF header's counts and cuts named by the field (pipeline/ingest/formats/gguf.py): a kv_count
no file of its size can hold and an absurd tensor_count are refused at their offsets (16 and 8),
and a file cut inside a value names the byte where it ends, never numpy's words about dtypes."""
from __future__ import annotations

import struct

import pytest
from gguf import GGUFWriter

from parser_cases import assert_rejects
from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.gguf import MAX_TENSORS, parse


@pytest.fixture
def header(tmp_path) -> bytes:
    path = tmp_path / "small.gguf"
    w = GGUFWriter(path, arch="llama")
    w.add_string("general.name", "counts")
    w.add_uint32("llama.block_count", 2)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path.read_bytes()


def _file(tmp_path, data: bytes):
    path = tmp_path / "bad.gguf"
    path.write_bytes(data)
    return path


def test_the_header_as_written_parses(tmp_path, header):
    assert {r["key"] for r in parse(_file(tmp_path, header))} == {
        "general.architecture", "general.name", "llama.block_count"}


def test_a_kv_count_no_file_of_its_size_holds_is_named_at_offset_16(tmp_path, header):
    data = header[:16] + struct.pack("<Q", 2 ** 40) + header[24:]
    most = (len(data) - 24) // 14       # 14 bytes: key length, a 1-byte key, type, a 1-byte value
    assert_rejects(parse, _file(tmp_path, data), 16,
                   f"expected a kv_count this file can hold (at most {most:,} key/value pairs in "
                   f"{len(data):,} bytes, 14 bytes each at least), found 1,099,511,627,776")


def test_an_absurd_tensor_count_is_named_at_offset_8(tmp_path, header):
    data = header[:8] + struct.pack("<Q", MAX_TENSORS + 1) + header[16:]
    assert_rejects(parse, _file(tmp_path, data), 8,
                   f"expected a tensor_count of at most {MAX_TENSORS:,}, found {MAX_TENSORS + 1:,}")


@pytest.mark.parametrize("cut", [10, 20, 30, 40])
def test_a_cut_names_the_byte_where_the_file_ends(tmp_path, header, cut):
    with pytest.raises(ParseError) as info:
        parse(_file(tmp_path, header[:cut]))
    assert f"found end of file at byte {cut} (truncated)" in str(info.value)
    assert "dtype" not in str(info.value)
