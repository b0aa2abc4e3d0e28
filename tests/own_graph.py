"""Settings of a graph of its own, for tests that must know everything in their graph (conftest's
``own_graph_settings`` and module-scoped fixtures use it), and the test data every graph home
shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from biokg.settings import Settings
from biokg.store.embedded import free_port

#: Real packaged data fetched once per machine and reused between runs (conftest's
#: ``test_data_cache``): the Debian packages GO is rendered from, and the models made from the
#: packaged all-MiniLM-L6-v2 (the distilled static model, the ONNX export).
TEST_DATA = Path.home() / ".cache" / "biokg" / "test-data"

#: Folders of a home's cache that hold the same files in every home, made on first use: linked
#: to the test data's, so no graph home of a test run distils the static model again (~30 s),
#: exports the ONNX graph again or downloads the Debian packages again. What a home builds or
#: embeds (go-corpus, loads, vectors, lexicon) stays its own.
SHARED_CACHE = ("models", "debian")


def share_test_data(settings: Settings) -> Settings:
    """Link ``settings``' cache folders named in SHARED_CACHE to the test data's; returns
    ``settings``."""
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    for name in SHARED_CACHE:
        (TEST_DATA / name).mkdir(parents=True, exist_ok=True)
        link = settings.cache_dir / name
        if not link.exists():
            link.symlink_to(TEST_DATA / name, target_is_directory=True)
    return settings


def fresh_graph_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings of an empty graph of its own: a fresh home (sharing the test data) and free
    ports."""
    return share_test_data(
        Settings.from_env(
            {
                "BIOKG_HOME": str(tmp_path_factory.mktemp("biokg-own-home")),
                "BIOKG_BOLT_PORT": str(free_port()),
                "BIOKG_HTTP_PORT": str(free_port()),
            }
        )
    )
