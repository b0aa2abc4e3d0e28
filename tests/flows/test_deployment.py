"""Deployments: a real Prefect server on loopback (conftest: SQLite, a database of its own) runs
the served ``refresh-hpo`` deployment to completion, and the run's artifact holds the report."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from own_graph import fresh_graph_settings, release
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
from prefect.deployments import run_deployment
from prefect.exceptions import ObjectNotFound
from upstream import Upstream, hpo_release, publish

from biokg.flows.deploy import schedules
from biokg.flows.refresh import REPORT_KEY
from biokg.store import GraphStore
from biokg.store.embedded import settings_env

REPO = Path(__file__).resolve().parents[2]
STARTUP_S = 120


def _wait_for_deployment(name: str, process: subprocess.Popen) -> None:
    """Until the serving process has registered ``name`` with the server."""
    deadline = time.monotonic() + STARTUP_S
    with get_client(sync_client=True) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the serving process exited with {process.returncode}")
            try:
                client.read_deployment_by_name(name)
                return
            except ObjectNotFound:
                time.sleep(0.5)
    raise TimeoutError(f"deployment {name} not registered within {STARTUP_S} s")


@pytest.mark.slow
def test_a_served_deployment_runs_the_refresh_and_keeps_its_report(
    prefect_api: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    upstream = Upstream()
    http = upstream.serve()
    publish(upstream, "hpo", hpo_release(), at=1.7e9)
    own = fresh_graph_settings(tmp_path_factory, started=True)
    GraphStore.connect(own).close()  # the graph's engine, found by the flow run's process
    served = subprocess.Popen(
        [sys.executable, "-m", "biokg.flows.deploy"],
        cwd=REPO,
        env={
            **os.environ,
            "PREFECT_HOME": str(tmp_path_factory.mktemp("prefect-home")),  # not the user's
            "PREFECT_API_URL": prefect_api,
            **settings_env(own),
            "BIOKG_HPO_URL": f"{upstream.url}/hpo",
            # the runner looks for scheduled runs every second, not every ten (Prefect's
            # default), so the run starts when it is asked for
            "PREFECT_RUNNER_POLL_FREQUENCY": "1",
        },
    )
    try:
        # this process's API is the conftest's server already (prefect_test_harness)
        _wait_for_deployment("refresh/refresh-hpo", served)
        run = run_deployment(
            "refresh/refresh-hpo",
            parameters={"sources": ["hpo"], "offline": True, "sample": True, "embed": False},
            timeout=300,
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
        served.terminate()
        served.wait(timeout=30)
        http.shutdown()
        release(own)


def test_prefect_yaml_declares_the_served_deployments_and_schedules() -> None:
    declared = yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"]
    found = {
        d["name"]: (
            d["parameters"].get("sources", []),
            d["schedules"][0]["cron"] if d["schedules"] else None,
        )
        for d in declared
    }
    assert found == schedules()
    assert {d["entrypoint"] for d in declared} == {"flows/refresh.py:refresh_flow"}
