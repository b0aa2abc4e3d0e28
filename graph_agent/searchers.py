"""The engine's indexes as linker searchers: words (full-text) and meaning (vector).

The linker asks them only for text its lexicon could not place, even allowing for typos: a
paraphrase ("heart attack" for Myocardial infarction) or a name given by some of its words.
Both search entity labels only; documents (openFDA labels and sections) are what the agent
reads, not what a question names. Scores are mapped to [0, 1] below the lexicon's exact and
fuzzy matches, so an index hit never outranks a name match.
"""

from __future__ import annotations

from dataclasses import dataclass

from biokg.core.embedding.models import Embedder
from biokg.core.embedding.search import Reader, fulltext_search, vector_neighbours, vector_search
from biokg.core.embedding.texts import embedded_labels
from biokg.core.names import name_key
from biokg.core.store import GraphStore
from biokg.graph_agent.text import STOP_WORDS, stem
from biokg.schema import GraphSchema

#: A full-text hit naming exactly the text's words scores this; others in proportion to the
#: words they share (Dice): "high blood pressure" is not "High pulse pressure" because Lucene
#: ranked it first.
FULLTEXT_WEIGHT = 0.6
#: Cosine similarity below which a vector neighbour is not taken as meant. Measured with the
#: real model on bare names: "high blood pressure"~Hypertension 0.73, "heart attack"~Myocardial
#: infarction 0.59 but ~Abnormal heart morphology 0.52, an invented "Zorbaxinol"~Seizure 0.22.
MIN_COSINE = 0.55
VECTOR_WEIGHT = 0.8
#: Neighbours per label the reranker rescores, and the words of each node's text it reads (the
#: name and its first synonyms): see :class:`VectorSearcher` and docs/decisions/0010.
RERANK_POOL = 4
RERANK_WORDS = 20
PER_LABEL = 3


@dataclass(frozen=True)
class FulltextSearcher:
    """Nodes whose full-text-indexed names share words with the text."""

    store: GraphStore
    labels: tuple[str, ...]
    rule: str = "fulltext"

    def __call__(self, text: str, read: Reader | None = None) -> list[tuple[str, float]]:
        asked = _words(text)
        hits = (
            (node, _dice(asked, _words(name)))
            for label in self.labels
            for node, _, name in fulltext_search(self.store, label, text, PER_LABEL, read=read)
        )
        return [(node, FULLTEXT_WEIGHT * shared) for node, shared in hits if shared]


@dataclass(frozen=True)
class VectorSearcher:
    """Nodes whose embedded text is close in meaning to the text (cosine ≥ MIN_COSINE).

    With a ``reranker`` (the transformer, when the node vectors come from the fast static
    model), the index's :data:`RERANK_POOL` nearest per label are rescored by the reranker on
    the head of the same node texts (:data:`RERANK_WORDS`): the static model finds neighbours,
    the transformer judges them, and :data:`MIN_COSINE`, measured on the transformer, keeps its
    meaning.
    """

    store: GraphStore
    embedder: Embedder
    labels: tuple[str, ...]
    reranker: Embedder | None = None
    rule: str = "vector"

    def __call__(self, text: str, read: Reader | None = None) -> list[tuple[str, float]]:
        words = _words(text)
        if not any(c.isalpha() for c in text):
            return []  # "0", "3.5": a number means nothing by itself
        if len(words) == 1 and not self.embedder.knows(next(iter(words))):
            return []  # one word the model cuts into pieces: a name, near names spelt alike
        [vector] = self.embedder.embed([text])
        if not any(vector):
            return []  # no piece the model knows (runes, emoji): nothing to be near
        out = []
        for nearest in self._cosines(text, vector, read):
            out += [(node, VECTOR_WEIGHT * c) for node, c in nearest[:PER_LABEL] if c >= MIN_COSINE]
        return out

    def _cosines(
        self, text: str, vector: list[float], read: Reader | None
    ) -> list[list[tuple[str, float]]]:
        """Per label, the nearest nodes with their cosine to the text, best first; rescoring
        takes one reranker call for every label's pool."""
        if self.reranker is None:
            return [
                [(node, 2 * score - 1) for node, score in hits]  # score is (1 + cos) / 2
                for hits in (
                    vector_search(self.store, label, vector, PER_LABEL, read=read)
                    for label in self.labels
                )
            ]
        pools = [
            vector_neighbours(self.store, label, vector, RERANK_POOL, read=read)
            for label in self.labels
        ]
        texts = [judged_text(text) for pool in pools for _, _, text in pool]
        if not texts:
            return []
        asked, *vectors = self.reranker.embed([text, *texts])
        scored = iter(_dot(asked, v) for v in vectors)
        return [
            sorted(((node, next(scored)) for node, _, _ in pool), key=lambda hit: -hit[1])
            for pool in pools
        ]


def judged_text(node_text: str) -> str:
    """What the reranker reads of a node's embedded text: its first :data:`RERANK_WORDS` words
    (the name and its first synonyms; a long synonym list or definition made a rescoring call
    of one phrase 0.5-1 s of the CLI's time)."""
    return " ".join(node_text.split()[:RERANK_WORDS])


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))  # both unit vectors: the cosine


def _words(text: str) -> set[str]:
    """Content words, stemmed ("bones" shares "bone")."""
    return {stem(w) for w in name_key(text).split() if stem(w) not in STOP_WORDS}


def _dice(asked: set[str], named: set[str]) -> float:
    return 2 * len(asked & named) / (len(asked) + len(named)) if asked and named else 0.0


def index_searchers(
    store: GraphStore, schema: GraphSchema, embedder: Embedder, reranker: Embedder | None = None
) -> tuple[FulltextSearcher, VectorSearcher]:
    """Full-text and vector searchers over the schema's entity (non-document) labels; vector
    hits are rescored by ``reranker`` when it is another model than the nodes'."""
    entities = set(schema.labels) - schema.document_labels
    fulltext = tuple(sorted(n for n in entities if store.dialect.fulltext_index_names(schema, n)))
    vector = tuple(sorted(set(embedded_labels(schema)) & entities))
    if reranker is not None and reranker.model_id == embedder.model_id:
        reranker = None
    return FulltextSearcher(store, fulltext), VectorSearcher(store, embedder, vector, reranker)
