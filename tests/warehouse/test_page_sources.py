"""meta_page_sources as the page renders leave it: a page's rows replace the ones it had, the
same file listed twice is one row, and pages no longer published are pruned."""
import duckdb

from pipeline.warehouse import page_sources


def _rows(con):
    return con.execute("select page, mart, source_file from main.meta_page_sources "
                       "order by all").fetchall()


def test_a_render_replaces_its_pages_rows_and_prune_keeps_the_live_pages():
    con = duckdb.connect()
    page_sources.replace_rows(con, "home", [("home", "Home", "m", "a.txt", "s1", "ping"),
                                            ("home", "Home", "m", "a.txt", "s1", "ping")])
    page_sources.replace_rows(con, "deployments/x", [("deployments/x", "D: x", "m", "b.txt",
                                                      None, "iperf3")])
    assert _rows(con) == [("deployments/x", "m", "b.txt"), ("home", "m", "a.txt")]
    # home renders again with another file: its old row is gone, the other page's stays
    page_sources.replace_rows(con, "home", [("home", "Home", "n", "c.txt", "s3", "env")])
    assert _rows(con) == [("deployments/x", "m", "b.txt"), ("home", "n", "c.txt")]
    # campaign x withheld or removed: its page is not live, its rows go; 1 row is left
    assert page_sources.prune(con, {"home"}) == 1
    assert _rows(con) == [("home", "n", "c.txt")]
    page_sources.replace_rows(con, "home", [])
    assert _rows(con) == []
