"""One Prefect server for the flow tests of this folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prefect.settings import PREFECT_API_URL
from prefect.testing.utilities import prefect_test_harness


@pytest.fixture(scope="package")
def prefect_api() -> Iterator[str]:
    """A real Prefect server on loopback with a SQLite database of its own (Prefect's
    ``prefect_test_harness``), set as this process's API; its URL, for a child process's
    ``PREFECT_API_URL``. Started once for the folder (each start costs 10-20 s of CPU) and
    stopped after its last test, so it does not idle beside the rest of the suite."""
    with prefect_test_harness(server_startup_timeout=120):
        yield PREFECT_API_URL.value()
