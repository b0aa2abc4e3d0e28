"""The linker's index searchers on the real engine: full-text by words, vector by meaning.

The nodes are test-owned ``Exposure`` nodes (no offline source loads that label), embedded with
the build's real node embedder (the static model distilled from all-MiniLM-L6-v2) and deleted
afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from biokg.core.embedding.models import HashingEmbedder
from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.core.embedding.static import StaticEmbedder
from biokg.core.store import GraphStore
from biokg.errors import StoreError
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.linking.features import accept_all
from biokg.graph_agent.runner import Budget
from biokg.graph_agent.searchers import FULLTEXT_WEIGHT, VECTOR_WEIGHT, index_searchers
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph
from biokg.schema import load_schema

EXPOSURES = {
    "CHEBI:99100001": "tobacco smoke",
    "CHEBI:99100002": "zyxoquartz mine dust",
    "CHEBI:99100003": "ultraviolet radiation",
}


@pytest.fixture(scope="module")
def exposures(
    agent_graph: GraphStore,
    tmp_path_factory: pytest.TempPathFactory,
    static_embedder: StaticEmbedder,
) -> Iterator[Path]:
    """The exposures embedded; yields a cache folder for a lexicon that includes them."""
    rows = [{"id": i, "name": n} for i, n in EXPOSURES.items()]
    agent_graph.write(
        "UNWIND $rows AS row CREATE (n:Entity:Exposure) SET n = row, n.sources = ['test']",
        {"rows": rows},
    )
    folder = tmp_path_factory.mktemp("searchers")
    with VectorCache(folder / "vectors.sqlite") as cache:
        embed_graph(agent_graph, static_embedder, cache=cache, labels=["Exposure"])
    yield folder
    agent_graph.write(
        "UNWIND $ids AS id MATCH (n:Entity {id: id}) DETACH DELETE n", {"ids": list(EXPOSURES)}
    )


def test_vector_searcher_finds_an_exposure_by_meaning(
    agent_graph: GraphStore, exposures: Path, static_embedder: StaticEmbedder
) -> None:
    _, vector = index_searchers(agent_graph, load_schema(), static_embedder)
    hits = vector("cigarettes")  # shares no word with "tobacco smoke"
    assert hits and max(hits, key=lambda h: h[1])[0] == "CHEBI:99100001"
    assert vector("ultraviolet light")[0][0] == "CHEBI:99100003"


def test_reranked_vector_hits_score_the_transformers_cosine(
    agent_graph: GraphStore,
    exposures: Path,
    static_embedder: StaticEmbedder,
    sentence_embedder: OnnxEmbedder,
) -> None:
    # the static model finds the neighbours; the score is the transformer's cosine between the
    # question's words and the node's embedded text, so MIN_COSINE keeps its measured meaning
    _, vector = index_searchers(agent_graph, load_schema(), static_embedder, sentence_embedder)
    assert vector.reranker is sentence_embedder
    [(top, score), *_] = sorted(vector("cigarettes"), key=lambda h: -h[1])
    asked, named = sentence_embedder.embed(["cigarettes", "tobacco smoke"])
    assert top == "CHEBI:99100001"
    assert score == pytest.approx(
        VECTOR_WEIGHT * sum(a * b for a, b in zip(asked, named, strict=True))
    )
    # the same model for nodes and questions needs no second opinion
    _, plain = index_searchers(agent_graph, load_schema(), sentence_embedder, sentence_embedder)
    assert plain.reranker is None


def test_vector_searcher_leaves_invented_names_alone(
    agent_graph: GraphStore, static_embedder: StaticEmbedder
) -> None:
    # an invented drug-like name is cut into word pieces; its nearest vectors are names spelt
    # alike (measured on the full build: "Tranluxumab" ~ TALAZOPARIB, cosine 0.55), so the
    # searcher does not even ask the index
    embedder = static_embedder
    assert embedder.knows("cigarettes") and not embedder.knows("Tranluxumab")
    _, vector = index_searchers(agent_graph, load_schema(), embedder)
    asked: list[str] = []
    assert vector("Tranluxumab", read=lambda text, params: asked.append(text) or []) == []
    assert asked == []
    assert vector("Zorbaxinol") == []


def test_vector_searcher_does_not_ask_the_index_with_a_zero_vector(
    agent_graph: GraphStore, static_embedder: StaticEmbedder
) -> None:
    # runes and emoji are no piece the model knows: the text embeds to all zeros, which the
    # engine's cosine cannot score (it logged an error per label before)
    text = "\u16a0\u16a2\u16a6 \u16a8\u16b1 \U0001f9ec\U0001f9ea"
    [embedded] = static_embedder.embed([text])
    assert not any(embedded)
    _, vector = index_searchers(agent_graph, load_schema(), static_embedder)
    asked: list[str] = []
    assert vector(text, read=lambda text, params: asked.append(text) or []) == []
    assert asked == []


def test_linker_falls_back_to_full_text_for_words_of_a_name(
    agent_graph: GraphStore, exposures: Path, static_embedder: StaticEmbedder
) -> None:
    lexicon = Lexicon.load(agent_graph, exposures)  # read afresh: includes the test nodes
    searchers = index_searchers(agent_graph, load_schema(), static_embedder)
    linker = EntityLinker(lexicon, searchers=searchers)
    [best] = linker.link("zyxoquartz")  # one word of the name: no exact or fuzzy name match
    # scored by the words shared with "zyxoquartz mine dust" (Dice: 2 * 1 / (1 + 3))
    assert (best.id, best.rule, best.score) == ("CHEBI:99100002", "fulltext", FULLTEXT_WEIGHT / 2)


def test_index_searches_while_linking_are_logged_with_the_question(
    agent_graph: GraphStore, exposures: Path, static_embedder: StaticEmbedder
) -> None:
    lexicon = Lexicon.load(agent_graph, exposures)
    searchers = index_searchers(agent_graph, load_schema(), static_embedder)
    # every index hit accepted: what is checked is the log, not the scorer's judgement of a
    # name on a lexicon of a few exposures
    linker = EntityLinker(lexicon, searchers=searchers, scorer=accept_all())
    agent = GraphAgent(agent_graph, linker, budget=Budget(2))
    answer = agent.ask("What is ultraviolet light?")
    [mention] = answer.mentions
    assert mention.candidates[0].id == "CHEBI:99100003"
    searches = [q for q in answer.queries if q.step == "link:search"]
    assert any(
        "fulltext" in q.cypher and q.params["query"] == "ultraviolet light" and q.rows >= 1
        for q in searches
    )
    assert any("vector" in q.cypher and q.params["k"] and q.rows >= 1 for q in searches)
    research = [q for q in answer.queries if q.step != "link:search"]
    assert 0 < len(research) <= 2  # linking spent none of the two-query research budget


class _BrokenSearcher:
    """A searcher of our own protocol whose engine call fails, as a cold index did."""

    rule = "vector"

    def __call__(self, text: str, read=None) -> list[tuple[str, float]]:
        raise StoreError("the command exceeded the arcadedb.command.timeout of 300000ms")


def test_a_failing_linking_search_is_skipped_and_logged(
    agent_graph: GraphStore, exposures: Path, caplog: pytest.LogCaptureFixture
) -> None:
    lexicon = Lexicon.load(agent_graph, exposures)
    fulltext, _ = index_searchers(agent_graph, load_schema(), HashingEmbedder())
    linker = EntityLinker(lexicon, searchers=(_BrokenSearcher(), fulltext))
    with caplog.at_level(logging.WARNING, logger="biokg.graph_agent.linking"):
        [best] = linker.link("zyxoquartz")
    assert (best.id, best.rule) == ("CHEBI:99100002", "fulltext")  # the other searcher's hit
    assert "linking search vector skipped" in caplog.text
