"""Deployments, on a real Prefect server on loopback (conftest: SQLite, a database of its own):
the ``refresh-hpo`` deployment, served by ``python -m biokg.flows.deploy`` or sent by its
``--pool`` to a work pool that a real process worker polls, runs the refresh to completion, and
the run's artifact holds the report. Every deployment is made from the source registry
(decision 0032): the pool holds one per entry of ``schedules()``, on its cron."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from subprocess import Popen

import pytest
from own_graph import fresh_graph_settings, release
from prefect.client.orchestration import SyncPrefectClient, get_client
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterFlowRunId,
    WorkPoolFilter,
    WorkPoolFilterName,
)
from prefect.deployments import run_deployment
from prefect.exceptions import ObjectNotFound
from upstream import Upstream, hpo_release, publish

from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.flows.deploy import schedules
from biokg.flows.refresh import REPORT_KEY

REPO = Path(__file__).resolve().parents[2]
STARTUP_S = 120
DEPLOY = [sys.executable, "-m", "biokg.flows.deploy"]


def _wait_for(what: str, read: Callable[[SyncPrefectClient], object], process: Popen) -> None:
    """Until ``read`` finds ``what`` on the server, which ``process`` registers as it starts."""
    deadline = time.monotonic() + STARTUP_S
    with get_client(sync_client=True) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{process.args} exited with {process.returncode}")
            try:
                read(client)
                return
            except ObjectNotFound:
                time.sleep(0.5)
    raise TimeoutError(f"{what} not registered within {STARTUP_S} s")


@contextmanager
def _running(road: str, env: dict[str, str]) -> Iterator[None]:
    """The long-running process that runs the deployments' flow runs, until the block ends: the
    serving process, or a process worker polling the pool ``road``, the deployments sent there."""
    if road == "served":
        process = Popen(DEPLOY, cwd=REPO, env=env)
    else:  # the worker creates its pool, as docker-compose's does; its runs need no checkout
        worker = ["prefect", "worker", "start", "--pool", road, "--type", "process"]
        process = Popen([sys.executable, "-m", *worker], cwd=env["PREFECT_HOME"], env=env)
    try:
        if road == "served":
            name = "refresh/refresh-hpo"
            _wait_for(name, lambda client: client.read_deployment_by_name(name), process)
        else:
            _wait_for(f"work pool {road}", lambda client: client.read_work_pool(road), process)
            send = [*DEPLOY, "--pool", road]
            subprocess.run(send, cwd=REPO, env=env, check=True, timeout=STARTUP_S)
        yield
    finally:
        process.terminate()
        process.wait(timeout=30)


def assert_one_deployment_per_schedule(pool: str) -> None:
    """``python -m biokg.flows.deploy --pool NAME``, the command a work pool's deployments are
    made by (there is no prefect.yaml), has sent every deployment of ``schedules()`` to the pool
    ``pool``. Checked where the worker road above has sent them, not by a test of its own: each
    send is a process that imports Prefect and biokg's flows (~10 s, 2026-12-07)."""
    with get_client(sync_client=True) as client:
        sent = client.read_deployments(
            work_pool_filter=WorkPoolFilter(name=WorkPoolFilterName(any_=[pool]))
        )
    found = {
        d.name: (
            d.parameters.get("sources", []),
            d.schedules[0].schedule.cron if d.schedules else None,
        )
        for d in sent
    }
    assert found == schedules()
    assert {d.entrypoint for d in sent} == {"biokg.flows.refresh.refresh_flow"}


@pytest.mark.slow
@pytest.mark.usefixtures("forget_deployments")
@pytest.mark.parametrize("road", ["served", "biokg-worker"])
def test_a_deployment_runs_the_refresh_and_keeps_its_report(
    road: str, prefect_api: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    upstream = Upstream()
    http = upstream.serve()
    publish(upstream, "hpo", hpo_release(), at=1.7e9)
    own = fresh_graph_settings(tmp_path_factory, started=True)
    GraphStore.connect(own).close()  # the graph's engine, found by the flow run's process
    env = {
        **os.environ,
        "PREFECT_HOME": str(tmp_path_factory.mktemp("prefect-home")),  # not the user's
        "PREFECT_API_URL": prefect_api,
        **settings_env(own),
        "BIOKG_HPO_URL": f"{upstream.url}/hpo",
        # a worker runs each flow in a temporary folder: the offline samples by the setting
        "BIOKG_SHARED_DATA": str(own.shared_data),
        # the runner and the worker look for scheduled runs every second, not every ten
        # (Prefect's default), so the run starts when it is asked for
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
        "PREFECT_WORKER_QUERY_SECONDS": "1",
    }
    try:
        with _running(road, env):
            if road != "served":  # sent by ``python -m biokg.flows.deploy --pool biokg-worker``
                assert_one_deployment_per_schedule(road)
            # this process's API is the conftest's server already (prefect_test_harness); asked
            # every second whether the run is done, not every five (Prefect's default)
            run = run_deployment(
                "refresh/refresh-hpo",
                parameters={"sources": ["hpo"], "offline": True, "sample": True, "embed": False},
                timeout=300,
                poll_interval=1,
            )
        with get_client(sync_client=True) as client:
            artifacts = client.read_artifacts(
                artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id]))
            )
        assert run.state is not None and run.state.is_completed(), run.state
        [report] = [a for a in artifacts if a.key == REPORT_KEY]
        assert "| hpo | reloaded | - → 2025-01-16 |" in report.data
        assert upstream.statuses("/hpo/release.json") == [200]
    finally:
        http.shutdown()
        release(own)
