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


def test_each_csv_becomes_a_ref_table_with_its_rows(tmp_path):
    import duckdb

    from pipeline.ingest.reference import load, reference_files, table_name
    ref = tmp_path / "reference"
    assert reference_files(ref) == []                       # no folder: no reference tables
    ref.mkdir()
    (ref / "link-classes.csv").write_text("label,gbit,source\n1 GbE,1,IEEE 802.3\n10 GbE,10,IEEE 802.3\n")
    (ref / "a.csv").write_text("k,source\nx,cited\n")
    (ref / "notes.txt").write_text("not a table\n")
    files = reference_files(ref)
    assert files == [ref / "a.csv", ref / "link-classes.csv"]           # sorted, CSV only
    assert [table_name(f) for f in files] == ["ref_a", "ref_link_classes"]
    con = duckdb.connect()
    assert load(con, ref / "link-classes.csv") == 2
    assert con.execute("select label, gbit, source from ref_link_classes order by gbit").fetchall() == \
        [("1 GbE", 1, "IEEE 802.3"), ("10 GbE", 10, "IEEE 802.3")]
    (ref / "link-classes.csv").write_text("label,gbit,source\n25 GbE,25,IEEE 802.3by\n")
    assert load(con, ref / "link-classes.csv") == 1                  # replaced, not appended


def test_a_blank_citation_is_as_missing_as_none(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("a,source\n1,ok\n2,   \n")
    with pytest.raises(ReferenceError, match=r"x\.csv:3: expected a citation in 'source', found nothing"):
        validate(path)


def test_an_empty_file_has_no_source_column(tmp_path):
    path = tmp_path / "x.csv"
    path.write_bytes(b"")
    with pytest.raises(ReferenceError, match=r"x\.csv:1: expected a 'source' column, found None"):
        validate(path)


def test_the_undecodable_byte_is_named_on_its_own_line(tmp_path):
    path = tmp_path / "x.csv"
    path.write_bytes(b"a,source\n1,ok\n2,ok\n\xc3(,x\n")
    with pytest.raises(ReferenceError) as exc:
        validate(path)
    assert str(exc.value) == (f"{path}:4: expected UTF-8 text, found byte 0xc3; "
                              f"save the file as UTF-8")
