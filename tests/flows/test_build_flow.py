"""The Prefect build flow, run against a real Prefect server (conftest) on the embedded engine."""

from __future__ import annotations

import shutil
from pathlib import Path

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.flows.build import build_flow
from biokg.ingest.offline.go_corpus import GOSLIM_PLANT, ORG_HS_DB, debian_file, write_gaf


def test_flow_loads_then_skips_unchanged_go(
    prefect_api: str, own_graph_settings: Settings, tmp_path: Path, test_data_cache: Path
) -> None:
    # A graph of its own: a load onto the session graph would change its current loads, which
    # later tests' diagnosis index and lexicon are keyed by (each read again, ~20 s).
    settings = own_graph_settings
    shutil.copy(debian_file(*GOSLIM_PLANT, test_data_cache), tmp_path / "go-basic.obo")
    write_gaf(debian_file(*ORG_HS_DB, test_data_cache), tmp_path / "goa_human.gaf", slice_genes=90)
    # embed=False: embedding is tested below
    [first, _bridge] = build_flow(
        sources=["go"], data_dir=str(tmp_path), sample=True, embed=False, settings=settings
    )
    assert first["skipped"] is False and first["edges_written"] > 0
    with GraphStore.connect(settings) as store:
        [row] = store.read("MATCH ()-[e]->() WHERE e.source = 'infores:go' RETURN count(e) AS n")
    assert row["n"] == first["edges_written"]
    [second, _bridge] = build_flow(
        sources=["go"], data_dir=str(tmp_path), sample=True, embed=False, settings=settings
    )
    assert second["skipped"] is True


def test_flow_embeds_the_nodes_it_wrote(
    prefect_api: str, own_graph_settings: Settings, tmp_path: Path, test_data_cache: Path
) -> None:
    shutil.copy(debian_file(*GOSLIM_PLANT, test_data_cache), tmp_path / "go-basic.obo")
    write_gaf(debian_file(*ORG_HS_DB, test_data_cache), tmp_path / "goa_human.gaf", slice_genes=20)
    build_flow(sources=["go"], data_dir=str(tmp_path), sample=True, settings=own_graph_settings)
    with GraphStore.connect(own_graph_settings) as store:
        [row] = store.read(
            "MATCH (n:Entity) RETURN count(n) AS nodes, count(n.embedding) AS embedded"
        )
    assert row["nodes"] == row["embedded"] > 100
