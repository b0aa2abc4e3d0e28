"""ML export on the session graph (full HPO, ChEMBL and openFDA samples, MONDO bridges): tables
read back with polars and compared with what the engine counts, and the held-out drug-disease
pairs checked against the training edges with bridges read from the engine, not the export."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from biokg.core.embedding.static import StaticEmbedder
from biokg.core.store import GraphStore
from biokg.errors import AgentInputError
from biokg.export.ml import TARGET_TYPES, export_ml, has_pyg
from biokg.export.reader import edges_by_type, scanned_edges
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph
from biokg.schema import load_schema

NODES_BY_LABEL = """
MATCH (n:Entity) RETURN [l IN labels(n) WHERE l <> 'Entity'][0] AS label, count(*) AS n"""
EDGES_BY_TYPE = "MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS type, count(*) AS n"
BRIDGES = "MATCH (a:Entity)-[r:SAME_AS]->(b:Entity) RETURN a.id AS a, b.id AS b"
TARGETS = """
MATCH (a:Drug)-[r]->(b:Disease) WHERE type(r) IN $types
RETURN r.id AS id, a.id AS subject, b.id AS object"""
EMBEDDED = "MATCH (n:Drug) WHERE n.embedding IS NOT NULL RETURN n.id AS id, n.embedding AS v"


@pytest.fixture(scope="module")
def embedded_drugs(
    agent_graph: GraphStore,
    static_embedder: StaticEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> GraphStore:
    """The session graph with its drugs embedded (the build in conftest embeds nothing)."""
    with VectorCache(tmp_path_factory.mktemp("ml-vectors") / "vectors.sqlite") as cache:
        embed_graph(agent_graph, static_embedder, cache=cache, labels=["Drug"])
    return agent_graph


@pytest.fixture(scope="module", params=["disease", "random"])
def ml_export(
    request: pytest.FixtureRequest,
    embedded_drugs: GraphStore,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    out = tmp_path_factory.mktemp(f"ml-{request.param}")
    export_ml(embedded_drugs, load_schema(), out, split=request.param, test_fraction=0.2, seed=7)
    return out


def test_counts_per_label_and_type_equal_the_graphs(
    agent_graph: GraphStore, ml_export: Path
) -> None:
    nodes, edges = (
        pl.read_parquet(ml_export / "nodes.parquet"),
        pl.read_parquet(ml_export / "edges.parquet"),
    )
    expected_nodes = {r["label"]: r["n"] for r in agent_graph.read(NODES_BY_LABEL)}
    expected_edges = {r["type"]: r["n"] for r in agent_graph.read(EDGES_BY_TYPE)}
    assert dict(Counter(nodes["label"].to_list())) == expected_nodes
    assert dict(Counter(edges["type"].to_list())) == expected_edges
    # integer ids: 0..n-1 in order, one per CURIE; every edge end is a node
    assert nodes["node_idx"].to_list() == list(range(nodes.height))
    assert nodes["id"].n_unique() == nodes.height
    assert edges["edge_idx"].to_list() == list(range(edges.height))
    assert edges["src"].is_between(0, nodes.height - 1).all()
    assert edges["dst"].is_between(0, nodes.height - 1).all()
    metadata = json.loads((ml_export / "metadata.json").read_text())
    assert metadata["node_count_by_label"] == dict(sorted(expected_nodes.items()))
    assert sum(metadata["edge_count_by_split"].values()) == edges.height


def test_ids_map_back_to_the_graphs_edges(agent_graph: GraphStore, ml_export: Path) -> None:
    nodes, edges = (
        pl.read_parquet(ml_export / "nodes.parquet"),
        pl.read_parquet(ml_export / "edges.parquet"),
    )
    ids = nodes["id"].to_list()
    exported = {
        row["id"]: (ids[row["src"]], ids[row["dst"]])
        for row in edges.filter(pl.col("type").is_in(TARGET_TYPES)).iter_rows(named=True)
        if nodes["label"][row["dst"]] == "Disease"
    }
    graph = agent_graph.read(TARGETS, {"types": list(TARGET_TYPES)})
    assert len(graph) > 20  # ChEMBL's indications
    assert exported == {r["id"]: (r["subject"], r["object"]) for r in graph}


def test_stored_embeddings_are_the_node_features(agent_graph: GraphStore, ml_export: Path) -> None:
    nodes = pl.read_parquet(ml_export / "nodes.parquet")
    stored = {r["id"]: r["v"] for r in agent_graph.read(EMBEDDED)}
    assert len(stored) > 100
    with_x = nodes.filter(pl.col("embedding").is_not_null())
    assert set(with_x["id"].to_list()) == set(stored)  # others: null, not zeros
    row = with_x.row(0, named=True)
    assert np.allclose(row["embedding"], stored[row["id"]], atol=1e-6)


def test_no_held_out_pair_reaches_training_by_mirror_twin_or_group(
    agent_graph: GraphStore, ml_export: Path
) -> None:
    nodes, edges = (
        pl.read_parquet(ml_export / "nodes.parquet"),
        pl.read_parquet(ml_export / "edges.parquet"),
    )
    ids = nodes["id"].to_list()
    # bridged sets from the engine's SAME_AS edges (grouped ones included), not the export's
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        while parent.get(node, node) != node:
            node = parent[node]
        return node

    for row in agent_graph.read(BRIDGES):
        a, b = root(row["a"]), root(row["b"])
        parent[max(a, b)] = min(a, b)
    held = edges.filter(pl.col("split").is_in(["test", "valid"]))
    assert held.height > 0 and held["target"].all()
    held_pairs = {
        frozenset((root(ids[s]), root(ids[d]))) for s, d in held.select("src", "dst").iter_rows()
    }
    train = edges.filter(pl.col("split") == "train")
    leaked = [
        (ids[s], t, ids[d])
        for s, t, d in train.select("src", "type", "dst").iter_rows()
        if frozenset((root(ids[s]), root(ids[d]))) in held_pairs
    ]
    assert leaked == []
    # the pairs the split removed would have leaked: each joins a held-out pair's sets
    for s, d in edges.filter(pl.col("split") == "leak").select("src", "dst").iter_rows():
        assert frozenset((root(ids[s]), root(ids[d]))) in held_pairs


def test_a_disease_split_holds_out_whole_diseases(ml_export: Path) -> None:
    if json.loads((ml_export / "metadata.json").read_text())["split"]["split"] != "disease":
        return  # the random split holds out pairs
    nodes, edges = (
        pl.read_parquet(ml_export / "nodes.parquet"),
        pl.read_parquet(ml_export / "edges.parquet"),
    )
    group = nodes["leak_group"].to_numpy()
    targets = edges.filter("target").with_columns(
        disease=pl.Series(group[edges.filter("target")["dst"].to_numpy()])
    )
    per_disease = targets.group_by("disease").agg(pl.col("split").unique())
    # a disease's drug edges are all in one split, held out (test/valid) or trained on
    assert per_disease["split"].list.len().max() == 1


def test_hetero_data_loads_with_pyg_when_installed(ml_export: Path) -> None:
    if not has_pyg():
        assert not (ml_export / "hetero_data.pt").exists()
        return
    import torch

    data = torch.load(ml_export / "hetero_data.pt", weights_only=False)
    edges = pl.read_parquet(ml_export / "edges.parquet")
    assert sum(store.edge_index.shape[1] for store in data.edge_stores) == edges.height
    assert data["Drug"].x.shape[1] == 384


def test_an_unknown_split_is_refused(agent_graph: GraphStore, tmp_path: Path) -> None:
    with pytest.raises(AgentInputError, match="split"):
        export_ml(agent_graph, load_schema(), tmp_path, split="temporal")  # type: ignore[arg-type]
    with pytest.raises(AgentInputError, match="--test"):
        export_ml(agent_graph, load_schema(), tmp_path, test_fraction=0.9, valid_fraction=0.2)


def test_the_embedded_engines_sql_road_reads_the_edges_cypher_reads(
    agent_graph: GraphStore,
) -> None:
    """The ML export reads the embedded engine's edges with its SQL, paged by record id, ends as
    element ids: the same edges, every one once, as the Cypher every engine answers. Every type
    is compared whole but the largest (HPO's HAS_PHENOTYPE, ~11 pages, ~30 s over Bolt): there,
    the count, each id once, and every edge of every 20th subject node (~30,000 rows)."""
    assert agent_graph.http_api  # the embedded engine: the export takes this road
    handle_ids = {
        handle: node
        for label in load_schema().labels
        for node, handle in agent_graph.node_handles(label).items()
    }
    fields = ("type", "id", "source")
    sql = sorted(
        (handle_ids[r["subject"]], handle_ids[r["object"]], *(r[f] for f in fields))
        for r in scanned_edges(agent_graph)
    )
    per_type = Counter(row[2] for row in sql)
    (largest, count), *others = per_type.most_common()
    assert count > 100_000  # several pages of one type (50,000 rows a page)
    bolt = sorted(
        (r["subject"], r["object"], *(r[f] for f in fields))
        for r in edges_by_type(
            agent_graph, None, query="ml_edges", types=[rel for rel, _ in others]
        )
    )
    assert [row for row in sql if row[2] != largest] == bolt
    of_largest = [row for row in sql if row[2] == largest]
    [cypher_count] = agent_graph.read(f"MATCH ()-[r:`{largest}`]->() RETURN count(r) AS n")
    assert len({row[3] for row in of_largest}) == len(of_largest) == cypher_count["n"]
    subjects = sorted({row[0] for row in of_largest})[::20]
    sample = agent_graph.read(
        f"MATCH (a:Entity) WHERE a.id IN $ids MATCH (a)-[r:`{largest}`]->(b:Entity) "
        "RETURN a.id AS subject, b.id AS object, type(r) AS type, r.id AS id, "
        "r.source AS source",
        {"ids": subjects},
    )
    chosen = set(subjects)
    assert [row for row in of_largest if row[0] in chosen] == sorted(
        (r["subject"], r["object"], *(r[f] for f in fields)) for r in sample
    )
    assert len(sample) > 10_000
