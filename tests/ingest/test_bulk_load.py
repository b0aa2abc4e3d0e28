"""The embedded engine's bulk road for new edges (ArcadeDB's batch loader) builds exactly the
graph the Cypher road builds: same nodes, labels, edges, ids, endpoints and properties."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from own_graph import fresh_graph_settings, release
from test_build import go_data

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import StoreError
from biokg.ingest.build import build, fetch_source, prepare_records
from biokg.ingest.records import Records
from biokg.ingest.writer import GraphWriter
from biokg.schema import load_schema

#: GO (small real files: NOT annotations, lists), ChEMBL and openFDA (report counts, label
#: sections, drug identity merges): edges with many different sets of null properties.
SOURCES = ("go", "chembl", "openfda")


def _graph(store: GraphStore) -> tuple[list, list]:
    nodes = store.read(
        "MATCH (n) RETURN n.id AS id, labels(n) AS labels, properties(n) AS props",
        timeout_s=300,
    )
    edges = store.read(
        "MATCH (a)-[e]->(b) RETURN e.id AS id, type(e) AS type, a.id AS a, b.id AS b, "
        "properties(e) AS props",
        timeout_s=300,
    )
    for node in nodes:
        node["labels"] = sorted(node["labels"])
    for row in (*nodes, *edges):  # wall clocks of the run: when fetched, when loaded
        row["props"].pop("retrieved_at", None)
        row["props"].pop("loaded_at", None)
    return (
        sorted(nodes, key=lambda n: n["id"]),
        sorted(edges, key=lambda e: (e["type"], e["id"])),
    )


def _own_settings(factory: pytest.TempPathFactory, go: Path, *, bulk: bool) -> Settings:
    own = fresh_graph_settings(factory, started=True)
    return dataclasses.replace(
        own,
        source_dirs=(("go", go),),
        bulk_load=bulk,
        batch_size=300,  # several bulk requests per type
    )


@pytest.fixture(scope="module")
def go_files(tmp_path_factory: pytest.TempPathFactory, test_data_cache: Path) -> Path:
    return go_data(tmp_path_factory.mktemp("go-bulk"), test_data_cache, genes=400)


def test_bulk_and_cypher_roads_build_the_same_graph(
    tmp_path_factory: pytest.TempPathFactory, settings: Settings, go_files: Path
) -> None:
    graphs = []
    settings.cache_dir.mkdir(parents=True, exist_ok=True)  # fetched files shared by both homes
    for bulk in (True, False):
        own = _own_settings(tmp_path_factory, go_files, bulk=bulk)
        shutil.rmtree(own.cache_dir)  # the test data's links only, nothing fetched yet
        own.cache_dir.symlink_to(settings.cache_dir, target_is_directory=True)
        try:
            with GraphStore.connect(own) as store:
                assert GraphWriter(store, load_schema(), bulk=bulk).bulk is bulk
                build(store, own, SOURCES, sample=True)
                graphs.append(_graph(store))
        finally:
            release(own)
    bulk_graph, cypher_graph = graphs
    assert len(bulk_graph[1]) > 3_000  # the comparison covers a real load
    assert {e["type"] for e in bulk_graph[1]} >= {"ANNOTATED_WITH", "REPORTED_ADVERSE_EVENT"}
    assert bulk_graph == cypher_graph


def test_bulk_road_refuses_a_batch_with_a_missing_endpoint(
    store: GraphStore, settings: Settings, go_files: Path
) -> None:
    build(store, settings, ("go",), data_dir=go_files, sample=True)  # the endpoints that exist
    planned = fetch_source("go", settings, data_dir=go_files)
    records = prepare_records(planned, sample=True)
    edges = records.edges["IS_A"]
    broken = edges.head(1).with_columns(
        id=edges["id"].head(1) + "-new", object=edges["subject"].head(1) + "-missing"
    )
    only_edges = Records(edges={"IS_A": broken.vstack(edges.slice(1, 5))})
    before = store.read("MATCH ()-[e:IS_A]->() RETURN count(e) AS n")
    with pytest.raises(
        StoreError, match=r"IS_A edge \S+-new names GOTerm GO:\d+-missing, .*endpoint: 1\)"
    ):
        GraphWriter(store, load_schema()).load(only_edges, planned.release)
    assert store.read("MATCH ()-[e:IS_A]->() RETURN count(e) AS n") == before
