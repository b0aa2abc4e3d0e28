"""Embedding vectors cached on disk by content hash, so a rebuild never embeds a text twice.

One SQLite file (``$BIOKG_HOME/cache/embeddings.sqlite`` by default) maps
``sha256(model id + text)`` to the vector as packed float32. The model id is part of the key, so
vectors of different models (or of the test-only hashing embedder) live side by side and never
mix. The file is a cache: deleting it costs only the time to embed again.
"""

from __future__ import annotations

import hashlib
import sqlite3
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path

from biokg.core.settings import Settings
from biokg.errors import EmbeddingError

CACHE_FILE = "embeddings.sqlite"
_SQL_VARIABLES = 500  # keys per SELECT ... IN (...), below SQLite's variable limit


def cache_key(model_id: str, text: str) -> str:
    """The content hash a vector is cached under: sha256 of the model id and the exact text."""
    return hashlib.sha256(f"{model_id}\n{text}".encode()).hexdigest()


class VectorCache:
    """Vectors by :func:`cache_key` in one SQLite file; the file is opened on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    @classmethod
    def default(cls, settings: Settings) -> VectorCache:
        """The cache under ``settings.cache_dir`` that the CLI and the flows share."""
        return cls(settings.cache_dir / CACHE_FILE)

    def get_many(self, keys: Sequence[str]) -> dict[str, list[float]]:
        """The cached vectors of those keys that have one.

        Raises:
            EmbeddingError: the cache file is not a readable SQLite database.
        """
        found: dict[str, list[float]] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), _SQL_VARIABLES):
            part = unique[start : start + _SQL_VARIABLES]
            marks = ",".join("?" * len(part))
            rows = self._run(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", part)
            for key, blob in rows:
                found[key] = array("f", blob).tolist()
        return found

    def put_many(self, vectors: Mapping[str, Sequence[float]]) -> None:
        """Store vectors (float32) under their keys, in one transaction."""
        rows = [(key, array("f", vector).tobytes()) for key, vector in vectors.items()]
        db = self._connection()
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)
        except sqlite3.Error as err:
            raise self._error(err) from err

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> VectorCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, sql: str, params: Sequence[str]) -> list[tuple[str, bytes]]:
        try:
            return self._connection().execute(sql, params).fetchall()
        except sqlite3.Error as err:
            raise self._error(err) from err

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                db = sqlite3.connect(self.path, timeout=60)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS vectors "
                    "(key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
                )
            except sqlite3.Error as err:
                raise self._error(err) from err
            self._db = db
        return self._db

    def _error(self, err: sqlite3.Error) -> EmbeddingError:
        return EmbeddingError(
            f"embedding cache {self.path} cannot be used ({err}); delete the file and embed again"
        )
