"""Moved to :mod:`biokg.embedding.onnx`, the runtime the agent shares; kept importable here for
the benchmark scripts that still name this module."""

from biokg.embedding.onnx import LENGTH_BATCH, OnnxEmbedder

__all__ = ["LENGTH_BATCH", "OnnxEmbedder"]
