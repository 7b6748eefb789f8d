"""fct_netdev_utilisation on hand-made upstream rows, and the Ethernet page's charts on the
built warehouse (deterministic bytes, valid SVG, one heatmap cell per feasibility row)."""
import re
import xml.etree.ElementTree as ET

import duckdb
import pytest

from pipeline.publish.charts import ethernet_bandwidth_math, feasibility

CHARTS = [*ethernet_bandwidth_math.CHARTS, *feasibility.CHARTS]
from pipeline.warehouse.models import discover, run_model
from pipeline.warehouse.schemas import campaign_schema, set_search_path

from conftest import REPO, warehouse


@pytest.fixture
def con():
    c = duckdb.connect()
    c.execute("""create table int_deployment__window_traffic as
        select * replace (start_unix_s::double as start_unix_s, end_unix_s::double as end_unix_s)
        from (values
            ('c', 'prefill', 'h', 'l', 'eth0', 'h.netdev', 100.0, 101.0),
            ('c', 'prefill', 'w', 'l', 'eth1', 'w.netdev', 100.0, 101.0))
        as t(campaign, window_kind, host, link_id, interface, source_file, start_unix_s, end_unix_s)""")
    c.execute("""create table int_netdev__intervals as
        select source_file, interface, start_unix_s::double as start_unix_s,
               end_unix_s::double as end_unix_s, (end_unix_s - start_unix_s)::double as interval_s,
               tx_bytes::bigint as tx_bytes, rx_bytes::bigint as rx_bytes from (values
            ('h.netdev', 'eth0', 97.0, 97.5, 1000, 0),     -- ends before 100 - 2: dropped
            ('h.netdev', 'eth0', 97.9, 98.1, 0, 0),        -- ends after 98: kept
            ('h.netdev', 'eth0', 100.0, 100.02, 3125000, 625000),
            ('h.netdev', 'lo',   100.0, 100.02, 9999, 9999), -- not the link's interface: dropped
            ('h.netdev', 'eth0', 102.9, 103.1, 0, 0),      -- starts before 101 + 2: kept
            ('h.netdev', 'eth0', 103.0, 103.5, 0, 0),      -- starts at 103: dropped
            ('w.netdev', 'eth1', 100.5, 100.52, 2500000, 0))
        as t(source_file, interface, start_unix_s, end_unix_s, tx_bytes, rx_bytes)""")
    c.execute("""create table int_deployment__host_roles as
        select * from (values ('c', 'h', 'head'), ('c', 'w', 'worker')) as t(campaign, host, role)""")
    # the head's link at its negotiated 2.5 Gbit/s; the worker's negotiated 1 Gbit/s, shaped
    # by tc to 500 Mbit/s (int_deployment__interface_rates: its chart rate is the shaped one)
    c.execute("""create table int_deployment__interface_rates as
        select * from (values ('c', 'h', 'eth0', 2500000000, 2500000000),
                              ('c', 'w', 'eth1', 1000000000, 500000000))
        as t(campaign, host, interface, negotiated_bits_per_s, busy_rate_bits_per_s)""")
    c.execute("""create table ref_measurement_params as
        select * from (values ('chart_margin_s', '2.0')) as t(parameter, value)""")
    model = {m.name: m for m in discover(REPO / "sql")}["fct_netdev_utilisation"]
    run_model(c, model)
    return c


def test_utilisation_keeps_the_window_and_its_margin(con):
    rows = con.execute("select host, host_role, start_s, tx_bits_per_s, tx_line_rate_fraction, "
                       "rx_line_rate_fraction, window_s from fct_netdev_utilisation "
                       "order by host, start_s").fetchall()
    head = [r for r in rows if r[0] == "h"]
    # window 100..101, margin 2 s: intervals ending after 98 and starting before 103
    assert [round(r[2], 6) for r in head] == [-2.1, 0.0, 2.9]
    _, role, _, bps, frac, rx_frac, window_s = head[1]
    assert role == "head" and window_s == pytest.approx(1.0)
    # 3,125,000 bytes x 8 / 0.02 s = 1.25e9 bit/s; / 2.5e9 line rate = 0.5
    assert bps == pytest.approx(1.25e9)
    assert frac == pytest.approx(0.5)
    # rx: 625,000 x 8 / 0.02 = 2.5e8 bit/s; / 2.5e9 = 0.1
    assert rx_frac == pytest.approx(0.1)
    worker = [r for r in rows if r[0] == "w"]
    # 2,500,000 x 8 / 0.02 = 1e9 bit/s on a link shaped to 500 Mbit/s = 2.0 (a tbf burst: the
    # share is of the shaped rate, not of the 1 Gbit/s the interface negotiated)
    assert len(worker) == 1 and worker[0][1] == "worker" and worker[0][4] == pytest.approx(2.0)


SLUGS = {"deployment": "deployments/qwen38-27b-pp", "ethernet-bandwidth-math": "ethernet-bandwidth-math"}


@pytest.mark.parametrize("chart", CHARTS, ids=[c.name for c in CHARTS])
def test_chart_is_deterministic_svg(built, chart):
    with warehouse(built) as c:
        if chart.page == "deployment":   # drawn from the campaign's own schema
            set_search_path(c, campaign_schema("qwen38-27b-pp"))
        first, second = chart.render(c), chart.render(c)
    assert first == second
    root = ET.fromstring(first)
    assert root.tag.endswith("svg") and root.find("{http://www.w3.org/2000/svg}title").text
    # the build wrote the same bytes beside the page
    assert (built.docs / chart.path(SLUGS[chart.page])).read_text() == first


def test_heatmap_has_one_cell_per_feasibility_row(built):
    chart = next(c for c in CHARTS if c.name == "ebm_feasibility_heatmap")
    with warehouse(built) as c:
        svg = chart.render(c)
        shares = [r[0] for r in c.execute("select usable_share_fraction from fct_link_feasibility "
                                          "order by model_sort_order, scheme, batch_size, "
                                          "tokens_per_s, link_sort_order").fetchall()]
    cells = re.findall(r">([0-9.]+) %</text>", svg)
    # the cell text is the share x 100 with one decimal, in the table's row order
    assert sorted(cells) == sorted(f"{s * 100:.1f}" for s in shares)
    # each cell's text carries black ink of its own (its class fill is light in either palette;
    # docs/javascripts/charts.js recolours only text without a fill to the page's ink)
    inked = re.findall(r'<text [^>]*fill="#000000"[^>]*>[0-9.]+ %</text>', svg)
    assert len(inked) == len(cells)
