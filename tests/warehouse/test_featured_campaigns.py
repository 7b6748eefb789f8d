"""Which campaign each featured slot of the shared pages shows (sql/marts/dim_featured_campaigns.sql),
on hand-made tables: the declared one when it has the slot's data, else the newest that has it."""
from __future__ import annotations

import duckdb

from pipeline.warehouse import models

from paths import REPO

ROOT = REPO


def _slots(declared: dict[str, str]) -> dict[str, tuple]:
    con = duckdb.connect()
    con.execute("create table ref_featured_campaigns (slot varchar, campaign varchar)")
    for slot, campaign in declared.items():
        con.execute("insert into ref_featured_campaigns values (?, ?)", [slot, campaign])
    con.execute("create table fct_deployment_constants (campaign varchar, campaign_date date, "
                "wire_bytes_per_position_head_to_worker double, wire_bytes_per_position_worker_to_head double)")
    con.executemany("insert into fct_deployment_constants values (?, ?, ?, ?)", [
        ("d1", "2026-01-01", 40755.0, 5000.0),   # both directions measured
        ("d2", "2026-03-01", None, 5000.0),      # newer, but the head -> worker bytes are missing
    ])
    con.execute("create table fct_p2p_campaigns (campaign varchar, campaign_date date, "
                "n_tc_transfers bigint, n_region_files bigint)")
    con.executemany("insert into fct_p2p_campaigns values (?, ?, ?, ?)", [
        ("t1", "2026-01-01", 30, 0),             # a tc campaign
        ("r1", "2026-05-01", 0, 90),             # a newer region campaign: no tc transfers
    ])
    path = ROOT / "sql" / "marts" / "dim_featured_campaigns.sql"
    models.run_model(con, models.Model(path, path.read_text()))
    return {slot: tuple(rest) for slot, *rest in con.execute(
        "select slot, campaign, is_declared, candidates from dim_featured_campaigns").fetchall()}


def test_a_declared_campaign_without_the_slots_data_gives_way_to_the_newest_with_it():
    got = _slots({"deployment": "d2", "p2p_tc": "r1", "p2p_regions": "r1"})
    # d2 lacks the head -> worker bytes the slot needs: d1, the only candidate
    assert got["deployment"] == ("d1", False, 1)
    # r1 has no tc transfers: the tc slot shows t1 (its only candidate), not the declared r1
    assert got["p2p_tc"] == ("t1", False, 1)
    assert got["p2p_regions"] == ("r1", True, 1)


def test_without_a_declaration_the_newest_candidate_is_shown():
    got = _slots({})
    assert got == {"deployment": ("d1", False, 1), "p2p_tc": ("t1", False, 1), "p2p_regions": ("r1", False, 1)}


def test_a_campaign_declared_for_another_slot_is_not_declared_for_this_one():
    # r1 declared for the tc slot only (where it does not qualify): the regions slot shows r1 as
    # the newest candidate, not as declared
    got = _slots({"p2p_tc": "r1"})
    assert got["p2p_regions"] == ("r1", False, 1) and got["p2p_tc"] == ("t1", False, 1)
