"""Verification questions for every relationship type the graph holds: "yes" with the edge
cited, no verdict where the graph has no such edge (the answer says what it holds instead), and
"no" where the source asserts the negation (GO/HPO ``NOT``).

Each type is asked in its own ``verify`` wording from schema/ (no wording is written here), of
the first edges the engine returns (the same for the same build); every expected value is read
with independent Cypher.
SAME_AS joins two records of one disease under one name, and label sections are never named
(schema/ ``named: false``): neither can be asked by name.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from biokg.graph_agent.agent import GraphAgent
from biokg.schema import GraphSchema, load_schema
from biokg.store import GraphStore

#: Edges asked per type and verdict.
PER_TYPE = 2
#: Names longer than this are titles no one types into a yes/no question.
MAX_NAME = 60
_UNASKABLE = {"SAME_AS"}

_EDGES = """
MATCH (s:Entity)-[r]->(o:Entity)
WHERE type(r) = $type AND coalesce(r.negated, false) = $negated
  AND s.name IS NOT NULL AND o.name IS NOT NULL
  AND size(s.name) <= $max AND size(o.name) <= $max
RETURN r.id AS edge, s.id AS subject, s.name AS subject_name, o.id AS object,
       o.name AS object_name, [l IN labels(o) WHERE l <> 'Entity'][0] AS label
LIMIT 200
"""
_SHARED_NAMES = """
MATCH (n:Entity) WHERE n.name IS NOT NULL
UNWIND [n.name] + coalesce(n.synonyms, []) + coalesce(n.brand_names, []) AS name
WITH toLower(name) AS name, count(DISTINCT n) AS nodes WHERE nodes > 1 RETURN name
"""
_JOINED = """
MATCH (s:Entity {id: $subject})-[r]->(o:Entity {id: $object})
WHERE type(r) = $type RETURN r.id AS id
"""
#: Whether the subject holds the type's edge to the object or to anything under it (its
#: subtypes and parts, six levels down): a claim about a term is met by its subtypes.
_UNDER = """
MATCH (:Entity {id: $subject})-[r]-(:Entity)-[:IS_A|PART_OF*0..6]->(:Entity {id: $object})
WHERE type(r) = $type RETURN count(r) AS n
"""


@dataclass(frozen=True)
class Case:
    type: str
    question: str
    subject: str
    object: str
    #: the edges of the type from subject to object (one of them must be cited)
    edges: frozenset[str] = frozenset()


def _askable_types(store: GraphStore, schema: GraphSchema) -> list[str]:
    unnamed = {label for label, spec in schema.labels.items() if not spec.named}
    present = {
        row["type"] for row in store.read("MATCH ()-[r]->() RETURN DISTINCT type(r) AS type")
    }
    return sorted(
        t
        for t, spec in schema.types.items()
        if t in present
        and t not in _UNASKABLE
        and not unnamed & {*spec.from_labels, *spec.to_labels}
    )


def _edges(store: GraphStore, rel_type: str, shared: set[str], *, negated: bool) -> list[dict]:
    """The first :data:`PER_TYPE` edges the engine returns, of distinct subjects whose two ends each
    have a name no other node has as name, synonym or brand (a name several nodes share asks
    about all of them)."""
    rows = store.read(_EDGES, {"type": rel_type, "negated": negated, "max": MAX_NAME})
    picked: list[dict] = []
    for row in rows:
        if len(picked) == PER_TYPE:
            break
        named = {row["subject_name"].lower(), row["object_name"].lower()}
        if row["subject"] not in {p["subject"] for p in picked} and not named & shared:
            picked.append(row)
    return picked


def _joined(store: GraphStore, rel_type: str, subject: str, obj: str) -> frozenset[str]:
    rows = store.read(_JOINED, {"subject": subject, "object": obj, "type": rel_type})
    return frozenset(row["id"] for row in rows)


def _under(store: GraphStore, rel_type: str, subject: str, obj: str) -> bool:
    params = {"subject": subject, "object": obj, "type": rel_type}
    return store.read(_UNDER, params)[0]["n"] > 0


def cases(store: GraphStore, schema: GraphSchema) -> dict[str, list[Case]]:
    """The verification questions per expected verdict ("yes", "no", "none")."""
    shared = {row["name"] for row in store.read(_SHARED_NAMES)}
    out: dict[str, list[Case]] = {"yes": [], "no": [], "none": []}
    for rel_type in _askable_types(store, schema):
        wording = schema.types[rel_type].questions.verify

        def case(row: dict, obj: dict, rel_type: str = rel_type, wording: str = wording) -> Case:
            text = wording.format(name=row["subject_name"], object=obj["object_name"])
            joined = _joined(store, rel_type, row["subject"], obj["object"])
            return Case(rel_type, text, row["subject"], obj["object"], joined)

        held = _edges(store, rel_type, shared, negated=False)
        out["yes"] += [case(row, row) for row in held]
        # no record: a subject asked about the other sampled edge's object, of the same label,
        # where no edge of the type joins the subject to it or to anything under it
        others = [case(row, other) for row, other in itertools.pairwise(held)]
        out["none"] += [c for c in others if not _under(store, rel_type, c.subject, c.object)]
        out["no"] += [case(row, row) for row in _edges(store, rel_type, shared, negated=True)]
    return out


def failures(agent: GraphAgent, asked: dict[str, list[Case]]) -> list[str]:
    """Each case whose answer is not what the graph says, described."""
    wrong = []
    for expected, group in asked.items():
        for case in group:
            answer = agent.ask(case.question)
            verdict = answer.verdict or "none"
            cited = {e for claim in answer.claims for e in claim.edge_ids}
            if verdict != expected or (case.edges and not case.edges & cited):
                wrong.append(f"{case.type} {case.question!r}: {verdict} (expected {expected})")
    return wrong


def test_every_relationship_type_is_verified_yes_no_record_and_contradicted(
    cross_source_agent: GraphAgent, cross_source_graph: tuple[GraphStore, object]
) -> None:
    store, _ = cross_source_graph
    asked = cases(store, load_schema())
    types = {c.type for c in asked["yes"]}
    # the sources of the cross-source graph, each with its types
    assert {"ASSOCIATED_WITH", "HAS_PHENOTYPE", "ANNOTATED_WITH", "TARGETS", "IS_A"} <= types
    assert asked["none"] and asked["no"], "no no-record or negated case was sampled"
    assert failures(cross_source_agent, asked) == []


_CLASS = """
MATCH (c:GOTerm) WHERE c.name = $activity OR $activity IN coalesce(c.synonyms, [])
RETURN c.id AS id LIMIT 1
"""
_MEMBERS = """
MATCH (g:Gene)-[:ANNOTATED_WITH]->(:GOTerm)-[:IS_A|PART_OF*0..8]->(:GOTerm {id: $class})
WHERE g.symbol =~ '[A-Z][A-Z0-9]{2,}'
RETURN DISTINCT g.symbol AS symbol ORDER BY symbol LIMIT 2
"""
_WITH_FUNCTIONS = """
MATCH (g:Gene)-[:ANNOTATED_WITH]->(:GOTerm {namespace: 'molecular_function'})
WHERE g.symbol =~ '[A-Z][A-Z0-9]{2,}'
RETURN DISTINCT g.symbol AS symbol ORDER BY symbol LIMIT 40
"""
_IN_CLASS = """
MATCH (:Gene {symbol: $symbol})-[:ANNOTATED_WITH]->(:GOTerm)
      -[:IS_A|PART_OF*0..8]->(:GOTerm {id: $class})
