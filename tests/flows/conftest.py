"""One Prefect server for the flow tests of this folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.actions import WorkPoolCreate
from prefect.client.schemas.filters import FlowFilter, FlowFilterName
from prefect.settings import PREFECT_API_URL
from prefect.testing.utilities import prefect_test_harness
from prefect.workers.process import ProcessWorker


@pytest.fixture(scope="package")
def prefect_api() -> Iterator[str]:
    """A real Prefect server on loopback with a SQLite database of its own (Prefect's
    ``prefect_test_harness``), set as this process's API; its URL, for a child process's
    ``PREFECT_API_URL``. Started once for the folder (each start costs 10-20 s of CPU) and
    stopped after its last test, so it does not idle beside the rest of the suite."""
    with prefect_test_harness(server_startup_timeout=120):
        yield PREFECT_API_URL.value()


@pytest.fixture
def forget_deployments(prefect_api: str) -> Iterator[None]:
    """After the test, no deployment of the refresh flow is left on the folder's server: served
    and pool deployments share their names, and one left over would take the next test's runs
    (or make its wait for a served one return early)."""
    yield
    with get_client(sync_client=True) as client:
        refresh = FlowFilter(name=FlowFilterName(any_=["refresh"]))
        for deployment in client.read_deployments(flow_filter=refresh):
            client.delete_deployment(deployment.id)


@pytest.fixture
def work_pool(forget_deployments: None) -> Iterator[str]:
    """A process work pool of the test's own, as ``prefect work-pool create --type process``
    makes it; its name. Removed after the test, after the deployments sent to it."""
    name = "biokg-test-pool"
    template = ProcessWorker.get_default_base_job_template()
    with get_client(sync_client=True) as client:
        client.create_work_pool(
            WorkPoolCreate(name=name, type="process", base_job_template=template)
        )
    yield name
    with get_client(sync_client=True) as client:
        client.delete_work_pool(name)
