"""``biokg embed``: embed the text of every node whose text changed, with progress bars."""

from __future__ import annotations

import typer

from biokg.cli import console, handle_errors, progress_bars
from biokg.core.embedding.models import Embedder, HashingEmbedder
from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.core.embedding.static import node_embedder
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph


def embed_nodes(
    store: GraphStore, settings: Settings, *, labels: list[str] | None = None, hashing: bool = False
) -> None:
    """Embed changed nodes and print one summary line (``biokg embed`` and ``biokg build``)."""
    embedder: Embedder = HashingEmbedder() if hashing else node_embedder(settings)
    with VectorCache.default(settings) as cache, progress_bars() as progress:
        report = embed_graph(store, embedder, cache=cache, labels=labels, progress=progress)
    if report.other_model:
        console.print(
            f"embeddings: {report.other_model:,} nodes had vectors of another model; they are "
            f"embedded again with {embedder.model_id}"
        )
    console.print(
        f"embeddings: {report.embedded:,} nodes embedded, {report.cache_hits:,} from the cache, "
        f"{report.unchanged:,} unchanged, {report.no_text:,} without text "
        f"({report.seconds:.1f} s, {embedder.model_id})"
    )
    if not hashing:  # the agent's sentence embedder (paraphrases), ready before the first question
        OnnxEmbedder(settings.cache_dir).prepare()


@handle_errors
def embed_command(
    labels: str = typer.Option(
        "",
        "--labels",
        "-l",
        help="Comma-separated labels (default: every label whose schema/ entry embeds text).",
    ),
    hashing: bool = typer.Option(
        False,
        "--hashing",
        help="Word-hash vectors instead of the model: for smoke tests only, useless for search.",
    ),
) -> None:
    """Embed node text (all-MiniLM-L6-v2, offline) where it changed; vectors are cached on disk."""
    names = [label.strip() for label in labels.split(",") if label.strip()] or None
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        embed_nodes(store, settings, labels=names, hashing=hashing)
