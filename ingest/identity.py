"""Drug identity: brand, generic and synonym names, salts and ids resolve to one ingredient node.

Rules, strongest first (the rule that merged each record is reported):

1. ``id``: the record's id or one of its xrefs is already a Drug node's id or xref (UNII, RxCUI,
   ChEMBL, DrugBank);
2. ``name``: a normalised name of the record (name, synonyms, brand and generic names) equals a
   normalised name of exactly one Drug node;
3. ``name-salt``: the same after dropping salt and hydrate words (``sildenafil citrate`` →
   ``sildenafil``), also with exactly one candidate.

A name with several candidates is a conflict: reported, never merged. Names are normalised by
case folding, unifying punctuation and spacing; salt words are a declared table below.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from biokg import cypher
from biokg.store import GraphStore

#: Salt, ester and hydrate words removed for salt-insensitive matching (USP salt nomenclature,
#: https://www.usp.org/ - the common counter-ions and hydration states of approved drugs).
SALT_WORDS = frozenset(
    """
    acetate anhydrous benzoate besilate besylate bitartrate bromide calcium carbonate chloride
    citrate dihydrate dihydrochloride dimesylate disodium dipropionate edisylate fumarate
    gluconate hemihydrate hyclate hydrobromide hydrochloride hydrate lactate magnesium maleate
    malate mesylate mesilate monohydrate monosodium nitrate oxalate palmitate phosphate
    potassium propionate sodium succinate sulfate sulphate tartrate tosylate trihydrate
    trometamol tromethamine valerate hcl
    """.split()
)
_PUNCT = re.compile(r"[^0-9a-z]+")


def name_key(text: str) -> str:
    """Case-, punctuation- and spacing-insensitive key of a drug name.

    >>> name_key("  Sildenafil   Citrate ")
    'sildenafil citrate'
    >>> name_key("VIAGRA®")
    'viagra'
    """
    return " ".join(_PUNCT.sub(" ", text.casefold()).split())


def salt_free_key(text: str) -> str:
    """:func:`name_key` without salt and hydrate words.

    >>> salt_free_key("Sildenafil citrate")
    'sildenafil'
    >>> salt_free_key("sodium chloride")  # nothing left: the name is all salt words
    'sodium chloride'
    """
    key = name_key(text)
    kept = [w for w in key.split() if w not in SALT_WORDS]
    return " ".join(kept) if kept else key


@dataclass(frozen=True)
class DrugEntry:
    """What identity matching needs of one Drug node."""

    id: str
    names: tuple[str, ...]
    xrefs: tuple[str, ...] = ()


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
        """Candidates for a record: by its id and xrefs first, then by each of its names."""
        for ref in (entry.id, *entry.xrefs):
            node = self.by_id.get(ref.casefold())
            if node is not None:
                return [Match(node, "id", ref)]
        for rule in ("name", "name-salt"):
            found: dict[str, Match] = {}
            for name in entry.names:
                for match in self.lookup(name):
                    if match.rule == rule:
                        found.setdefault(match.id, match)
            if found:
                return [found[k] for k in sorted(found)]
        return []


def graph_drug_index(store: GraphStore) -> DrugIndex:
    """The index of the Drug nodes in the graph (one read of every Drug's names and xrefs)."""
    rows = store.read(cypher.load("identity_drugs"))
    return DrugIndex.build(
        DrugEntry(r["id"], tuple(n for n in r["names"] if n), tuple(r["xrefs"])) for r in rows
    )
