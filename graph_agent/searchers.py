"""The engine's indexes as linker searchers: words (full-text) and meaning (vector).

The linker asks them only for text its lexicon could not place, even allowing for typos: a
paraphrase ("heart attack" for Myocardial infarction) or a name given by some of its words.
Both search entity labels only; documents (openFDA labels and sections) are what the agent
reads, not what a question names. Scores are mapped to [0, 1] below the lexicon's exact and
fuzzy matches, so an index hit never outranks a name match.
"""

from __future__ import annotations

from dataclasses import dataclass

from biokg.graph_agent.lexicon import DOCUMENT_CATEGORY
from biokg.ingest.embed import (
    Embedder,
    Reader,
    embedded_labels,
    fulltext_search,
    vector_search,
)
from biokg.schema import GraphSchema
from biokg.store import GraphStore

#: The best full-text hit of a query scores this; the others in proportion (Lucene scores
#: compare only within one query).
FULLTEXT_WEIGHT = 0.6
#: Cosine similarity below which a vector neighbour is not taken as meant. Measured with the
#: real model on bare names: "high blood pressure"~Hypertension 0.73, "heart attack"~Myocardial
#: infarction 0.59 but ~Abnormal heart morphology 0.52, an invented "Zorbaxinol"~Seizure 0.22.
MIN_COSINE = 0.55
VECTOR_WEIGHT = 0.8
PER_LABEL = 3


@dataclass(frozen=True)
class FulltextSearcher:
    """Nodes whose full-text-indexed names share words with the text."""

    store: GraphStore
    labels: tuple[str, ...]
    rule: str = "fulltext"

    def __call__(self, text: str, read: Reader | None = None) -> list[tuple[str, float]]:
        hits = [
            hit
            for label in self.labels
            for hit in fulltext_search(self.store, label, text, PER_LABEL, read=read)
        ]
        if not hits:
            return []
        top = max(score for _, score in hits)
        return [(node, FULLTEXT_WEIGHT * score / top) for node, score in hits]


@dataclass(frozen=True)
class VectorSearcher:
    """Nodes whose embedded text is close in meaning to the text (cosine ≥ MIN_COSINE)."""

    store: GraphStore
    embedder: Embedder
    labels: tuple[str, ...]
    rule: str = "vector"

    def __call__(self, text: str, read: Reader | None = None) -> list[tuple[str, float]]:
        [vector] = self.embedder.embed([text])
        out = []
        for label in self.labels:
            for node, score in vector_search(self.store, label, vector, PER_LABEL, read=read):
                cosine = 2 * score - 1  # vector_search maps cosine to (1 + cos) / 2
                if cosine >= MIN_COSINE:
                    out.append((node, VECTOR_WEIGHT * cosine))
        return out


def index_searchers(
    store: GraphStore, schema: GraphSchema, embedder: Embedder
) -> tuple[FulltextSearcher, VectorSearcher]:
    """Full-text and vector searchers over the schema's entity (non-document) labels."""
    entities = {n for n, spec in schema.labels.items() if spec.category != DOCUMENT_CATEGORY}
    fulltext = tuple(sorted(n for n in entities if store.dialect.fulltext_index_names(schema, n)))
    vector = tuple(sorted(set(embedded_labels(schema)) & entities))
    return FulltextSearcher(store, fulltext), VectorSearcher(store, embedder, vector)
