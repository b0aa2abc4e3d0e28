"""The linker's lexicon: every name, synonym, symbol, brand/generic name and xref of the graph.

Grounding by normalised name keys (the approach of Gilda and of ChEMBL/RxNorm name lookups)
makes case, punctuation, spacing and salt words irrelevant, and it is the only way to reach list
properties (synonyms, brand names) on ArcadeDB, whose full-text indexes cover single strings
only. The lexicon is read from the graph once (seconds for 100k nodes) and cached as an indexed
SQLite file keyed by the current load of every source, so it is read again when the graph
changed and opened in milliseconds otherwise; it is built from the earlier state's file, only
the changed nodes' names computed again (:mod:`.lexicon_build`). The sorted lists typo-tolerant
matching scans are stored whole, one text each, because reading a release-size graph's million
keys row by row took seconds of every CLI question; documents' titles (drug labels and their
sections, over half of those keys) stay exact keys only, since their words are their drug's
names.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import IO, TYPE_CHECKING

from biokg import cypher
from biokg.core.store import GraphStore
from biokg.core.store.embedded import process_alive
from biokg.errors import GraphBusyError
from biokg.graph_agent.lexicon_build import (
    LEXICON_FORMAT,
    SORTED_SEPARATOR,
    build_file,
    file_name,
    fill,
    frames,
    key_code,
    newest_lexicon,
)

if TYPE_CHECKING:  # imported where a lexicon is built: a cached one is read without polars
    import polars as pl

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Entry:
    """One way to name one node."""

    id: str
    rule: str
    text: str


class Lexicon:
    """Name keys and ids of every entity (see module docstring).

    Backed by SQLite: a file in the cache for a graph (:meth:`load`, open in milliseconds, so a
    CLI question does not rebuild a million-entry index), or memory for small lexicons built
    from frames (:meth:`from_frames`, the unit tests' path). The mapping-like views below
    (``by_key``, ``by_id``, ``nodes``, ``word_counts``, ``words``) read it on demand.
    """

    def __init__(self, db: sqlite3.Connection, *, digest: str = "") -> None:
        self.digest = digest  # the graph state it was read from (see :func:`graph_digest`)
        self._db = db
        self.by_key = _Entries(db)
        self.by_id = _Ids(db)
        self.nodes = _Nodes(db)
        self.word_counts = _WordCounts(db)
        self.words = _Words(db)

    @classmethod
    def from_frames(cls, nodes: pl.DataFrame, keys: pl.DataFrame, *, digest: str = "") -> Lexicon:
        """A lexicon in memory from a node frame (id, label, name) and a key frame (key, id,
        rule, text; best match of a key first)."""
        db = sqlite3.connect(":memory:", check_same_thread=False)
        fill(db, nodes, keys)
        return cls(db, digest=digest)

    @classmethod
    def from_rows(cls, rows: list[dict]) -> Lexicon:
        """A lexicon in memory from node rows shaped like ``cypher/agent_lexicon.cypher``'s
        (id, label, name, synonyms, xrefs, symbol, brand_names, generic_names, namespace): the unit
        tests' small lexicons go through the same keys as the graph's."""
        return cls.from_frames(*frames(rows))

    @classmethod
    def load(cls, store: GraphStore, cache_dir: Path) -> Lexicon:
        """The lexicon of the graph as it is now, from the cache when the graph is unchanged.

        While another process holds the cache's :class:`LexiconBuild` (a build or refresh
        writing the graph, or a question building the new state's lexicon), this reads the
        newest earlier lexicon instead of building a copy of its own: at release size one
        build takes 45 s and 2.3 GB, and four questions at once each building one during a
        refresh was what timed them out. Its ``digest`` then names the state it was read
        from, so :meth:`GraphAgent.refresh` tries again on the next question. Only a cache's
        first lexicon is built by whoever needs it, the lock held or not.
        """
        digest = graph_digest(store.read(cypher.load("agent_data_versions")))
        folder = cache_dir / "lexicon"
        path = folder / file_name(digest)
        if path.is_file():
            return cls._open(path)
        with LexiconBuild(cache_dir, wait=False) as build:
            if build.held:
                return build.lexicon(store, digest=digest)
            earlier = newest_lexicon(folder)
            if earlier is not None:
                log.info("lexicon of %s being built elsewhere: reading %s", digest, earlier.name)
                return cls._open(earlier)
        return cls._open(build_file(store, path))

    @classmethod
    def _open(cls, path: Path) -> Lexicon:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        return cls(db, digest=path.stem.rsplit("-", 1)[-1])

    @cached_property
    def fuzzy_keys(self) -> list[str]:
        """Every name key of four letters or more but documents' titles, sorted (typo-tolerant
        matching reads it)."""
        return self._sorted("keys")

    @cached_property
    def word_list(self) -> list[str]:
        """Every word of four letters or more in a name key, sorted (respelling reads it)."""
        return self._sorted("words")

    def _sorted(self, kind: str) -> list[str]:
        (text,) = self._db.execute("SELECT text FROM sorted WHERE kind = ?", (kind,)).fetchone()
        return text.split(SORTED_SEPARATOR) if text else []

    @cached_property
    def labels(self) -> frozenset[str]:
        """Labels that have nodes in the graph (an asked label without nodes gives way)."""
        return frozenset(label for (label,) in self._db.execute("SELECT label FROM labels"))

    def keys_starting(self, prefix: str) -> list[str]:
        """Name keys (four letters or more) that begin with ``prefix``, in order."""
        rows = self._db.execute(
            "SELECT DISTINCT key FROM keys WHERE key >= ? AND key < ? AND length(key) >= 4 "
            "ORDER BY key",
            (prefix, prefix + "\U0010ffff"),
        )
        return [key for (key,) in rows]

    def word_label(self, word: str) -> str | None:
        """The one label whose names use ``word`` ("artemin": Gene), None for a word of
        several labels or of none."""
        row = self._db.execute("SELECT only_label FROM words WHERE word = ?", (word,)).fetchone()
        return row[0] if row else None

    def label(self, node_id: str) -> str:
        return self.nodes[node_id][0]

    def name(self, node_id: str) -> str:
        return self.nodes[node_id][1]


class _View:
    """A mapping-like view of one lexicon table."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def _one(self, sql: str, *args: object) -> tuple | None:
        return self._db.execute(sql, args).fetchone()


