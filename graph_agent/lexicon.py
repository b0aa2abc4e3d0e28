"""The linker's lexicon: every name, synonym, symbol, brand/generic name and xref of the graph.

Grounding by normalised name keys (the approach of Gilda and of ChEMBL/RxNorm name lookups)
makes case, punctuation, spacing and salt words irrelevant, and it is the only way to reach list
properties (synonyms, brand names) on ArcadeDB, whose full-text indexes cover single strings
only. The lexicon is read from the graph once (seconds for 100k nodes) and cached as an indexed
SQLite file keyed by the current load of every source, so it is read again when the graph
changed and opened in milliseconds otherwise; a new state whose names are those of a cached
lexicon (a refresh that changed only edges) takes that file rather than building its own. The sorted lists typo-tolerant matching scans
are stored whole, one text each, because reading a release-size graph's million keys row by row
took seconds of every CLI question; documents' titles (drug labels and their sections, over
half of those keys) stay exact keys only, since their words are their drug's names.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import re
import shutil
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import IO, TYPE_CHECKING

import orjson

from biokg import cypher
from biokg.graph_agent.go_forms import derived_names
from biokg.graph_agent.text import greek_qualifier, mention_key, one_word
from biokg.names import LOCAL_ID, salt_free_key
from biokg.schema import ENTITY, load_schema
from biokg.store import GraphStore
from biokg.store.embedded import process_alive

if TYPE_CHECKING:  # imported where a lexicon is built: a cached one is read without polars
    import polars as pl

log = logging.getLogger(__name__)

#: Bumped when what the lexicon stores changes, so cached lexicons are rebuilt.
LEXICON_FORMAT = 17
#: How strongly each kind of exact match names a node (a primary name beats a synonym).
RULE_SCORES = {
    "id": 1.0,
    "xref": 0.96,
    "name": 0.97,
    "symbol": 0.97,
    "brand": 0.94,
    "generic": 0.94,
    "synonym": 0.92,
    "name-salt": 0.9,
    "title": 0.8,
    "base": 0.86,
    "derived": 0.85,
}
#: Labels whose nodes are documents about entities (openFDA labels, sections): a name they share
#: with an entity (the label "VIAGRA", the drug with brand name Viagra) means the entity first.
DOCUMENT_CATEGORY = "biolink:InformationContentEntity"
_NAME_COLUMNS = {
    "name": "name",
    "symbol": "symbol",
    "synonyms": "synonym",
    "brand_names": "brand",
    "generic_names": "generic",
}
#: Between the entries of a stored sorted list (name keys are words joined by single spaces).
SORTED_SEPARATOR = "\n"
_KEY_COLUMNS = ("key", "id", "rule", "text")
#: Name columns written as symbols: keyed joined too when written as one word with dashes
_ALIAS_RULES = frozenset({"symbol", "synonym"})
_NODE_COLUMNS = ("id", "label", "name")
#: Keys that are not names as written but forms of them (a disease title's head, a GO term's
#: product, short process or adjective): no words of their own to count, respell or fuzz.
_FORM_RULES = ("base", "derived")


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
        _fill(db, nodes, keys)
        return cls(db, digest=digest)

    @classmethod
    def from_rows(cls, rows: list[dict]) -> Lexicon:
        """A lexicon in memory from node rows shaped like ``cypher/agent_lexicon.cypher``'s
        (id, label, name, synonyms, xrefs, symbol, brand_names, generic_names): the unit
        tests' small lexicons go through the same keys as the graph's."""
        return cls.from_frames(*_frames(rows))

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
        path = folder / _file_name(digest)
        if path.is_file():
            return cls._open(path)
        with LexiconBuild(cache_dir, wait=False) as build:
            if build.held:
                return build.lexicon(store, digest=digest)
            earlier = _newest_lexicon(folder)
            if earlier is not None:
                log.info("lexicon of %s being built elsewhere: reading %s", digest, earlier.name)
                return cls._open(earlier)
        return cls._open(_build_file(store, path))

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
    through. An ``flock``: a killed holder releases it."""

    def __init__(self, cache_dir: Path, *, wait: bool = True) -> None:
        self.folder = cache_dir / "lexicon"
        self.wait = wait  # False: do not queue behind a holder (``held`` says who won)
        self.held = False
        self._file: IO[bytes] | None = None

    def __enter__(self) -> LexiconBuild:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._file = (self.folder / LOCK_NAME).open("ab")
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | (0 if self.wait else fcntl.LOCK_NB))
            self.held = True
        except BlockingIOError:
            self.held = False
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._file is not None:
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
        path = self.folder / _file_name(digest)
        if not path.is_file():
            _build_file(store, path)
        _forget_others(path)
        return Lexicon._open(path)


