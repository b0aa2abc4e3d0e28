"""The linker's lexicon: every name, synonym, symbol, brand/generic name and xref of the graph.

Grounding by normalised name keys (the approach of Gilda and of ChEMBL/RxNorm name lookups)
makes case, punctuation, spacing and salt words irrelevant, and it is the only way to reach list
properties (synonyms, brand names) on ArcadeDB, whose full-text indexes cover single strings
only. The lexicon is read from the graph once (~4 s for 100k nodes) and cached as parquet,
keyed by the current load of every source, so it is rebuilt exactly when the graph changed.
"""

from __future__ import annotations

import hashlib
import logging
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from biokg import cypher
from biokg.graph_agent.text import mention_key
from biokg.ingest.identity import LOCAL_ID, salt_free_key
from biokg.schema import load_schema
from biokg.store import GraphStore

log = logging.getLogger(__name__)

#: Bumped when what the lexicon stores changes, so cached lexicons are rebuilt.
LEXICON_FORMAT = 4
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
_KEY_SCHEMA = {"key": pl.String, "id": pl.String, "rule": pl.String, "text": pl.String}
_NODE_SCHEMA = {"id": pl.String, "label": pl.String, "name": pl.String}


@dataclass(frozen=True)
class Entry:
    """One way to name one node."""

    id: str
    rule: str
    text: str


class Lexicon:
    """Name keys and ids of every entity (see module docstring); build with :meth:`load`."""

    def __init__(self, nodes: pl.DataFrame, keys: pl.DataFrame, *, digest: str = "") -> None:
        self.digest = digest  # the graph state it was read from (see :func:`graph_digest`)
        self.nodes: dict[str, tuple[str, str]] = {
            i: (label, name or i) for i, label, name in nodes.iter_rows()
        }
        self.by_key: dict[str, list[Entry]] = {}
        self.by_id: dict[str, str] = {}
        for key, node, rule, text in keys.iter_rows():
            if rule in ("id", "xref"):
                self.by_id.setdefault(key, node)
            else:
                self.by_key.setdefault(key, []).append(Entry(node, rule, text))
        self.fuzzy_keys: list[str] = sorted(k for k in self.by_key if len(k) >= 4)
        self.word_counts: Counter[str] = Counter(w for k in self.by_key for w in k.split())
        self.words: frozenset[str] = frozenset(self.word_counts)
        self.word_list: list[str] = sorted(w for w in self.words if len(w) >= 4)
        #: labels that have nodes in the graph (an asked label without nodes gives way)
        self.labels: frozenset[str] = frozenset(label for label, _ in self.nodes.values())

    @classmethod
    def load(cls, store: GraphStore, cache_dir: Path) -> Lexicon:
        """The lexicon of the graph as it is now, from the cache when the graph is unchanged."""
        digest = graph_digest(store.read(cypher.load("agent_data_versions")))
        folder = cache_dir / "lexicon" / digest
        if (folder / "keys.parquet").is_file():
            nodes, keys = (pl.read_parquet(folder / f) for f in ("nodes.parquet", "keys.parquet"))
            return cls(nodes, keys, digest=digest)
        nodes, keys = _read_graph(store)
        folder.mkdir(parents=True, exist_ok=True)
        nodes.write_parquet(folder / "nodes.parquet")
        keys.write_parquet(folder / "keys.parquet")
        log.info("lexicon: %d nodes, %d keys cached in %s", nodes.height, keys.height, folder)
        return cls(nodes, keys, digest=digest)

    def keys_starting(self, prefix: str) -> list[str]:
        """Name keys (four letters or more) that begin with ``prefix``, in order."""
        keys = self.fuzzy_keys
        start = bisect_left(keys, prefix)
        end = start
        while end < len(keys) and keys[end].startswith(prefix):
            end += 1
        return keys[start:end]

    def label(self, node_id: str) -> str:
        return self.nodes[node_id][0]

    def name(self, node_id: str) -> str:
        return self.nodes[node_id][1]


def graph_digest(versions: list[dict]) -> str:
    """A digest of the current load of every source (``agent_data_versions`` rows)."""
    state = sorted((v["source"], v["load_id"]) for v in versions)
    return hashlib.sha1(repr((LEXICON_FORMAT, state)).encode()).hexdigest()[:16]


def _read_graph(store: GraphStore) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = store.read(cypher.load("agent_lexicon"), timeout_s=300)
    schema = load_schema()
    documents = {n for n, spec in schema.labels.items() if spec.category == DOCUMENT_CATEGORY}
    nodes = pl.DataFrame(
        [(r["id"], r["label"], r["name"]) for r in rows], schema=_NODE_SCHEMA, orient="row"
    )
    keys: list[tuple[str, str, str, str]] = []
    for row in rows:
        node = row["id"]
        for rule, ref in [("id", node), *(("xref", x) for x in row["xrefs"] or ())]:
            keys.append((ref.casefold(), node, rule, ref))
            local = ref.partition(":")[2]
            if LOCAL_ID.fullmatch(local):
                keys.append((local.casefold(), node, rule, ref))
        for column, rule in _NAME_COLUMNS.items():
            value = row[column]
            if row["label"] in documents:
                rule = "title"
            for text in value if isinstance(value, list) else [value] if value else []:
                keys.append((mention_key(text), node, rule, text))
                if row["label"] == "Drug":
                    keys.append((salt_free_key(text), node, "name-salt", text))
    frame = (
        pl.DataFrame(keys, schema=_KEY_SCHEMA, orient="row")
        .filter(pl.col("key") != "")
        .with_columns(s=pl.col("rule").replace_strict(RULE_SCORES, return_dtype=pl.Float64))
        .sort("s", descending=True)
        .unique(["key", "id"], keep="first", maintain_order=True)
        .drop("s")
    )
    return nodes, frame
