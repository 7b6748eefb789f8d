"""Several machines share one Dagster instance, so the Celery scale-out runs with the instance on
a real PostgreSQL server (config/dagster-postgres.yaml, as the Scaling out page gives it): a
server started by this test on a free loopback port (Debian's ``postgresql``; ``make tools``
installs it), a Redis broker and two Celery workers. The raw layer they leave is the one the
in-process run leaves, every campaign's step ran in a worker, and the run, its steps and its
events are rows of PostgreSQL: the instance made no SQLite file."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from pipeline.orchestration.raw_digest import models_digest, raw_digest
from pipeline.project import Project

from conftest import REPO
from support.scale_out import (
    celery_ingest,
    celery_workers_of_steps,
    free_port,
    ingest,
    need,
    redis_broker,
    tree_of,
)

CONFIG = REPO / "config" / "dagster-postgres.yaml"


def _pg_bin(tool: str) -> str:
    """Debian keeps the server's programs in /usr/lib/postgresql/<version>/bin."""
    found = shutil.which(tool) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}"),
                                                   reverse=True)), None)
    return found or need(tool)      # need() skips, or fails under CI=true, saying how to install


@pytest.fixture
def postgres():
    """A PostgreSQL server of its own on a free loopback port (as the ``postgres`` user when
    the test runs as root: the server refuses root), with a database ``dagster``; the
    DAGSTER_PG_* variables config/dagster-postgres.yaml reads. Stopped and removed after."""
    initdb, server, createdb = _pg_bin("initdb"), _pg_bin("postgres"), _pg_bin("createdb")
    as_user = "postgres" if os.geteuid() == 0 else None
    data = Path(tempfile.mkdtemp(prefix="pg-scale-out-"))
    if as_user:
        shutil.chown(data, as_user)
    port = free_port()
    run = dict(user=as_user, capture_output=True, text=True, check=True)
    subprocess.run([initdb, "-D", str(data / "db"), "-U", "dagster", "--auth=trust",
                    "-E", "UTF8", "--no-sync"], **run)
    proc = subprocess.Popen([server, "-D", str(data / "db"), "-h", "127.0.0.1", "-p", str(port),
                             "-k", str(data), "-c", "fsync=off"], user=as_user,
                            stdout=subprocess.DEVNULL, stderr=(data / "server.log").open("wb"))
    try:
        deadline = time.monotonic() + 60
        while subprocess.run([createdb, "-h", "127.0.0.1", "-p", str(port), "-U", "dagster",
                              "dagster"], user=as_user, capture_output=True).returncode != 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"PostgreSQL did not start on port {port}: "
                            f"{(data / 'server.log').read_text(errors='replace')[-2000:]}")
            time.sleep(0.2)
        yield {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_PORT": str(port),
               "DAGSTER_PG_DB": "dagster", "DAGSTER_PG_USER": "dagster",
               "DAGSTER_PG_PASSWORD": "unused-with-trust"}
    finally:
        proc.terminate()                # smart shutdown; the workers are gone by now
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(data, ignore_errors=True)


def _rows(pg: dict, sql: str) -> list[tuple]:
    import psycopg2
    con = psycopg2.connect(host=pg["DAGSTER_PG_HOST"], port=int(pg["DAGSTER_PG_PORT"]),
                           dbname=pg["DAGSTER_PG_DB"], user=pg["DAGSTER_PG_USER"])
    try:
        with con.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
    finally:
        con.close()


def test_celery_workers_on_an_instance_in_postgres_leave_the_in_process_raw_layer(
        tmp_path, postgres, monkeypatch):
    reference = tree_of(tmp_path / "in-process")
    done = ingest(reference)
    assert done.returncode == 0, done.stderr[-3000:]

    root = tree_of(tmp_path / "celery")
    shutil.copy(CONFIG, root / ".dagster_home" / "dagster.yaml")     # the page's file, as is
    for name, value in postgres.items():    # the launcher's and the workers' environment
        monkeypatch.setenv(name, value)
    with redis_broker(tmp_path) as broker:
        run = celery_ingest(root, broker)
    assert run.returncode == 0, run.stderr[-3000:]
    # raw layer: the list, 3 campaigns, the summary; models: the list, the template, 3
    # campaigns, the summary
    assert "succeeded: 11 step(s)" in run.stderr
    assert raw_digest(Project(root)) == raw_digest(Project(reference))
    assert models_digest(Project(root)) == models_digest(Project(reference))

    # the run and its events are rows of PostgreSQL
    assert _rows(postgres, "select status from runs") == [("SUCCESS",)]
    assert _rows(postgres, "select count(*) from event_logs where step_key like "
                           "'raw_layer.ingest_campaign[%'")[0][0] > 0
    # read back through Dagster on the same file: each campaign's step ran in a worker
    ran_in = celery_workers_of_steps(root)
    keys = {"lab_veth_tbf", "lab_rpc_veth", "aws_p3_tc"}
    assert {k for k in ran_in if k.startswith("raw_layer.ingest_campaign[")} == \
        {f"raw_layer.ingest_campaign[{k}]" for k in keys}
    assert {k for k in ran_in if k.startswith("campaign_models.campaign_model_step[")} == \
        {f"campaign_models.campaign_model_step[{k}]" for k in keys}
    assert {v.split("@")[0] for v in ran_in.values()} <= {"w0", "w1"}
    # and not in SQLite files beside the instance
    home = root / ".dagster_home"
    assert not [p for p in home.rglob("*.db")], sorted(map(str, home.rglob("*.db")))


def test_the_scaling_out_page_gives_the_file_this_test_runs():
    """The page's dagster.yaml is config/dagster-postgres.yaml, comments aside, line for line."""
    page = (REPO / "templates" / "scaling-out.md.j2").read_text(encoding="utf-8")
    block = page.split("```yaml\n", 1)[1].split("```", 1)[0]
    shown = [line[4:] for line in block.splitlines() if line.strip()]
    wanted = [line for line in CONFIG.read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.lstrip().startswith("#")]
    assert shown == wanted
    assert "    postgres_db:" in shown
