"""Fixtures of the ingest tests: the graph the cross-source tests (KEGG, the disease bridge) start
from, loaded once per session and copied for each of them."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest
from own_graph import SHARED_CACHE, fresh_graph_settings

from biokg.ingest.build import build
from biokg.settings import Settings
from biokg.store import GraphStore, embedded

#: What every cross-source graph holds, first in build order: the full offline HPO release and GO
#: corpus, ChEMBL's offline sample (~1 M edges: minutes to load, once per session).
BASE_SOURCES = ("hpo", "go", "chembl")


@pytest.fixture(scope="session")
def base_graph(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings of a stopped graph holding BASE_SOURCES, loaded through the real build; tests
    never open it: they build on copies (:func:`base_graph_copy`)."""
    base = fresh_graph_settings(tmp_path_factory, started=True)
    try:
        with GraphStore.connect(base) as store:
            build(store, base, BASE_SOURCES, sample=True)
    finally:
        embedded.stop_background(base)
    return base


@pytest.fixture(scope="session")
def base_graph_copy(
    base_graph: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[], Settings]:
    """Makes settings of a graph of its own holding a copy of the base graph: its database and
    its cache (the GO corpus, the loads' snapshots), so a build of BASE_SOURCES and more skips
    the unchanged BASE_SOURCES and loads the rest, in the same build order as on an empty graph.
    The caller stops its engine."""

    def copy() -> Settings:
        own = fresh_graph_settings(tmp_path_factory)
        shutil.copytree(base_graph.db_dir, own.db_dir)
        for entry in base_graph.cache_dir.iterdir():
            if entry.name in SHARED_CACHE:
                continue
            if entry.is_dir():
                shutil.copytree(entry, own.cache_dir / entry.name)
            else:
                shutil.copy2(entry, own.cache_dir / entry.name)
        return own

    return copy