#: The lock file beside the cached lexicons.
LOCK_NAME = "build.lock"


def _file_name(digest: str) -> str:
    """A cached lexicon's file: its format first, so a lexicon of an older format is never
    read in place of the current state's."""
    return f"lexicon-{LEXICON_FORMAT}-{digest}.sqlite"


def _newest_lexicon(folder: Path) -> Path | None:
    """The most recently built lexicon of this format in ``folder``, if any."""
    built = list(folder.glob(_file_name("*")))
    return max(built, key=lambda p: p.stat().st_mtime, default=None)


def _build_file(store: GraphStore, path: Path) -> Path:
    """Read the graph into the lexicon file ``path`` (written aside, then moved in place: a
    concurrent reader sees all of it or nothing).

    A lexicon is a function of the rows it is read from, so when an earlier state's lexicon
    was read from the same rows (a refresh that changed edges and no name: PrimeKG's
    interactions, a source reloaded unchanged) its file is taken as it is instead of being
    built again, which at release size is most of a refresh's lexicon step (reading the rows
    is the rest)."""
    rows, present = _read_graph(store)
    digest = _rows_digest(rows, present)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    same = _lexicon_of_rows(path.parent, digest)
    if same is not None:
        shutil.copyfile(same, partial)
        partial.replace(path)
        log.info("lexicon: the names of %s are those of %s: reused", path.name, same.name)
        return path
    nodes, keys = _frames(rows)
    with closing(sqlite3.connect(partial)) as db:
        _fill(db, nodes, keys, present)
        db.execute("INSERT INTO meta VALUES ('rows', ?)", (digest,))
        db.commit()
    partial.replace(path)
    log.info("lexicon: %d nodes, %d keys cached in %s", nodes.height, keys.height, path)
    return path


