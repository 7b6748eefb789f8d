"""Hand-made lab series for the prefill pipeline model (fct_lab_pipeline_model and its row of
fct_pipeline_model_range): the tables those models read, filled from a few literals, shared by the
warehouse tests of the model's arithmetic, its fit and the tbf bucket."""
from __future__ import annotations

from contextlib import contextmanager

import duckdb

from model_runs import run_sql_model


def stub_lab_models(con, *tables: str) -> None:
    """Empty lab model tables (fct_lab_pipeline_model, fct_lab_decode_model,
    fct_lab_snapshot_model) with the columns fct_pipeline_model_range reads, for a test whose
    fixture fills only the others."""
    for table in tables:
        con.execute(f"create table {table} (campaign varchar, error_fraction double, range_fraction double, "
                    "inside_range boolean, published_exposed_wire_fraction double, "
                    "published_wire_wait_fraction double, published_bucket_refills bigint)")


def pipeline_lab(params: dict, series: dict, links: list) -> duckdb.DuckDBPyConnection:
    """Series of a 1,000-token prompt in micro-batches of 250 (n = 4), 8 blocks, 4 on the
    worker (s = 0.5), each timed on every link, and a two-worker series that the model leaves
    out. ``series``: name -> ((bytes a position head -> worker, back), {link: prefill s of its
    runs}); ``links``: (link, shaped rate bits/s or None, tbf bucket bytes or None, TCP bytes/s)."""
    con = duckdb.connect()
    con.execute("create table ref_measurement_params (parameter varchar, value varchar)")
    con.executemany("insert into ref_measurement_params values (?, ?)",
                    [(k, str(v)) for k, v in params.items()])
    con.execute("create table fct_lab_series_campaigns (campaign varchar, series varchar, "
                "prompt_tokens bigint, ubatch_tokens bigint, block_count bigint, "
                "worker_blocks bigint, workers bigint)")
    con.execute("create table int_lab__series_links (campaign varchar, link_id varchar, "
                "shaped_rate_bits_per_s double, shaped_burst_bytes double, tcp_bytes_per_s double)")
    con.execute("create table int_lab__series_runs (campaign varchar, link_id varchar, prefill_s double)")
    con.execute("create table fct_lab_series_traffic (campaign varchar, request varchar, "
                "direction varchar, median_bytes double, median_units double)")
    two_worker = {"x2": ((9e9, 0), {links[0][0]: [1.0], links[-1][0]: [9.0]})}
    for name, ((fwd, back), runs) in {**series, **two_worker}.items():
        con.execute("insert into fct_lab_series_campaigns values (?, ?, 1000, 250, 8, ?, ?)",
                    [name, name, 6 if name == "x2" else 4, 2 if name == "x2" else 1])
        con.executemany("insert into int_lab__series_links values (?, ?, ?, ?, ?)",
                        [(name, *link) for link in links])
        con.executemany("insert into int_lab__series_runs values (?, ?, ?)",
                        [(name, link, s) for link, times in runs.items() for s in times])
        con.executemany("insert into fct_lab_series_traffic values (?, 'prefill', ?, ?, 1000)",
                        [(name, "head_to_worker", fwd), (name, "worker_to_head", back)])
    run_sql_model(con, "marts/fct_lab_pipeline_model.sql")
    # no decode or snapshot rates here (their own tests have them): the summary's one row
    stub_lab_models(con, "fct_lab_decode_model", "fct_lab_snapshot_model")
    run_sql_model(con, "marts/fct_pipeline_model_range.sql")
    return con


def pipeline_deployment(con, classes: list) -> None:
    """Deployment 'd' in ``con`` beside a pipeline lab: a 1,000-token prompt at 500 tok/s
    (T0 = 2.0 s) on 2.5 GbE (usable 250 MB/s, the measured class), micro-batches of 250 (n = 4)
    of 10 MB to the worker (2 MB back, on the other wire); head 20 layers (1 MTP), worker 45:
    s = 45 / 64. ``classes``: the other link classes, (class, label, sort order, usable
    bytes/s, the additive model's gain). Builds fct_prefill_pipeline_what_if."""
    con.execute("create table fct_deployment_constants as select 'd' as campaign, 1000 as prefill_tokens, "
                "250 as ubatch_tokens, 1e7 as ubatch_bytes_head_to_worker, 2e6 as ubatch_bytes_worker_to_head, "
                "500.0 as prefill_tokens_per_s, "
                "20 as layers_head, 1 as mtp_layers_head, 45 as layers_worker, 0 as mtp_layers_worker")
    con.execute("create table fct_prefill_what_if (campaign varchar, link_class varchar, link_label varchar, "
                "sort_order int, is_measured boolean, usable_bytes_per_s double, gain_vs_measured_fraction double, "
                "parallel_slots int, prefill_tokens bigint, ubatch_tokens bigint, provenance varchar)")
    rows = [("2g5", "2.5 GbE", 2, True, 2.5e8, 0.0)] + [(c, l, o, False, b, g) for c, l, o, b, g in classes]
    con.executemany("insert into fct_prefill_what_if values ('d', ?, ?, ?, ?, ?, ?, 1, 1000, 250, 'reconstructed')",
                    rows)
    run_sql_model(con, "marts/fct_prefill_pipeline_what_if.sql")


@contextmanager
def median_error_target(con, value: float, models: list[str]):
    """Within the block, lab_target_median_error is ``value`` and ``models`` (paths under sql/,
    in build order) are rebuilt with it; after it, the old target and the models are back."""
    (old,) = con.execute("select value from ref_measurement_params "
                         "where parameter = 'lab_target_median_error'").fetchone()

    def apply(target) -> None:
        con.execute("update ref_measurement_params set value = ? where parameter = 'lab_target_median_error'",
                    [str(target)])
        for model in models:
            run_sql_model(con, model)

    apply(value)
    try:
        yield
    finally:
        apply(old)
