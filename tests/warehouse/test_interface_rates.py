"""int_deployment__interface_rates on hand-made rows: what "line rate" is on each interface
(the tc-shaped rate, else the negotiated speed, none on a nominal speed) and the rate busy
intervals are found against; an interface two links name is one row."""
import duckdb
import pytest

from pipeline.warehouse.models import discover, run_model

from conftest import REPO


@pytest.fixture
def con():
    c = duckdb.connect()
    c.execute("""create table stg_deployment__ethtool as
        select * from (values ('c', 'shaped', 'veth0', 10000000000),
                              ('c', 'nominal', 'veth1', 10000000000),
                              ('c', 'plain', 'eth0', 2500000000),
                              ('c', 'twice', 'eth1', 1000000000),
                              ('c', 'unlisted', 'eth9', 1000000000))
        as t(campaign, host, interface, negotiated_bits_per_s)""")
    c.execute("""create table int_deployment__link_interfaces as
        select * from (values
            ('c', 'l1', 'shaped', 'veth0', 50000000.0, true),
            ('c', 'l2', 'nominal', 'veth1', null, true),
            ('c', 'l3', 'plain', 'eth0', null, false),
            ('c', 'old', 'twice', 'eth1', null, false),      -- a retired link on the same port
            ('c', 'new', 'twice', 'eth1', 100000000.0, false),
            ('c', 'l9', null, null, null, false))
        as t(campaign, link_id, host, interface, shaped_rate_bits_per_s, nominal_speed)""")
    model = {m.name: m for m in discover(REPO / "sql")}["int_deployment__interface_rates"]
    run_model(c, model)
    return c


def test_line_rate_and_busy_rate_per_interface(con):
    rows = con.execute("select host, busy_rate_bits_per_s, line_rate_bits_per_s, line_rate_basis "
                       "from int_deployment__interface_rates order by host").fetchall()
    assert rows == [
        ("nominal", 10e9, None, "no line rate (nominal speed)"),   # a veth: no share to take
        ("plain", 2.5e9, 2.5e9, "negotiated speed"),
        ("shaped", 50e6, 50e6, "shaped rate"),                   # the tbf rate, both ways
        ("twice", 100e6, 100e6, "shaped rate"),                  # one row for two links
        ("unlisted", 1e9, 1e9, "negotiated speed"),              # no manifest entry: ethtool's
    ]


def test_a_shaped_links_bucket_comes_from_the_manifest_or_its_tc_command():
    c = duckdb.connect()
    # stg_raw__campaigns' links as the manifest has them
    c.execute("""create table stg_raw__campaigns as select 'c' as campaign, '{
        "new": {"shaped_rate_bits_per_s": 25000000, "shaped_burst_bytes": 4096,
                "qdisc": "tc qdisc add dev <veth end> root tbf rate 25mbit burst 4kb latency 50ms"},
        "old": {"shaped_rate_bits_per_s": 25000000,
                "qdisc": "tc qdisc add dev <veth end> root tbf rate 25mbit burst 64kb latency 50ms"},
        "odd": {"shaped_rate_bits_per_s": 25000000, "qdisc": "htb rate 25mbit"},
        "plain": {"label": "eth0"}}'::json as links""")
    model = {m.name: m for m in discover(REPO / "sql")}["int_deployment__link_interfaces"]
    run_model(c, model)
    rows = dict(c.execute("select link_id, shaped_burst_bytes from int_deployment__link_interfaces").fetchall())
    # new: the manifest's 4,096; old: "burst 64kb" is 64 x 1,024 = 65,536 (tc's kb is KiB);
    # odd: a command with no burst, and plain: unshaped, say nothing
    assert rows == {"new": 4096, "old": 65536, "odd": None, "plain": None}
