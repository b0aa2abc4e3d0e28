"""Node facts: every source's own values kept on the node, the shown values chosen by a rule.

Several sources assert the same node (a gene from GO's gene authority, from HPO and from
PrimeKG; a drug from ChEMBL, PrimeKG, openFDA). Each source's values for it are kept in the
node's :data:`FACTS` property (JSON: source → its load, whether it only references the node, its
values), and the properties a Browser user reads (``n.name``, ``n.synonyms``, ...) are chosen from
them by schema/'s ``precedence``: a scalar from the first source in the label's order that states
it, a list as the union in that order, ``sources`` as the sources in that order. A source that
only references a node (a stub) ranks after every source that defines it. So the shown node
depends on which sources assert what, never on the order they were written in, and a source that
stops asserting a node takes only its own values away (docs/decisions/0016-node-facts.md).

A node asserted by one source only (most nodes) keeps its facts as :data:`SHOWN`: that source's
values *are* the shown properties, so label texts are not stored twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import neo4j

from biokg import cypher
from biokg.schema import GraphSchema

#: The node property that holds every source's values (a JSON object; Neo4j has no map values).
FACTS = "source_facts"
#: A sole source's values stand for themselves: they are the node's shown properties.
SHOWN = "*"
#: Properties that are not a source's statement about the node.
NOT_FACTS = ("id", "sources")


@dataclass(frozen=True)
class Fact:
    """One source's statement about one node."""

    load: str
    stub: bool
    values: dict[str, Any]

    def to_json(self) -> dict:
        return {"load": self.load, "stub": self.stub, "values": self.values}


Facts = dict[str, Fact]


def parse(text: str | None, shown: dict[str, Any] | None = None) -> Facts:
    """The facts stored on a node; ``shown`` (its declared properties) fills :data:`SHOWN`."""
    if not text:
        return {}
    raw = json.loads(text)
    out = {}
    for source, entry in raw.items():
        values = entry["values"]
        if values == SHOWN:
            values = {
                k: v for k, v in (shown or {}).items() if k not in NOT_FACTS and v is not None
            }
        out[source] = Fact(entry["load"], entry["stub"], values)
    return out


def dump(facts: Facts) -> str:
    """The stored form: sources sorted, a sole source's values as :data:`SHOWN`."""
    if len(facts) == 1:
        [(source, fact)] = facts.items()
        return json.dumps({source: {**fact.to_json(), "values": SHOWN}}, sort_keys=True)
    return json.dumps({s: facts[s].to_json() for s in sorted(facts)}, sort_keys=True)


def needs_shown(text: str | None) -> bool:
    """Whether reading a node's facts needs its shown properties: a :data:`SHOWN` entry, or no
    facts at all (a node written before facts were kept shows values no fact accounts for)."""
    return not text or f'"values": "{SHOWN}"' in text


class Chooser:
    """Chooses a label's shown properties from its facts by schema/'s precedence."""

    def __init__(self, schema: GraphSchema, label: str) -> None:
        self.label = label
        self.properties = {
            p: t for p, t in schema.node_properties(label).items() if p not in NOT_FACTS
        }
        self._precedence = schema.precedence
        self._orders = {p: self._precedence.order(label, p) for p in self.properties}

    def ranked(self, facts: Facts, prop: str | None = None) -> list[str]:
        """The sources of ``facts`` best first: definers before stubs, then schema/'s order,
        then unlisted sources by id."""
        order = self._orders[prop] if prop else self._precedence.order(self.label)
        position = {s: i for i, s in enumerate(order)}
        return sorted(facts, key=lambda s: (facts[s].stub, position.get(s, len(order)), s))

    def shown(self, facts: Facts) -> dict[str, Any]:
        """The properties the node shows (absent ones left out), ``sources`` included."""
        out: dict[str, Any] = {}
        for prop, kind in self.properties.items():
            stated = [
                facts[s].values[prop]
                for s in self.ranked(facts, prop)
                if facts[s].values.get(prop) is not None
            ]
            if not stated:
                continue
            out[prop] = _union(stated) if kind == "str[]" else stated[0]
        out["sources"] = self.ranked(facts)
        return out


def _union(lists: Iterable[list]) -> list:
    seen: dict[Any, None] = {}
    for values in lists:
        for value in values:
            seen.setdefault(value, None)
    return list(seen)