RETURN count(*) AS n
"""


def _non_members(store: GraphStore, term: str) -> list[dict]:
    """Two genes with molecular functions, none of them under ``term``."""
    rows = store.read(_WITH_FUNCTIONS)
    return [
        r
        for r in rows
        if store.read(_IN_CLASS, {"symbol": r["symbol"], "class": term})[0]["n"] == 0
    ][:2]


def test_a_gene_is_verified_against_a_class_its_label_noun_names(
    cross_source_agent: GraphAgent, cross_source_graph: tuple[GraphStore, object]
) -> None:
    # "Is ABL1 a kinase?": the noun names GO's "kinase activity" and everything under it
    store, _ = cross_source_graph
    nouns = [n for n in load_schema().labels["Gene"].nouns if " " not in n]
    checked, wrong = 0, []
    for noun in nouns:
        found = store.read(_CLASS, {"activity": f"{noun} activity"})
        if not found:
            continue
        term = found[0]["id"]
        asked = [("yes", r) for r in store.read(_MEMBERS, {"class": term})]
        asked += [("none", r) for r in _non_members(store, term)]
        article = "an" if noun[0] in "aeiou" else "a"
        for expected, row in asked:
            answer = cross_source_agent.ask(f"Is {row['symbol']} {article} {noun}?")
            checked += 1
            if (answer.verdict or "none") != expected:
                wrong.append((row["symbol"], noun, answer.verdict, expected))
    assert checked >= 12, checked
    assert wrong == []
