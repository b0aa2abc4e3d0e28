"""Building the linker's lexicon (:mod:`.lexicon` reads it) from the graph's rows.

Each node's names become keys (``_name_keys``: the costly part, a mention key of every name,
synonym, symbol and brand), its id and xrefs become refs, and GO terms gain the forms GO's naming
conventions imply (:mod:`.go_forms`, which read the whole graph's vocabulary). The file keeps a
digest of the row each node was read from, so that a later graph state's lexicon starts from it:
a state whose rows are all the same takes the earlier file as it is (a refresh that changed
edges only), and one whose rows changed in part computes the keys of the changed nodes only,
keeps the others', and derives words, sorted lists and GO forms again from all of them, as a
full build does. Keys are in one canonical order (rule score, then id, key, rule, text), so a
lexicon built from an earlier one equals a full build of the same rows.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from biokg import cypher
from biokg.core.names import LOCAL_ID, salt_free_key
from biokg.core.store import GraphStore
from biokg.graph_agent.go_forms import derived_names
from biokg.graph_agent.text import greek_qualifier, mention_key, numbered_form, one_word
from biokg.schema import ENTITY, load_schema

if TYPE_CHECKING:  # polars is imported where a lexicon is built: a cached one is read without it
    import polars as pl

log = logging.getLogger(__name__)

#: Bumped when what the lexicon stores changes, so cached lexicons are rebuilt.
LEXICON_FORMAT = 22
#: Words as prose writes them, not as an abbreviation or a symbol is: no capital after the first
#: letter, no digit, four letters or more.
PLAIN_WORDS = r"^[A-Za-z][a-z]{3,}(?: [a-z]+)*$"
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
#: product, short process or adjective): no words of their own to count or respell (a title's
#: head is still a key typo-tolerant matching reads; a GO form is not).
_FORM_RULES = ("base", "derived")
_REF_RULES = ("id", "xref")
#: A lexicon's build record: ``rows``, the digest of what it was built from
#: (:func:`_whole_digest`); ``keys``, the code that keyed it (:func:`key_code`).
_META = "SELECT value FROM meta WHERE key = ?"


def file_name(digest: str) -> str:
    """A cached lexicon's file: its format first, so a lexicon of an older format is never
    read in place of the current state's."""
    return f"lexicon-{LEXICON_FORMAT}-{digest}.sqlite"


def newest_lexicon(folder: Path) -> Path | None:
    """The most recently built lexicon of this format in ``folder``, if any."""
    built = list(folder.glob(file_name("*")))
    return max(built, key=lambda p: p.stat().st_mtime, default=None)


def build_file(store: GraphStore, path: Path) -> Path:
    """Read the graph into the lexicon file ``path`` (see :func:`write_file`).

    Raises:
        StoreError: the graph could not be read.
    """
    rows, present = read_graph(store)
    return write_file(rows, present, path)


def write_file(rows: list[dict], present: list[str], path: Path) -> Path:
    """Write the lexicon of ``rows`` to ``path``, from the newest earlier lexicon beside it
    when there is one (module docstring); written aside, then moved in place, so a concurrent
    reader sees all of it or nothing.

    Args:
        rows: the lexicon rows (:func:`lexicon_rows`).
        present: the ``named: false`` labels that have nodes.
        path: the file to write (:func:`file_name` in the cache's lexicon folder).

    Returns:
        ``path``.
    """
    digests = _row_digests(rows)
    code = key_code()
    whole = _whole_digest(digests, present, code)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    partial.unlink(missing_ok=True)  # a build of this process that failed half-way
    earlier = newest_lexicon(path.parent)
    if earlier is not None and _stored(earlier, _META, "rows") == [(whole,)]:
        _link_or_copy(earlier, partial)
        partial.replace(path)
        log.info("lexicon: the names of %s are those of %s: reused", path.name, earlier.name)
        return path
    kept = _kept_keys(earlier, digests, code) if earlier is not None else None
    nodes, keys = frames(rows, kept=kept)
    with closing(sqlite3.connect(partial)) as db:
        fill(db, nodes, keys, present)
        db.executemany("INSERT INTO rows VALUES (?, ?)", digests.items())
        db.executemany("INSERT INTO meta VALUES (?, ?)", [("rows", whole), ("keys", code)])
        db.commit()
    partial.replace(path)
    reused = 0 if kept is None else kept["id"].n_unique()
    log.info(
        "lexicon: %d nodes (%d of them keyed by the earlier lexicon), %d keys cached in %s",
        nodes.height,
        reused,
        keys.height,
        path,
    )
    return path


