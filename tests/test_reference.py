"""Declared parameters: a reference CSV that cannot be read names its file and line."""
import pytest

from pipeline.ingest.reference import ReferenceError, validate


@pytest.mark.parametrize("data, message", [
    (b"a,source\n1,cited\n\xff,x\n", ":3: expected UTF-8 text, found byte 0xff"),
    (b"a,b\n1,2\n", ":1: expected a 'source' column"),
    (b"a,source\n1,\n", ":2: expected a citation in 'source', found nothing"),
])
def test_bad_reference_csv_names_file_and_line(tmp_path, data, message):
    path = tmp_path / "x.csv"
    path.write_bytes(data)
    with pytest.raises(ReferenceError) as exc:
        validate(path)
    assert str(exc.value).startswith(str(path)) and message in str(exc.value)
