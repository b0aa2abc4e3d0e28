"""Fixtures of the ingest tests: the cross-source graph the disease-bridge and KEGG tests read,
built once per session."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from own_graph import fresh_graph_settings

from biokg.ingest.build import build
from biokg.settings import Settings
from biokg.store import GraphStore, embedded

#: Every source on its offline data (the full HPO release and GO corpus, ChEMBL's, openFDA's and
#: PrimeKG's samples: ~1 M edges, minutes to load) and KEGG on its fixture snapshot.
CROSS_SOURCES = ("hpo", "go", "chembl", "openfda", "primekg", "kegg")
KEGG_FIXTURE = Path(__file__).parent / "data" / "kegg"


@pytest.fixture(scope="session")
def cross_source_graph(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[GraphStore, Settings]]:
    """A graph of its own holding CROSS_SOURCES (KEGG's licence accepted), loaded through the
    real build; the session graph's tests count drugs without PrimeKG's and KEGG's."""
    own = dataclasses.replace(
        fresh_graph_settings(tmp_path_factory, started=True),
        accepted_licenses=("kegg",),
        source_dirs=(("kegg", KEGG_FIXTURE),),
    )
    try:
        with GraphStore.connect(own) as store:
            build(store, own, CROSS_SOURCES, sample=True)
            yield store, own
    finally:
        embedded.stop_background(own)
