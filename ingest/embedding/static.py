"""Moved to :mod:`biokg.embedding.static`, the runtime the agent shares; kept importable here for
the benchmark scripts that still name this module."""

from biokg.embedding.static import StaticEmbedder, node_embedder

__all__ = ["StaticEmbedder", "node_embedder"]