class _Entries(_View):
    """key → the ways it names nodes, best first (``by_key``)."""

    def get(self, key: str, default: Iterable[Entry] = ()) -> list[Entry]:
        rows = self._db.execute(
            "SELECT id, rule, text FROM keys WHERE key = ? ORDER BY rowid", (key,)
        ).fetchall()
        return [Entry(*row) for row in rows] if rows else list(default)

    def __getitem__(self, key: str) -> list[Entry]:
        found = self.get(key)
        if not found:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return self._one("SELECT 1 FROM keys WHERE key = ?", key) is not None


class _Ids(_View):
    """An id or xref (case-folded, also its bare local part) → the node (``by_id``)."""

    def get(self, ref: str, default: str | None = None) -> str | None:
        row = self._one("SELECT id FROM ids WHERE ref = ?", ref)
        return row[0] if row else default


class _Nodes(_View):
    """node id → (label, name) (``nodes``)."""

    def __getitem__(self, node: str) -> tuple[str, str]:
        row = self._one("SELECT label, name FROM nodes WHERE id = ?", node)
        if row is None:
            raise KeyError(node)
        return row[0], row[1] or node

    def __contains__(self, node: object) -> bool:
        return self._one("SELECT 1 FROM nodes WHERE id = ?", node) is not None

    def __len__(self) -> int:
        return self._one("SELECT count(*) FROM nodes")[0]


class _WordCounts(_View):
    """word → how many name keys use it, 0 for a word no name uses (``word_counts``)."""

    def __getitem__(self, word: str) -> int:
        row = self._one("SELECT n FROM words WHERE word = ?", word)
        return row[0] if row else 0