def _link_or_copy(source: Path, target: Path) -> None:
    """``target`` as a second name of ``source`` (a lexicon is never written once built), or a
    copy where the file system cannot link."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _row_digests(rows: list[dict]) -> dict[str, int]:
    """Each node's digest of the row it is read from (64 bits, signed for SQLite)."""
    return {
        row["id"]: int.from_bytes(
            hashlib.blake2b(orjson.dumps(row, option=orjson.OPT_SORT_KEYS), digest_size=8).digest(),
            "big",
            signed=True,
        )
        for row in rows
    }


@cache
def key_code() -> str:
    """A digest of what turns a row into keys besides the row: the code of the modules that
    make keys (name keys, GO forms, this module) and schema/'s node labels (which are
    documents, which are named), so that keys kept from an earlier lexicon are never those of
    other code."""
    from biokg.core import names
    from biokg.graph_agent import go_forms, text

    digest = hashlib.sha256()
    for source in (names.__file__, text.__file__, go_forms.__file__, __file__):
        digest.update(Path(source).read_bytes())
    labels = sorted(
        (label, spec.category, spec.named) for label, spec in load_schema().labels.items()
    )
    digest.update(orjson.dumps(labels))
    return digest.hexdigest()


def _whole_digest(digests: dict[str, int], present: list[str], code: str) -> str:
    """What a lexicon is built from, as one digest: every row's, the labels that have nodes the
    lexicon names none of, the key code (:func:`key_code`) and the lexicon's format."""
    state = [LEXICON_FORMAT, code, sorted(present), sorted(digests.items())]
    return hashlib.sha256(orjson.dumps(state)).hexdigest()


