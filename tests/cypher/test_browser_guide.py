"""The Neo4j Browser guide and style sheet: generated from schema/, committed up to date, and
every statement of every slide, read from the committed HTML as a user copies it (the slide's
``:params`` for the engine, then its query), returns rows on the embedded engine over the agent's
test graph. On Neo4j the same queries pass Neo4j's own linter (tests/cypher/test_cypher_lint.py)
with the Neo4j ``:params`` block's index names."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from biokg import cypher
from biokg.browser_guide import ENGINES, GuideExample, browser_files, guide_examples
from biokg.core.embedding.static import StaticEmbedder
from biokg.core.store import GraphStore
from biokg.graph_agent.gate import CypherGate
from biokg.schema import load_schema

CYPHER_DIR = Path(cypher.__file__).parent
#: Phenotypes given a vector for the vector-search example: a neighbourhood to rank, not the
#: release's 19,000 (embedding them, the index's first read and the clean-up took ~35 s)
EMBEDDED_SAMPLE = 1500
_SLIDE = re.compile(r"<slide\b.*?</slide>", re.DOTALL)
_TITLE = re.compile(r"<h3>(.*?)</h3>")
#: A slide's engine headings and runnable blocks, in order.
_BLOCK = re.compile(
    r'<p data-engine="(\w+)">.*?</p>|<pre class="pre-scrollable code runnable">(.*?)</pre>',
    re.DOTALL,
)


@dataclass
class Slide:
    """What a slide asks a user to run: ``:params`` per engine (a block under no engine heading
    serves every engine) and the queries."""

    title: str
    params: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    queries: list[str] = field(default_factory=list)


def guide_slides(guide: str) -> dict[str, Slide]:
    """The example slides of the guide's HTML (the schema slide runs nothing), by title."""
    slides = {}
    for text in _SLIDE.findall(guide)[1:]:
        title = _TITLE.search(text)
        assert title, text
        slide = Slide(html.unescape(title.group(1)))
        heading = None
        for engine, block in _BLOCK.findall(text):
            if engine:
                heading = engine
                continue
            statement = html.unescape(block)
            if statement.startswith(":params "):
                params = json.loads(statement.removeprefix(":params "))
                for name in [heading] if heading else list(ENGINES):
                    slide.params.setdefault(name, []).append(params)
                heading = None
            else:
                slide.queries.append(statement)
        slides[slide.title] = slide
    return slides


GUIDE = (CYPHER_DIR / "browser_guide.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def guide_graph(agent_graph: GraphStore, static_embedder: StaticEmbedder) -> Iterator[GraphStore]:
    """The agent's graph with a sample of phenotypes embedded, the example's own among them
    (what the vector example reads); the vectors are removed afterwards, so other tests see the
    graph as the build left it. The build's own embedding is tested in tests/ingest."""
    [example] = [e for e in guide_examples(load_schema()) if e.index == ("vector", "Phenotype")]
    rows = agent_graph.read(
        "MATCH (p:Phenotype) WHERE p.name IS NOT NULL AND (p.id = $own OR p.id < 'HP:0002')"
        " RETURN p.id AS id, p.name AS name ORDER BY p.id LIMIT $n",
        {"own": example.params["phenotype"], "n": EMBEDDED_SAMPLE},
    )
    vectors = static_embedder.embed([row["name"] for row in rows])
    ids = [row["id"] for row in rows]
    assert example.params["phenotype"] in ids
    agent_graph.write(
        "UNWIND $rows AS row MATCH (p:Phenotype {id: row.id}) SET p.embedding = row.vector",
        {"rows": [{"id": i, "vector": v} for i, v in zip(ids, vectors, strict=True)]},
    )
    yield agent_graph
    agent_graph.write("MATCH (p:Phenotype) WHERE p.id IN $ids REMOVE p.embedding", {"ids": ids})


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
    for label, spec in schema.labels.items():
        assert f"node.{label} {{\n  color: {spec.display.color};" in files["style.grass"]
        assert f"caption: '{{{spec.display.caption}}}'" in files["style.grass"]
    assert "caption: '{symbol}'" in files["style.grass"]  # genes by symbol, as people name them


def test_every_slide_gives_each_engine_one_params_block_with_its_own_index_names() -> None:
    schema = load_schema()
    slides = guide_slides(GUIDE)
    assert set(slides) == {e.title for e in guide_examples(schema)}
    for example in guide_examples(schema):
        slide = slides[example.title]
        assert slide.queries == [example.query], example.name  # the same query on both engines
        for name, (dialect, _) in ENGINES.items():
            assert slide.params.get(name) == [example.params_for(dialect, schema)], (name, example)
            CypherGate().check(example.query, slide.params[name][0])  # MCP's read_cypher runs it
    fulltext = slides["Full-text search over names and synonyms"].params
    assert fulltext["neo4j"][0]["indexes"] == ["drug_fulltext"]
    assert fulltext["arcadedb"][0]["indexes"] == ["Drug[name]", "Drug[synonymsbyitem]"]
    assert slides["Vector search: phenotypes like this one"].params["arcadedb"][0]["index"] == (
        "Phenotype[embedding]"
    )


@pytest.mark.parametrize(
    "example", guide_examples(load_schema()), ids=lambda e: e.name.removeprefix("guide_")
)
def test_every_guide_statement_returns_rows_on_the_embedded_engine(
    guide_graph: GraphStore, example: GuideExample
) -> None:
    slide = guide_slides(GUIDE)[example.title]
    [params] = slide.params[guide_graph.dialect.name]
    [query] = slide.queries
    rows = guide_graph.read(query, params)
    assert rows, f"{example.name} returned no rows with {params}"
    first = max(rows, key=lambda row: row.get("score", 0))
    if example.index is not None and example.index[0] == "fulltext":
        assert first["id"] == "CHEMBL.COMPOUND:CHEMBL192"  # "viagra" is a synonym: indexed
    if example.index is not None and example.index[0] == "vector":
        assert first["id"] == example.params["phenotype"]  # nearest to itself
        assert any("seizure" in row["name"].lower() for row in rows if row["id"] != first["id"])
    if example.name == "guide_drug_targets":
        assert first["target"] == "PDE5A" and "contraindications" in first["label_sections"]
    if example.name == "guide_phenotype_genes":  # genes counted as genes, edges as edges
        [hpo] = rows
        genes = guide_graph.read(
            "MATCH (g:Gene)-[:HAS_PHENOTYPE]->(:Phenotype {id: $phenotype})"
            " RETURN count(DISTINCT g) AS n",
            params,
        )
        assert hpo["edges"] > hpo["genes"] == genes[0]["n"]  # 172 edges, 134 genes
    if example.name == "guide_disease_phenotypes_genes":
        assert first["gene_symbols"] == ["FBN1"] and first["phenotypes"] >= 20
