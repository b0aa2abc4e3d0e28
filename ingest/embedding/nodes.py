"""Node embeddings written onto the graph, incrementally.

Each embedded node carries ``embedding`` (384 floats) and ``embedding_hash`` (sha256 of the
model id and the text windows). :func:`embed_graph` skips nodes whose hash still matches, takes
vectors of texts seen before from the on-disk :class:`VectorCache`, and sends only new texts
through the model. Nodes without any embedded text get no vector. The text per label, the models
and the index searches are the shared runtime in :mod:`biokg.core.embedding`, which the agent uses
too.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from biokg import cypher
from biokg.core.embedding.models import Embedder, unit
from biokg.core.embedding.texts import embedded_labels, node_text, require_embedded, text_chunks
from biokg.core.store import GraphStore
from biokg.core.store.dialect import EMBEDDING_DIMENSIONS
from biokg.errors import EmbeddingError
from biokg.ingest.embedding.cache import VectorCache, cache_key
from biokg.ingest.writer import Progress
from biokg.schema import GraphSchema, load_schema

__all__ = ["BATCH_NODES", "EmbedReport", "embed_graph"]
log = logging.getLogger(__name__)

#: Nodes per cache lookup, model call and UNWIND write.
BATCH_NODES = 512
READ_TIMEOUT_S = 300.0


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
            f"indexes hold {EMBEDDING_DIMENSIONS}-d (biokg.core.store.dialect.EMBEDDING_DIMENSIONS)"
        )
    schema = load_schema()
    names = list(labels) if labels is not None else embedded_labels(schema)
    for label in names:
        require_embedded(schema, label)
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
        vector = vectors[0] if len(vectors) == 1 else unit(_mean(vectors))
        rows.append({"id": node.id, "embedding": vector, "embedding_hash": node.hash})
    return rows


def _mean(vectors: list[list[float]]) -> list[float]:
    return [sum(column) / len(vectors) for column in zip(*vectors, strict=True)]
