"""Searching the graph's vector and full-text indexes, for the agent and the pipeline's checks.

Vector scores are cosine mapped to [0, 1] (``(1 + cos) / 2``, the same on Neo4j and ArcadeDB);
full-text scores are Lucene's. Every search takes an optional :data:`Reader`, so the agent's
per-question runner can log the query with the question's others.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from biokg import cypher
from biokg.core.embedding.texts import embedded_labels, node_text, require_embedded
from biokg.core.store import GraphStore
from biokg.core.store.dialect import EMBEDDING_DIMENSIONS
from biokg.errors import EmbeddingError, SchemaError, StoreError
from biokg.schema import GraphSchema, load_schema

#: Runs one read query with parameters and returns its rows: ``GraphStore.read`` by default, or
#: an agent's per-question runner, which logs the query with the question's others.
Reader = Callable[[str, dict[str, Any]], list[dict[str, Any]]]

log = logging.getLogger(__name__)
_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_LUCENE_OPERATOR = re.compile(r"\b(AND|OR|NOT)\b")


def vector_search(
    store: GraphStore,
    label: str,
    vector: Sequence[float],
    k: int = 10,
    *,
    read: Reader | None = None,
) -> list[tuple[str, float]]:
    """The ``k`` nodes of ``label`` nearest to ``vector``, as (id, score), best first.

    Score is cosine mapped to [0, 1] (``(1 + cos) / 2``, the same on Neo4j and ArcadeDB).
    Embed the query with the same embedder the graph was embedded with.

    Raises:
        SchemaError: ``label`` is not declared or embeds no text.
        EmbeddingError: ``vector`` does not have the index's dimensions.
        StoreError: the vector index is missing (run ``biokg build`` or ``apply_schema``).
    """
    rows = _nearest(store, label, vector, k, "search_vector", read)
    return [(row["id"], row["score"]) for row in rows]


def vector_neighbours(
    store: GraphStore,
    label: str,
    vector: Sequence[float],
    k: int = 10,
    *,
    read: Reader | None = None,
) -> list[tuple[str, float, str]]:
    """:func:`vector_search` with each node's embedded text (:func:`node_text`), so a second,
    slower model can rescore a fast model's neighbours. Raises as :func:`vector_search`."""
    rows = _nearest(store, label, vector, k, "search_vector_nodes", read)
    return [(row["id"], row["score"], node_text(label, row["node"])) for row in rows]


def _nearest(
    store: GraphStore,
    label: str,
    vector: Sequence[float],
    k: int,
    query: str,
    read: Reader | None,
) -> list[dict[str, Any]]:
    require_embedded(load_schema(), label)
    if len(vector) != EMBEDDING_DIMENSIONS:
        raise EmbeddingError(f"query vector has {len(vector)} dimensions, expected 384")
    return (read or store.read)(
        cypher.load(query),
        {"index": store.dialect.vector_index_name(label), "k": k, "vector": list(vector)},
    )


def warm_indexes(store: GraphStore, schema: GraphSchema | None = None) -> int:
    """Query every vector and full-text index once, so the first question does not pay for
    loading them (on the embedded engine a cold vector index can take longer than a question's
    time limit). Indexes that are missing or fail are skipped; returns how many answered."""
    schema = schema or load_schema()
    probe = [1.0 / math.sqrt(EMBEDDING_DIMENSIONS)] * EMBEDDING_DIMENSIONS
    warmed = 0
    for label in schema.labels:
        searches = [lambda label=label: fulltext_search(store, label, "a", 1)]
        if label in embedded_labels(schema):
            searches.append(lambda label=label: vector_search(store, label, probe, 1))
        for search in searches:
            try:
                search()
                warmed += 1
            except (StoreError, SchemaError) as err:
                log.warning("index of %s not warmed: %s", label, err)
    return warmed


def fulltext_search(
    store: GraphStore, label: str, text: str, k: int = 10, *, read: Reader | None = None
) -> list[tuple[str, float, str]]:
    """Nodes of ``label`` whose full-text-indexed names share words with ``text``, best first,
    as (id, score, name).

    ``text`` is taken literally: Lucene operators and special characters are escaped. Scores
    are Lucene's (unbounded; compare them within one query only). Names and the ``synonyms``
    list are indexed on both engines (ArcadeDB: one index per property, lists item by item).

    Raises:
        SchemaError: ``label`` is not declared in schema/.
        StoreError: the store refused the query.
    """
    schema = load_schema()
    query = lucene_literal(text)
    if not query:
        return []
    best: dict[str, tuple[str, float, str]] = {}
    for index in store.dialect.fulltext_index_names(schema, label):
        for row in (read or store.read)(
            cypher.load("search_fulltext"), {"index": index, "query": query, "k": k}
        ):
            if row["id"] not in best or row["score"] > best[row["id"]][1]:
                best[row["id"]] = (row["id"], row["score"], row["name"] or "")
    return sorted(best.values(), key=lambda hit: (-hit[1], hit[0]))[:k]


def lucene_literal(text: str) -> str:
    """``text`` as a Lucene query of plain words: specials escaped, AND/OR/NOT lower-cased."""
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", text.strip())
    return _LUCENE_OPERATOR.sub(lambda m: m.group(1).lower(), escaped)