class _Words(_View):
    """The set of words in name keys (``words``): membership and intersection with a set."""

    def __contains__(self, word: object) -> bool:
        return self._one("SELECT 1 FROM words WHERE word = ?", word) is not None

    def __and__(self, others: Iterable[str]) -> set[str]:
        found: set[str] = set()
        batch = list(others)
        for i in range(0, len(batch), 500):
            chunk = batch[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT word FROM words WHERE word IN ({marks})", chunk)
            found |= {word for (word,) in rows}
        return found

    __rand__ = __and__


class LexiconBuild:
    """The cache's lexicon lock: one process at a time builds a lexicon, and a process that
    writes the graph holds it from before its first write until the lexicon of what it wrote
    is built, so questions asked meanwhile read the lexicon of the graph as it was
    (:meth:`Lexicon.load`) rather than each building one of every state a refresh passes
    through. An ``flock``: a killed holder releases it.

    ``writing``: what this process writes ("biokg build hpo, go"). It then is the graph's
    write lock too: a second writer is refused at once, naming the first (its pid, what it
    writes, since when: the holder's record in the lock file), rather than queue unseen
    behind it or write the same sources beside it. A question building a lexicon is waited
    for, as before."""

    def __init__(self, cache_dir: Path, *, wait: bool = True, writing: str | None = None) -> None:
        self.folder = cache_dir / "lexicon"
        self.wait = wait  # False: do not queue behind a holder (``held`` says who won)
        self.writing = writing
        self.held = False
        self._file: IO[bytes] | None = None

    def __enter__(self) -> LexiconBuild:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._file = (self.folder / LOCK_NAME).open("a+b")
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if self.writing is not None:
                self._refuse_beside_a_writer()
            if not self.wait:
                return self
            fcntl.flock(self._file, fcntl.LOCK_EX)
        self.held = True
        since = datetime.now(UTC).isoformat(timespec="seconds")
        holder = {"pid": os.getpid(), "writing": self.writing, "since": since}
        try:
            self._file.truncate(0)
            self._file.write(json.dumps(holder).encode())
            self._file.flush()
        except OSError:  # a record that cannot be written (a full disk): let go of the lock now,
            self.held = False  # not when this object is collected (a long-lived process)
            self.__exit__()
            raise
        return self

    def _refuse_beside_a_writer(self) -> None:
        """Raise if the lock's holder is a live process writing the graph."""
        assert self._file is not None
        self._file.seek(0)
        try:
            holder = json.loads(self._file.read() or b"{}")
        except ValueError:  # a holder between taking the lock and writing its record
            return
        if holder.get("writing") and process_alive(int(holder.get("pid", 0))):
            self._file.close()
            raise GraphBusyError(
                f"the graph is being written by process {holder['pid']} "
                f"({holder['writing']}, since {holder.get('since')}); wait for it to finish "
                f"or stop it, then run this again (lock: {self.folder / LOCK_NAME})"
            )

    def __exit__(self, *_exc: object) -> None:
        if self._file is not None:
            if self.held:
                self._file.truncate(0)  # no holder now
            self._file.close()  # releases the lock
        self.held = False

    def lexicon(self, store: GraphStore, *, digest: str | None = None) -> Lexicon:
        """The lexicon of the graph as it is now (``digest``: its :func:`graph_digest`, when the
        caller has read it), built if the cache lacks it; earlier states' lexicons and dead
        builders' partial files are removed."""
        if not self.held:
            raise RuntimeError("LexiconBuild.lexicon needs the lock: use it as a context manager")
        if digest is None:
            digest = graph_digest(store.read(cypher.load("agent_data_versions")))
        path = self.folder / file_name(digest)
        if not path.is_file():
            build_file(store, path)
        _forget_others(path)
        return Lexicon._open(path)


#: The lock file beside the cached lexicons.
LOCK_NAME = "build.lock"


def _forget_others(current: Path) -> None:
    """Remove lexicons of earlier graph states (and older cache formats) beside ``current``,
    and partial files of builders that died; a live process's partial file (``*.PID.part``
    and SQLite's ``*.PID.part-journal``) stays. Open readers keep an unlinked file whole."""
    for other in current.parent.iterdir():
        if other == current or other.name == LOCK_NAME:
            continue
        pid = _builder_pid(other.name)
        if pid is not None and process_alive(pid):
            continue
        if other.is_dir():
            shutil.rmtree(other, ignore_errors=True)
        else:
            other.unlink(missing_ok=True)


def _builder_pid(name: str) -> int | None:
    """The process id in a partial file's name (``….PID.part``, ``….PID.part-journal``)."""
    if ".part" not in name:
        return None
    pid = name.rsplit(".part", 1)[0].rsplit(".", 1)[-1]
    return int(pid) if pid.isdigit() else None


def graph_digest(versions: list[dict]) -> str:
    """A digest of the current load of every source (``agent_data_versions`` rows) and of the
    code that keys names (:func:`key_code`): a release of biokg that keys names otherwise
    ("type XII" as "type 12") reads no lexicon keyed the old way."""
    state = sorted((v["source"], v["load_id"]) for v in versions)
    return hashlib.sha1(repr((LEXICON_FORMAT, key_code(), state)).encode()).hexdigest()[:16]
