"""Settings of a graph of its own, for tests that must know everything in their graph (conftest's
``own_graph_settings`` and module-scoped fixtures use it), and the test data every graph home
shares."""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from biokg.schema import load_schema
from biokg.settings import Settings
from biokg.store import GraphStore
from biokg.store.embedded import free_port, start_background

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


def fresh_graph_settings(
    tmp_path_factory: pytest.TempPathFactory, *, started: bool = False
) -> Settings:
    """Settings of an empty graph of its own: a fresh home (sharing the test data) and free
    ports; with ``started``, its engine already listening with the schema applied
    (:data:`SPARE`), otherwise started by the first connect or CLI command. The caller stops it
    (``embedded.stop_background``)."""
    if started:
        return SPARE.take(tmp_path_factory)
    return share_test_data(
        Settings.from_env(
            {
                "BIOKG_HOME": str(tmp_path_factory.mktemp("biokg-own-home")),
                "BIOKG_BOLT_PORT": str(free_port()),
                "BIOKG_HTTP_PORT": str(free_port()),
            }
        )
    )


class SpareGraph:
    """One empty graph whose engine starts, and gets schema/'s constraints and indexes, in a
    background thread while the tests before it run, so a test asking for a started graph of
    its own mostly finds one ready instead of waiting for a JVM (~4 s) and the schema (~5 s),
    ~50 times a run. Its engine exits with the test process."""

    def __init__(self) -> None:
        self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spare-graph")
        self._next: tuple[Settings, Future] | None = None

    def take(self, tmp_path_factory: pytest.TempPathFactory) -> Settings:
        if self._next is None:
            self._next = self._start(tmp_path_factory)
        settings, starting = self._next
        starting.result()  # raises what the start raised
        self._next = self._start(tmp_path_factory)
        return settings

    def _start(self, tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Future]:
        settings = fresh_graph_settings(tmp_path_factory)
        return settings, self._starter.submit(_start_with_schema, settings)


def _start_with_schema(settings: Settings) -> None:
    """Start the graph's engine and apply schema/'s constraints and indexes, as every build and
    first load does before it writes (~5 s on a fresh graph, 0.3 s once they exist)."""
    start_background(settings, owner_pid=os.getpid())
    with GraphStore.connect(settings) as store:
        store.apply_schema(load_schema())


#: The run's spare graph (:func:`fresh_graph_settings` with ``started``).
SPARE = SpareGraph()
