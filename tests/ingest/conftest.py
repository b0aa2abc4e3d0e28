"""What the source tests of this folder share: each source's real offline inputs read once."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_read import OfflineRead, ReadOffline, read_offline


@pytest.fixture(scope="package")
def offline_read(test_data_cache: Path) -> ReadOffline:
    """A source's offline inputs read by its module, once per run of this folder: the full HPO
    release and GO corpus take ~10 s each to parse, and the contract, HPO and GO tests all
    check them (read-only: records are polars frames)."""
    done: dict[str, OfflineRead] = {}

    def read(name: str) -> OfflineRead:
        if name not in done:
            done[name] = read_offline(test_data_cache, name)
        return done[name]

    return read