def _rows_digest(rows: list[dict], present: list[str]) -> str:
    """What a lexicon is built from, as one digest: its rows in id order, the labels that have
    nodes the lexicon names none of, and the lexicon's format."""
    ordered = sorted(rows, key=lambda row: row["id"])
    text = orjson.dumps([LEXICON_FORMAT, sorted(present), ordered], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(text).hexdigest()


def _lexicon_of_rows(folder: Path, digest: str) -> Path | None:
    """A cached lexicon of this format built from rows of ``digest``, if any."""
    for built in folder.glob(_file_name("*")):
        try:
            with closing(sqlite3.connect(f"file:{built}?mode=ro", uri=True)) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'rows'").fetchone()
        except sqlite3.Error:  # a lexicon without a meta table, or one being removed
            continue
        if row is not None and row[0] == digest:
            return built
    return None


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


def _fill(
    db: sqlite3.Connection, nodes: pl.DataFrame, keys: pl.DataFrame, unnamed: Iterable[str] = ()
) -> None:
    """Write the lexicon's tables from its frames; ``unnamed``: labels with nodes in the graph
    that the lexicon holds no names of (``labels`` lists them too)."""
    import polars as pl  # only when building: polars costs every CLI question 0.08 s to import

    names = keys.filter(~pl.col("rule").is_in(["id", "xref"]))
    refs = keys.filter(pl.col("rule").is_in(["id", "xref"])).unique("key", keep="first")
    # words of the names as written: a title's head repeats its words (counts stay true)
    words = (
        names.filter(~pl.col("rule").is_in(_FORM_RULES))
        .join(nodes.unique("id").select("id", "label"), on="id", how="left")
        .select(pl.col("key").str.split(" ").alias("word"), "label")
        .explode("word")
        .group_by("word")
        .agg(
            n=pl.len(),
            only_label=pl.when(pl.col("label").n_unique() == 1).then(pl.col("label").first()),
        )
    )
    db.executescript(
        """
        CREATE TABLE nodes (id TEXT PRIMARY KEY, label TEXT, name TEXT);
        CREATE TABLE keys (key TEXT, id TEXT, rule TEXT, text TEXT);
        CREATE TABLE ids (ref TEXT PRIMARY KEY, id TEXT);
        CREATE TABLE words (word TEXT PRIMARY KEY, n INTEGER, only_label TEXT);
        CREATE TABLE labels (label TEXT PRIMARY KEY);
        CREATE TABLE sorted (kind TEXT PRIMARY KEY, text TEXT);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        """
    )
    # an abbreviation among synonyms ("XECD", "MPSII") is no name to respell: "xkcd" is no
    # typo of it (a gene's official symbol stays respellable)
    abbreviation = (pl.col("rule") == "synonym") & pl.col("text").str.contains(
        r"^[^a-z\s]*[A-Z][^a-z\s]*$"
    )
    fuzzy = names.filter(
        ~pl.col("rule").is_in(["title", "derived"])
        & (pl.col("key").str.len_chars() >= 4)
        & ~abbreviation
    )
    spelt = (
        names.filter(~pl.col("rule").is_in(_FORM_RULES) & ~abbreviation)
        .select(pl.col("key").str.split(" ").alias("word"))
        .explode("word")
        .filter(pl.col("word").str.len_chars() >= 4)
    )
    db.executemany(
        "INSERT INTO sorted VALUES (?, ?)",
        [
            ("keys", SORTED_SEPARATOR.join(fuzzy["key"].unique().sort())),
            ("words", SORTED_SEPARATOR.join(spelt["word"].unique().sort())),
        ],
    )
    db.executemany("INSERT INTO nodes VALUES (?, ?, ?)", nodes.unique("id").iter_rows())
    db.executemany("INSERT INTO keys VALUES (?, ?, ?, ?)", names.iter_rows())
    db.executemany("INSERT INTO ids VALUES (?, ?)", refs.select("key", "id").iter_rows())
    db.executemany("INSERT INTO words VALUES (?, ?, ?)", words.iter_rows())
    present = {*nodes["label"].unique(), *unnamed}
    db.executemany("INSERT INTO labels VALUES (?)", ((label,) for label in sorted(present)))
    db.execute("CREATE INDEX keys_by_key ON keys (key)")
    db.commit()


def graph_digest(versions: list[dict]) -> str:
    """A digest of the current load of every source (``agent_data_versions`` rows)."""
    state = sorted((v["source"], v["load_id"]) for v in versions)
    return hashlib.sha1(repr((LEXICON_FORMAT, state)).encode()).hexdigest()[:16]


def _read_graph(store: GraphStore) -> tuple[list[dict], list[str]]:
    """The lexicon's rows, and the ``named: false`` labels that have nodes: a question may
    still ask for them ("What sections does <a GO term> have?" asks for label sections, which
    GO terms have none of)."""
    unnamed = [label for label, spec in load_schema().labels.items() if not spec.named]
    rows = lexicon_rows(store, unnamed)
    present = [label for label in unnamed if store.read(f"MATCH (n:{label}) RETURN 1 LIMIT 1")]
    return rows, present


def lexicon_rows(store: GraphStore, unnamed: list[str]) -> list[dict]:
    """``cypher/agent_lexicon.cypher``'s rows: every entity's id, label, names and xrefs, but
    those of the ``unnamed`` labels. The embedded engine's are read with its paged SQL
    (:meth:`GraphStore.scan_nodes`), 2.3 times the rate of the Cypher over Bolt on the
    quick-start graph; a build or refresh reads them once for its new lexicon."""
    if not store.http_api:
        return store.read(cypher.load("agent_lexicon"), {"unnamed": unnamed}, timeout_s=300)
    columns = ["xrefs", "namespace", *_NAME_COLUMNS]
    rows = []
    for node in store.scan_nodes(ENTITY, ["id", *columns]):
        label = next(name for name in node["labels"] if name != ENTITY)
        if label not in unnamed:
            rows.append({"id": node["id"], "label": label, **{c: node[c] for c in columns}})
    return rows


def _frames(rows: list[dict]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Node and key frames from lexicon rows: every way each node can be named."""
    import polars as pl  # only when building (see _fill)

    schema = load_schema()
    documents = {n for n, spec in schema.labels.items() if spec.category == DOCUMENT_CATEGORY}
    nodes = pl.DataFrame(
        [(r["id"], r["label"], r["name"]) for r in rows],
        schema=dict.fromkeys(_NODE_COLUMNS, pl.String),
        orient="row",
    )
    keys: list[tuple[str, str, str, str]] = []
    for row in rows:
        node = row["id"]
        for rule, ref in [("id", node), *(("xref", x) for x in row.get("xrefs") or ())]:
            keys.append((ref.casefold(), node, rule, ref))
            local = ref.partition(":")[2]
            if LOCAL_ID.fullmatch(local):
                keys.append((local.casefold(), node, rule, ref))
        for column, rule in _NAME_COLUMNS.items():
            value = row.get(column)
            if row["label"] in documents:
                rule = "title"
            for text in value if isinstance(value, list) else [value] if value else []:
                key = mention_key(text)
                keys.append((key, node, rule, text))
                if (
                    rule in _ALIAS_RULES
                    and " " in key
                    and one_word(text)
                    and not greek_qualifier(key)  # "beta-1": joined, it would name "beta1"
                ):
                    # an alias written as one word ("IL1-BETA"), joined: see EntityLinker._named
                    keys.append((key.replace(" ", ""), node, rule, text))
                if row["label"] == "Disease" and (base := _title_base(text)):
                    keys.append((mention_key(base), node, "base", text))
                if row["label"] == "Drug":
                    keys.append((salt_free_key(text), node, "name-salt", text))
    genes = {row["id"] for row in rows if row["label"] == "Gene"}
    keys += _go_forms(
        rows,
        {word for key, *_ in keys for word in key.split()},
        {key for key, node, rule, _ in keys if node in genes and rule in ("name", "symbol")},
    )
    frame = (
        pl.DataFrame(keys, schema=dict.fromkeys(_KEY_COLUMNS, pl.String), orient="row")
        .filter(pl.col("key") != "")
        .with_columns(s=pl.col("rule").replace_strict(RULE_SCORES, return_dtype=pl.Float64))
        .sort("s", descending=True)
        .unique(["key", "id"], keep="first", maintain_order=True)
        .drop("s")
    )
    return nodes, frame


def _go_forms(
    rows: list[dict], vocabulary: set[str], gene_keys: set[str]
) -> list[tuple[str, str, str, str]]:
    """Keys of the forms GO's naming conventions give its terms' names and synonyms (see
    :mod:`.go_forms`), each with the form as its text; ``vocabulary``: the words of the
    graph's names (an adjective no name uses is no form). A product that is a gene's name
    or symbol ("cyclin dependent kinase 4", of a synonym "cyclin-dependent kinase 4 activity";
    "insulin receptor") is that gene, not a form of the function: ``gene_keys`` are left to
    their genes (an alias is not: "ubiquitin ligase" is one gene's alias, and every E3's)."""
    out = []
    known = vocabulary.__contains__
    for row in rows:
        if row["label"] != "GOTerm":
            continue
        for text in [row.get("name"), *(row.get("synonyms") or ())]:
            for form in derived_names(text or "", row.get("namespace"), known=known):
                key = mention_key(form)
                if key not in gene_keys:
                    out.append((key, row["id"], "derived", form))
    return out


def _title_base(title: str) -> str | None:
    """The disease a qualified or numbered title names ("Spinal and bulbar muscular atrophy"
    of OMIM's "Spinal and bulbar muscular atrophy, X-linked 1", "Severe combined
    immunodeficiency" of "…, autosomal recessive, T cell-negative, …", "Cortisone reductase
    deficiency" of "Cortisone reductase deficiency 1"): people leave the qualifiers and the
    form's number out.

    None for a one-word head ("Deafness, autosomal recessive 1A", "Hemochromatosis type 4": one
    word names a family too wide to stand for its forms) and for an inverted "of" title, whose
    head is the complement ("Radial heads, posterior dislocation of")."""
    head, comma, rest = title.partition(",")
    if not comma:
        head = _FORM_NUMBER.sub("", title)
    inverted = rest.split(",")[0].split()[-1:] == ["of"]
    named = head.strip()
    return named if named != title and len(named.split()) >= 2 and not inverted else None


#: A form's number at the end of a title: "… 1", "… 2B", "… type 4", "… type IIA".
_FORM_NUMBER = re.compile(r"\s+(?:(?:type|form|group)\s+)?(?:\d{1,2}|[IVX]{1,4})[A-Za-z]?$")
