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
import random
import re
from dataclasses import dataclass

from biokg.core.store import GraphStore
from biokg.graph_agent.agent import GraphAgent
from biokg.schema import GraphSchema, load_schema

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
    assert wrong == [], wrong


#: A disease's phenotype P and a parent Q of P the disease is not annotated with directly.
_PARENT_OF_FEATURE = """
MATCH (d:Disease)-[r:HAS_PHENOTYPE]->(:Phenotype)-[:IS_A]->(q:Phenotype)
WHERE coalesce(r.negated, false) = false AND size(d.name) <= $max AND size(q.name) <= $max
  AND NOT (d)-[:HAS_PHENOTYPE]->(q)
RETURN DISTINCT d.id AS subject, d.name AS subject_name, q.id AS object, q.name AS object_name
ORDER BY subject, object
LIMIT 400
"""


def test_a_class_named_before_its_subject_is_met_by_its_subtypes(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    """A phenotype asked of a disease, the phenotype first: the relationship runs from the
    disease, so the phenotype's subtypes meet the claim; a phenotype nothing
    under which the disease has gives no verdict, never a list of the phenotype's diseases."""
    shared = {row["name"] for row in agent_graph.read(_SHARED_NAMES)}
    rows = [
        r
        for r in agent_graph.read(_PARENT_OF_FEATURE, {"max": MAX_NAME})
        if not {r["subject_name"].lower(), r["object_name"].lower()} & shared
    ]
    rng = random.Random(20261207)
    held = rng.sample(rows, 4)
    asked = {"yes": [], "none": []}
    for row, other in zip(held, rng.sample(rows, 8), strict=False):
        asked["yes"].append(row)
        if not _under(agent_graph, "HAS_PHENOTYPE", row["subject"], other["object"]):
            asked["none"].append(
                {**row, "object": other["object"], "object_name": other["object_name"]}
            )
    assert asked["none"], "no phenotype outside a sampled disease's annotations"
    wrong = []
    for expected, group in asked.items():
        for row in group:
            answer = agent.ask(f"Is {row['object_name']} a feature of {row['subject_name']}?")
            cited = {n for claim in answer.claims for n in claim.node_ids}
            if (answer.verdict or "none") != expected:
                wrong.append((row["object_name"], row["subject_name"], answer.verdict))
            elif expected == "yes":
                assert row["subject"] in cited, answer.summary
            else:  # what the graph holds is told about the disease
                assert f"for {row['subject_name']}" in answer.summary, answer.summary
    assert wrong == [], wrong


#: A drug, and a molecular function class one of its targets has (GO's "<product> activity",
#: one word before "activity": what people call the target, "a kinase").
_TARGET_CLASSES = """
MATCH (d:Drug)-[:TARGETS]->(:Gene)-[:ANNOTATED_WITH]->(:GOTerm {namespace: 'molecular_function'})
      -[:IS_A*0..8]->(c:GOTerm)
WHERE c.name =~ '[a-z]+ activity' AND size(d.name) <= 30
RETURN DISTINCT d.id AS drug, toLower(d.name) AS drug_name, c.id AS class,
       substring(c.name, 0, size(c.name) - 9) AS noun
ORDER BY drug, class
"""
#: The agent noun of a drug's action on a target under the class ("inhibitor" of INHIBITOR).
_TARGET_ACTIONS = """
UNWIND $pairs AS pair
MATCH (d:Drug {id: pair[0]})-[r:TARGETS]->(:Gene)-[:ANNOTATED_WITH]->(:GOTerm)
      -[:IS_A*0..8]->(:GOTerm {id: pair[1]})
WHERE r.action_type IN ['INHIBITOR', 'ANTAGONIST', 'AGONIST', 'BLOCKER']
RETURN DISTINCT pair[0] AS drug, pair[1] AS class, r.action_type AS action
"""
#: A word of that shape that is an adjective ("catalytic activity") names no product.
_ADJECTIVE = re.compile(r".*(ic|al|ous|ive|ory|ar)")


def test_a_drug_is_verified_against_a_class_of_targets(
    cross_source_agent: GraphAgent, cross_source_graph: tuple[GraphStore, object]
) -> None:
    """ "Does <drug> target a <class>?": no edge joins a drug to a GO function, so the claim is
    met by a path, the drug's target gene annotated with the class or a function under it; a
    class none of its targets has gives no verdict."""
    store, _ = cross_source_graph
    rows = [r for r in store.read(_TARGET_CLASSES) if not _ADJECTIVE.fullmatch(r["noun"])]
    held: dict[str, set[str]] = {}
    for row in rows:
        held.setdefault(row["drug"], set()).add(row["class"])
    nouns = {row["class"]: row["noun"] for row in rows}
    rng = random.Random(20261207)
    picked = rng.sample(rows, min(len(rows), 8))
    asked = [(row, row["class"], "yes") for row in picked]
    asked += [
        (row, other, "none")
        for row in picked
        for other in rng.sample(sorted(nouns.keys() - held[row["drug"]]), 1)
    ]
    # the class as the drug's kind ("a kinase inhibitor"), the action from its TARGETS edges
    actions = {
        (r["drug"], r["class"]): r["action"].lower()
        for r in store.read(_TARGET_ACTIONS, {"pairs": [[r["drug"], r["class"]] for r in picked]})
    }
    wrong = []
    for i, (row, term, expected) in enumerate(asked):
        noun = nouns[term]
        article = "an" if noun[0] in "aeiou" else "a"
        # a class it does not target is asked with what the drug does to the targets it has
        action = actions.get((row["drug"], term)) or actions.get((row["drug"], row["class"]))
        if i % 2 and action:
            question = f"Is {row['drug_name']} {article} {noun} {action}?"
        else:
            question = f"Does {row['drug_name']} target {article} {noun}?"
        answer = cross_source_agent.ask(question)
        linked = {c.id for m in answer.mentions for c in m.candidates}
        if term not in linked or (answer.verdict or "none") != expected:
            wrong.append((question, expected, answer.verdict, sorted(linked)))
        elif expected == "yes":  # cited: the drug's target edge and the gene's annotation
            cited = {e for claim in answer.claims for e in claim.edge_ids}
            assert len(cited) >= 2, answer.summary
    assert len(asked) >= 12, asked
    assert wrong == [], wrong


#: Diseases with exactly one mode of inheritance, autosomal dominant or recessive, each once.
_ONE_MODE = """
MATCH (d:Disease)-[r:HAS_MODE_OF_INHERITANCE]->(m:Phenotype)
WHERE coalesce(r.negated, false) = false AND size(d.name) <= 40 AND NOT d.name CONTAINS ','
WITH d, collect(DISTINCT m.name) AS modes WHERE size(modes) = 1
  AND modes[0] IN ['Autosomal dominant inheritance', 'Autosomal recessive inheritance']
RETURN d.id AS id, d.name AS name, modes[0] AS mode ORDER BY id LIMIT 300
"""


def test_a_value_of_the_relationship_named_in_the_claim_is_its_verdict(
    cross_source_agent: GraphAgent, cross_source_graph: tuple[GraphStore, object]
) -> None:
    # "Is X an autosomal recessive disease?": PrimeKG's MONDO class "autosomal recessive
    # disease" is linked, and its members share a mode of inheritance with nearly every disease;
    # the claim is the mode the words name, met by the disease's own mode edge or by nothing
    store, _ = cross_source_graph
    rows = store.read(_ONE_MODE)
    assert len(rows) >= 20
    for row in random.Random(7).sample(rows, 6):
        held = "recessive" if "recessive" in row["mode"] else "dominant"
        other = "dominant" if held == "recessive" else "recessive"
        for wording in ("Is {name} an autosomal {mode} disease?", "Is {name} inherited {mode}ly?"):
            answer = cross_source_agent.ask(wording.format(name=row["name"], mode=held))
            assert answer.verdict == "yes", answer.summary
            assert [n.name for n in answer.answers] == [row["mode"]], answer.summary
            # the other mode: no verdict, and what the graph holds is what is listed
            answer = cross_source_agent.ask(wording.format(name=row["name"], mode=other))
            assert answer.verdict is None, answer.summary
            assert row["mode"] in {n.name for n in answer.answers}, answer.summary
