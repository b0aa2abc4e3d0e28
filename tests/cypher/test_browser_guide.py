"""The Neo4j Browser guide and style sheet: generated from schema/, committed up to date, and
every example query returns rows on the embedded engine over the agent's test graph."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from biokg import cypher
from biokg.browser_guide import GuideExample, browser_files, guide_examples
from biokg.embedding.static import StaticEmbedder
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph
from biokg.schema import load_schema
from biokg.store import GraphStore

CYPHER_DIR = Path(cypher.__file__).parent
#: The label whose vectors the vector-search example reads (the full HPO release: ~10 s).
EMBEDDED_FOR_EXAMPLE = "Phenotype"


@pytest.fixture(scope="module")
def guide_graph(
    agent_graph: GraphStore,
    static_embedder: StaticEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[GraphStore]:
    """The agent's graph with phenotypes embedded; the vectors are removed afterwards, so
    other tests see the graph as the build left it."""
    folder = tmp_path_factory.mktemp("guide-vectors")
    with VectorCache(folder / "vectors.sqlite") as cache:
        embed_graph(agent_graph, static_embedder, cache=cache, labels=[EMBEDDED_FOR_EXAMPLE])
    yield agent_graph
    agent_graph.write(
        f"MATCH (n:{EMBEDDED_FOR_EXAMPLE}) REMOVE n.embedding, n.embedding_hash, n.embedding_model"
    )


def test_the_committed_guide_and_style_are_generated_from_schema() -> None:
    for name, text in browser_files(load_schema()).items():
        assert (CYPHER_DIR / name).read_text(encoding="utf-8") == text, (
            f"cypher/{name} is stale: run `biokg schema cypher`"
        )


def test_the_guide_covers_what_a_newcomer_asks_and_the_style_every_label() -> None:
    schema = load_schema()
    files = browser_files(schema)
    titles = [e.title for e in guide_examples(schema)]
    assert len(titles) == 6
    for words in ("targets", "phenotypes and genes", "source by source", "path", "Full-text"):
        assert any(words in t for t in titles), words
    assert files["browser_guide.html"].count("<slide") == len(titles) + 1  # + the schema slide
    assert "drug_fulltext" in files["browser_guide.html"]  # Neo4j's index name in :params
    for label, spec in schema.labels.items():
        assert f"node.{label} {{\n  color: {spec.display.color};" in files["style.grass"]
        assert f"caption: '{{{spec.display.caption}}}'" in files["style.grass"]
    assert "caption: '{symbol}'" in files["style.grass"]  # genes by symbol, as people name them


@pytest.mark.parametrize(
    "example", guide_examples(load_schema()), ids=lambda e: e.name.removeprefix("guide_")
)
def test_every_guide_example_returns_rows_on_the_embedded_engine(
    guide_graph: GraphStore, example: GuideExample
) -> None:
    param_sets = example.param_sets(guide_graph.dialect, load_schema())
    rows = [row for params in param_sets for row in guide_graph.read(example.query, params)]
    assert rows, f"{example.name} returned no rows with {param_sets}"
    first = max(rows, key=lambda row: row.get("score", 0))
    if example.index is not None and example.index[0] == "fulltext":
        assert first["id"] == "CHEMBL.COMPOUND:CHEMBL192"  # "viagra" is a synonym: indexed
    if example.index is not None and example.index[0] == "vector":
        assert first["id"] == example.params["phenotype"]  # nearest to itself
        assert any("seizure" in row["name"].lower() for row in rows if row["id"] != first["id"])
    if example.name == "guide_drug_targets":
        assert first["target"] == "PDE5A" and "contraindications" in first["label_sections"]