def _stored(path: Path, sql: str, *params: object) -> list[tuple]:
    """Rows of a query on a cached lexicon, none if it cannot be read (an older build without
    the table, or a file being removed)."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return db.execute(sql, params).fetchall()
    except sqlite3.Error:
        return []


def _kept_keys(earlier: Path, digests: dict[str, int], code: str) -> pl.DataFrame | None:
    """The earlier lexicon's name keys of the nodes whose rows are unchanged (GO forms left
    out: they are derived again from the whole vocabulary); None if it kept no digests or was
    keyed by other code."""
    import polars as pl

    if _stored(earlier, _META, "keys") != [(code,)]:
        return None
    stored = dict(_stored(earlier, "SELECT id, digest FROM rows"))
    same = [node for node, digest in digests.items() if stored.get(node) == digest]
    if not same:
        return None
    names = _stored(earlier, "SELECT key, id, rule, text FROM keys WHERE rule != 'derived'")
    frame = pl.DataFrame(names, schema=dict.fromkeys(_KEY_COLUMNS, pl.String), orient="row")
    return frame.join(pl.DataFrame({"id": same}, schema={"id": pl.String}), on="id", how="semi")


def fill(
    db: sqlite3.Connection, nodes: pl.DataFrame, keys: pl.DataFrame, unnamed: Iterable[str] = ()
) -> None:
    """Write the lexicon's tables from its frames (:func:`frames`).

    Args:
        db: an empty SQLite database.
        nodes: id, label and name of every node.
        keys: key, id, rule and text of every way a node is named, best match of a key first.
        unnamed: labels with nodes in the graph that the lexicon holds no names of (``labels``
            lists them too).
    """
    import polars as pl  # only when building: polars costs every CLI question 0.08 s to import

    db.executescript(_TABLES)
    names = keys.filter(~pl.col("rule").is_in(_REF_RULES))
    refs = keys.filter(pl.col("rule").is_in(_REF_RULES))
    refs = refs.unique("key", keep="first", maintain_order=True)
    db.executemany("INSERT INTO sorted VALUES (?, ?)", _sorted_lists(names))
    db.executemany("INSERT INTO nodes VALUES (?, ?, ?)", nodes.unique("id").sort("id").iter_rows())
    db.executemany("INSERT INTO keys VALUES (?, ?, ?, ?)", names.iter_rows())
    db.executemany("INSERT INTO ids VALUES (?, ?)", refs.select("key", "id").iter_rows())
    db.executemany("INSERT INTO words VALUES (?, ?, ?)", _word_counts(names, nodes).iter_rows())
    present = {*nodes["label"].unique(), *unnamed}
    db.executemany("INSERT INTO labels VALUES (?)", ((label,) for label in sorted(present)))
    db.execute("CREATE INDEX keys_by_key ON keys (key)")
    db.commit()


_TABLES = """
CREATE TABLE nodes (id TEXT PRIMARY KEY, label TEXT, name TEXT);
CREATE TABLE keys (key TEXT, id TEXT, rule TEXT, text TEXT);
CREATE TABLE ids (ref TEXT PRIMARY KEY, id TEXT);
CREATE TABLE words (word TEXT PRIMARY KEY, n INTEGER, only_label TEXT);
CREATE TABLE labels (label TEXT PRIMARY KEY);
CREATE TABLE sorted (kind TEXT PRIMARY KEY, text TEXT);
CREATE TABLE rows (id TEXT PRIMARY KEY, digest INTEGER);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
"""


def _word_counts(names: pl.DataFrame, nodes: pl.DataFrame) -> pl.DataFrame:
    """Per word of the names as written: how many keys use it, and its one label if it has
    one (a title's head repeats its words, so forms are left out and counts stay true)."""
    import polars as pl

    return (
        names.filter(~pl.col("rule").is_in(_FORM_RULES))
        .join(nodes.unique("id").select("id", "label"), on="id", how="left")
        .select(pl.col("key").str.split(" ").alias("word"), "label")
        .explode("word")
        .group_by("word")
        .agg(
            n=pl.len(),
            only_label=pl.when(pl.col("label").n_unique() == 1).then(pl.col("label").first()),
        )
        .sort("word")
    )


def _sorted_lists(names: pl.DataFrame) -> list[tuple[str, str]]:
    """The sorted lists typo-tolerant matching scans: name keys of four letters or more (no
    documents' titles, no GO forms) and the words of names as written."""
    import polars as pl

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
    return [
        ("keys", SORTED_SEPARATOR.join(fuzzy["key"].unique().sort())),
        ("words", SORTED_SEPARATOR.join(spelt["word"].unique().sort())),
    ]


def read_graph(store: GraphStore) -> tuple[list[dict], list[str]]:
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


def frames(
    rows: list[dict], *, kept: pl.DataFrame | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Node and key frames from lexicon rows: every way each node can be named.

    Args:
        rows: the lexicon rows (:func:`lexicon_rows`).
        kept: name keys of nodes whose rows are unchanged since an earlier lexicon (taken, not
            computed again).

    Returns:
        The nodes (id, label, name) and their keys (key, id, rule, text), one per key and
        node, best match of a key first (:func:`_canonical`).
    """
    import polars as pl  # only when building (see fill)

    schema = load_schema()
    # a name a document shares with an entity (the label "VIAGRA", the drug with brand name
    # Viagra) means the entity first
    documents = set(schema.document_labels)
    nodes = pl.DataFrame(
        [(r["id"], r["label"], r["name"]) for r in rows],
        schema=dict.fromkeys(_NODE_COLUMNS, pl.String),
        orient="row",
    )
    taken = set(kept["id"].unique()) if kept is not None else set()
    keys: list[tuple[str, str, str, str]] = []
    for row in rows:
        keys += _ref_keys(row)
        if row["id"] not in taken:
            keys += _name_keys(row, documents)
    columns = dict.fromkeys(_KEY_COLUMNS, pl.String)
    named = pl.DataFrame(keys, schema=columns, orient="row")
    # the kept keys are one per (key, node) already: the computed ones are made so before
    # anything is derived from them, so both roads derive from the same keys
    named = _canonical(pl.concat([named, kept]) if kept is not None else named)
    genes = pl.DataFrame(
        {"id": [row["id"] for row in rows if row["label"] == "Gene"]}, schema={"id": pl.String}
    )
    gene_keys = named.filter(pl.col("rule").is_in(["name", "symbol"])).join(
        genes, on="id", how="semi"
    )
    vocabulary = set(named["key"].str.split(" ").explode().unique())
    forms = _go_forms(rows, vocabulary, set(gene_keys["key"]))
    # a gene's alias written as a plain word that is GO's name for a class of products (a
    # helicase's alias "helicase") describes the gene, it does not name it: the word names the
    # class, whose members include the gene
    classes = {key for key, *_ in forms}
    named = named.filter(
        ~(
            (pl.col("rule") == "synonym")
            & pl.col("id").is_in(genes["id"].to_list())
            & pl.col("text").str.contains(PLAIN_WORDS)
            & pl.col("key").is_in(list(classes))
        )
    )
    forms += _gene_families(rows, set(named["key"]))
    return nodes, _canonical(pl.concat([named, pl.DataFrame(forms, schema=columns, orient="row")]))


def _canonical(keys: pl.DataFrame) -> pl.DataFrame:
    """One key per (key, node), the best by rule score, in one order whatever the rows' order:
    rule score, then id, key, rule and text (the best match of a key first)."""
    import polars as pl

    return (
        keys.filter(pl.col("key") != "")
        .with_columns(s=pl.col("rule").replace_strict(RULE_SCORES, return_dtype=pl.Float64))
        .sort(["s", "id", "key", "rule", "text"], descending=[True, False, False, False, False])
        .unique(["key", "id"], keep="first", maintain_order=True)
        .drop("s")
    )


def _ref_keys(row: dict) -> list[tuple[str, str, str, str]]:
    """A node's id and xrefs as refs, each also by its bare local part."""
    node, keys = row["id"], []
    for rule, ref in [("id", node), *(("xref", x) for x in row.get("xrefs") or ())]:
        keys.append((ref.casefold(), node, rule, ref))
        local = ref.partition(":")[2]
        if LOCAL_ID.fullmatch(local):
            keys.append((local.casefold(), node, rule, ref))
    return keys


def _name_keys(row: dict, documents: set[str]) -> list[tuple[str, str, str, str]]:
    """Every key a node's own names give (the costly part of a build)."""
    node, keys = row["id"], []
    for column, rule in _NAME_COLUMNS.items():
        value = row.get(column)
        if column == "name" and value and value == row.get("symbol"):
            # a source that gives a gene no full name names it by its symbol: keyed as the
            # symbol it is, which is how the linker's scorer reads it
            continue
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
    return keys


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


def _gene_families(rows: list[dict], names: set[str]) -> list[tuple[str, str, str, str]]:
    """Keys of the families that genes' full names number their members in ("sirtuin 1" …
    "sirtuin 7": "sirtuin" and "sirtuins"), one per member, each with the family's
    name as its text: a family names all of its members. A head needs
    :data:`FAMILY_MEMBERS` members to be a family, and is no family where it is a node's own
    name or synonym already."""
    members: dict[str, list[tuple[str, str]]] = {}
    for row in rows:
        if row["label"] == "Gene" and (match := _NUMBERED_MEMBER.match(row.get("name") or "")):
            members.setdefault(mention_key(match["head"]), []).append((row["id"], match["head"]))
    return [
        (form, node, "derived", head)
        for key, genes in members.items()
        if len(genes) >= FAMILY_MEMBERS and key not in names
        for node, head in genes
        # and in the plural people name a family by ("the cadherins"): read as itself, since
        # a plural the graph's names use is not read as its singular
        for form in (key, key if key.endswith("s") else f"{key}s")
    ]


#: A gene's full name that numbers it in its family: "sirtuin 1", "cadherin 13", "aquaporin 4".
_NUMBERED_MEMBER = re.compile(r"^(?P<head>[A-Za-z][A-Za-z -]*[A-Za-z])\s+\d{1,3}[A-Z]?$")
#: Numbered genes a head needs to name a family (two may share a head by chance).
FAMILY_MEMBERS = 3


def _title_base(title: str) -> str | None:
    """The disease a qualified or numbered title names ("Cortisone reductase deficiency" of
    OMIM's "Cortisone reductase deficiency 1", a disease's name of its titles qualified by mode
    of inheritance and cell type): people leave the qualifiers and the form's number out.

    None for a one-word head ("Deafness, autosomal recessive 1A", "Epilepsy, idiopathic
    generalized 10": one word names a family too wide to stand for its forms) and for an
    inverted "of" title, whose head is the complement ("Radial heads, posterior dislocation of")."""
    head, comma, rest = title.partition(",")
    if not comma:
        written = title.split()
        numbered = next((n for n in (2, 1) if numbered_form(written[-n:])), 0)
        head = " ".join(written[: len(written) - numbered])
    inverted = rest.split(",")[0].split()[-1:] == ["of"]
    named = head.strip()
    return named if named != title and len(named.split()) >= 2 and not inverted else None
