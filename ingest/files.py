"""Moved to :mod:`biokg.files` (the model exports in :mod:`biokg.embedding` use it too); kept
importable here for the ingest modules that name this one."""

from biokg.files import atomic_path, sha256

__all__ = ["atomic_path", "sha256"]