def write_node_rows(
    tx: neo4j.ManagedTransaction,
    chooser: Chooser,
    rows: list[dict],
    source: str,
    load: str,
    *,
    stub: bool,
) -> tuple[int, int, list[str]]:
    """Put one batch of a source's node records into ``tx`` as its facts, and show the chosen
    values; returns (created, existing, ids whose labels clash).

    A stub never replaces the same load's definition of the node by its own source.
    """
    label = chooser.label
    ids = [row["id"] for row in rows]
    existing = {r["id"]: r for r in tx.run(cypher.load("write_lookup_nodes"), ids=ids).data()}
    clashes = [i for i, r in existing.items() if label not in r["labels"]]
    if clashes:
        return 0, 0, clashes
    shown = _shown_values(tx, chooser, [r for r in existing.values() if needs_shown(r["facts"])])
    created, updated = [], []
    for row in rows:
        values = {k: v for k, v in row.items() if k not in NOT_FACTS and v is not None}
        node = existing.get(row["id"])
        if node is None:
            facts = {source: Fact(load, stub, values)}
            created.append({"id": row["id"], **chooser.shown(facts), FACTS: dump(facts)})
            continue
        before = parse(node["facts"], shown.get(row["id"]))
        mine = before.get(source)
        if stub and mine is not None and mine.load == load and not mine.stub:
            continue
        facts = {**before, source: Fact(load, stub, values)}
        if facts != before or not node["facts"]:
            updated.append(_update(chooser, row["id"], _old(chooser, node, before, shown), facts))
    if created:
        statement = cypher.load("write_create_nodes").replace("{label}", label)
        tx.run(statement, rows=created).consume()
    if updated:
        tx.run(cypher.load("write_update_nodes"), rows=updated).consume()
    return len(created), len(existing), []


def release_node_facts(
    tx: neo4j.ManagedTransaction, chooser: Chooser, ids: list[str], source: str
) -> int:
    """Take ``source``'s facts off these nodes and show what the others state; a node no source
    asserts any more and no edge touches is deleted. Returns how many nodes changed."""
    nodes = tx.run(cypher.load("write_lookup_nodes"), ids=ids).data()
    shown = _shown_values(tx, chooser, [n for n in nodes if needs_shown(n["facts"])])
    updated = []
    for node in nodes:
        before = parse(node["facts"], shown.get(node["id"]))
        if source not in before:  # not its node (or written before facts were kept)
            continue
        facts = {s: f for s, f in before.items() if s != source}
        updated.append(_update(chooser, node["id"], chooser.shown(before), facts))
    if updated:
        tx.run(cypher.load("write_update_nodes"), rows=updated).consume()
        gone = [row["id"] for row in updated if not row["props"]["sources"]]
        if gone:
            tx.run(cypher.load("write_delete_unasserted"), ids=gone).consume()
    return len(updated)


def _old(chooser: Chooser, node: dict, before: Facts, shown: dict[str, dict]) -> dict[str, Any]:
    """What a node shows now: chosen from its facts, or as read when it has none yet."""
    if node["facts"]:
        return chooser.shown(before)
    return {k: v for k, v in shown.get(node["id"], {}).items() if v is not None}


def _update(chooser: Chooser, node_id: str, old: dict[str, Any], after: Facts) -> dict:
    """The property map that turns a node showing ``old`` into one showing what ``after``
    chooses (a property no source states any more is set to null, which removes it)."""
    new = chooser.shown(after)
    props: dict[str, Any] = dict.fromkeys(set(old) - set(new))
    props.update(new)
    props[FACTS] = dump(after) if after else None
    return {"id": node_id, "props": props}


def _shown_values(
    tx: neo4j.ManagedTransaction, chooser: Chooser, nodes: list[dict]
) -> dict[str, dict[str, Any]]:
    """The declared properties of nodes whose facts refer to them (:data:`SHOWN`)."""
    if not nodes:
        return {}
    keys = list(chooser.properties)
    rows = tx.run(cypher.load("write_shown_values"), ids=[n["id"] for n in nodes], keys=keys).data()
    return {r["id"]: dict(zip(keys, r["values"], strict=True)) for r in rows}
