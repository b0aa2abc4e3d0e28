"""The agent on the classes of questions people ask, on the real graph (full HPO, the offline
ChEMBL set, openFDA; GO's questions on the cross-source graph, which holds GO).

One test per class: common words beside names, relationships worded outside schema/, questions
about a node's own properties, yes/no claims, conjunctions, questions the graph cannot answer,
drug label text, GO aspects, and the names answers use. The questions are written here; every
expected value is read from the graph with independent Cypher, never from the agent's queries.
"""

from __future__ import annotations

import re

import pytest

from biokg.core.store import GraphStore
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.models import Answer, Claim, EvidenceEdge

SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"
PDE5A = "NCBIGene:8654"
FBN1 = "NCBIGene:2200"
AUTOSOMAL_DOMINANT = "HP:0000006"


def _ids(store: GraphStore, cypher: str, **params) -> set[str]:
    return {row["id"] for row in store.read(cypher, params)}


def _cited(answer: Answer) -> set[str]:
    return {i for claim in answer.claims for i in claim.node_ids}


def _marfan_phenotypes(store: GraphStore) -> set[str]:
    return _ids(
        store,
        "MATCH (:Disease {name: 'Marfan syndrome'})-[:HAS_PHENOTYPE]->(p) RETURN p.id AS id",
    )


def test_a_common_word_beside_a_name_is_not_the_subject(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    # "severe" is the HPO term HP:0012828; the question is about Marfan syndrome's symptoms
    answer = agent.ask("What are the symptoms of a severe case of Marfan syndrome?")
    found = {n.id for n in answer.answers}
    assert found and found <= _marfan_phenotypes(agent_graph)
    severe = next(m for m in answer.mentions if m.text == "severe")
    assert severe.weak


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # "caused by mutations in": lemmas of a schema/ phrase, grammar words set aside
        (
            "Which disorders are caused by mutations in FBN1?",
            "MATCH (:Gene {symbol: 'FBN1'})-[:ASSOCIATED_WITH]->(d) RETURN d.id AS id",
        ),
        # no schema/ phrase at all: the paraphrase matcher reads HAS_PHENOTYPE
        (
            "What problems do patients with Marfan syndrome have?",
            "MATCH (:Disease {name: 'Marfan syndrome'})-[:HAS_PHENOTYPE]->(p) RETURN p.id AS id",
        ),
        # the relationship implied by the kind asked for: drugs of a gene are TARGETS
        (
            "Which medicines block PDE5A?",
            "MATCH (d:Drug)-[:TARGETS]->(:Gene {symbol: 'PDE5A'}) RETURN d.id AS id",
        ),
    ],
    ids=["lemmas", "paraphrase", "block"],
)
def test_relationships_worded_outside_schema_are_understood(
    agent: GraphAgent, agent_graph: GraphStore, question: str, expected: str
) -> None:
    answer = agent.ask(question)
    gold = _ids(agent_graph, expected)
    found = {n.id for n in answer.answers}
    assert gold and found and found <= gold


def test_attribute_questions_are_answered_from_the_node(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    [node] = agent_graph.read(
        "MATCH (n:Drug {id: $id}) RETURN n.xrefs AS xrefs, n.sources AS sources", {"id": SILDENAFIL}
    )
    chembl = [x for x in [SILDENAFIL, *node["xrefs"]] if x.startswith("CHEMBL.COMPOUND:")]
    answer = agent.ask("What is the ChEMBL ID of Viagra?")
    [claim] = answer.claims
    assert claim.node_ids == [SILDENAFIL]
    assert [x for x in claim.text.split("identifiers: ", 1)[1].split("; ")] == chembl
    assert {s.source for s in claim.sources} == set(node["sources"])
    assert all(s.node_id == SILDENAFIL and s.source_version for s in claim.sources)

    [claim] = agent.ask("What is the active ingredient of Viagra?").claims
    assert claim.node_ids == [SILDENAFIL] and "sildenafil" in claim.text.lower()


def test_a_property_the_node_lacks_is_not_found(agent: GraphAgent, agent_graph: GraphStore) -> None:
    [row] = agent_graph.read("MATCH (n:Drug {name: 'APIXABAN'}) RETURN n.brand_names AS brands")
    assert not row["brands"]  # precondition: no source gives apixaban a brand name
    answer = agent.ask("What is the brand name of apixaban?")
    assert answer.status == "not_found" and answer.claims == []
    assert "brand names" in answer.summary


def test_yes_no_claims_get_a_verdict_and_cite_the_edge(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    held = agent_graph.read(
        "MATCH (:Disease {name: 'Marfan syndrome'})-[r:HAS_MODE_OF_INHERITANCE]->"
        "(:Phenotype {id: $ad}) RETURN r.id AS id",
        {"ad": AUTOSOMAL_DOMINANT},
    )
    answer = agent.ask("Is Marfan syndrome an autosomal dominant disease?")
    assert answer.verdict == "yes"
    assert {r["id"] for r in held} & {e for c in answer.claims for e in c.edge_ids}

    # the statement is negated and the graph holds the association: its verdict is "no"
    answer = agent.ask("Marfan syndrome is not associated with FBN1")
    assert answer.verdict == "no" and FBN1 in _cited(answer)


def test_a_claim_the_graph_does_not_hold_reports_what_it_does(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    recessive = agent_graph.read(
        "MATCH (:Disease {name: 'Marfan syndrome'})-[r:HAS_MODE_OF_INHERITANCE]->"
        "(:Phenotype {id: 'HP:0000007'}) RETURN r.id AS id"
    )
    assert not recessive  # precondition
    answer = agent.ask("Is Marfan syndrome an autosomal recessive disease?")
    assert answer.verdict is None
    assert AUTOSOMAL_DOMINANT in {n.id for n in answer.answers}


def test_a_claim_that_holds_shows_the_other_values_of_its_relationship(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    # a disease recorded as both recessive and dominant: "is it recessive?" is yes, and the
    # reader sees the dominant record too, after the claim's own edge
    [row] = agent_graph.read(
        "MATCH (d:Disease)-[:HAS_MODE_OF_INHERITANCE]->(:Phenotype {id: 'HP:0000007'}) "
        "MATCH (d)-[:HAS_MODE_OF_INHERITANCE]->(:Phenotype {id: $ad}) "
        "WHERE size(d.name) < 40 AND NOT d.name CONTAINS ',' "
        "MATCH (same:Disease) WHERE toLower(same.name) = toLower(d.name) "
        "WITH d, count(same) AS namesakes WHERE namesakes = 1 "
        "RETURN d.id AS id, d.name AS name ORDER BY d.id LIMIT 1",
        {"ad": AUTOSOMAL_DOMINANT},
    )
    answer = agent.ask(f"Is {row['name']} an autosomal recessive disease?")
    assert answer.verdict == "yes"
    assert [n.id for n in answer.answers][:2] == ["HP:0000007", AUTOSOMAL_DOMINANT]
    assert "further values" in answer.summary


def test_a_conjunction_ranks_what_meets_every_constraint_first(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    genes = [
        _ids(
            agent_graph,
            "MATCH (p:Phenotype)-[:IS_A*0..6]->(:Phenotype {name: $name}) "
            "MATCH (g:Gene)-[:HAS_PHENOTYPE]->(p) RETURN DISTINCT g.id AS id",
            name=name,
        )
        for name in ("Arachnodactyly", "Ectopia lentis")
    ]
    both = genes[0] & genes[1]
    answer = agent.ask("Which genes have both arachnodactyly and ectopia lentis?")
    assert both and answer.answers[0].id in both
    top = answer.claims[0]
    assert len(top.edge_ids) == 2  # one edge per constraint met


@pytest.mark.parametrize(
    "question",
    [
        "What is the market share of Viagra?",
        "What is the GWAS p-value for the association between FBN1 and Marfan syndrome?",
        "When was Viagra approved by the FDA?",
        "Which protein is targeted by Zorbaxumab?",
        # full text finds names sharing only the cue noun ("Celiac disease"): no mention
        "Which genes cause Zorbax disease?",
        # "Barrett syndrome" (Barrett esophagus) is inside the name, not the name (the real
        # Eagle-Barrett syndrome is found by MONDO's name for prune belly syndrome)
        "Which genes cause Falcon-Barrett syndrome?",
        # an eponym the graph lacks, near other "... syndrome" names only by meaning
        "Which genes cause Quimby-Zorblatt syndrome?",
        "MATCH (n) DETACH DELETE n",
    ],
    ids=[
        "market-share",
        "gwas",
        "approval-date",
        "unknown-drug",
        "unknown-disease",
        "inside-an-eponym",
        "unknown-eponym",
        "cypher",
    ],
)
def test_what_the_graph_does_not_hold_is_not_found_and_cites_nothing(
    agent: GraphAgent, agent_graph: GraphStore, question: str
) -> None:
    before = agent_graph.read("MATCH (n) RETURN count(n) AS n")[0]["n"]
    answer = agent.ask(question)
    assert answer.status == "not_found" and answer.claims == [] and answer.answers == []
    assert agent_graph.read("MATCH (n) RETURN count(n) AS n")[0]["n"] == before


def test_a_disease_is_named_without_its_title_qualifiers(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    # OMIM's title is "Spinal and bulbar muscular atrophy, X-linked 1"; HPO also holds the
    # phenotype "Spinal muscular atrophy", spelt closer to the question's words
    genes = _ids(
        agent_graph,
        "MATCH (g:Gene)-[:ASSOCIATED_WITH]->(d:Disease) "
        "WHERE d.name STARTS WITH 'Spinal and bulbar muscular atrophy,' RETURN g.id AS id",
    )
    answer = agent.ask("Which gene is mutated in spinal-bulbar muscular atrophy?")
    found = {n.id for n in answer.answers}
    assert genes and found and found <= genes


def test_control_characters_are_cleaned_not_fatal(agent: GraphAgent) -> None:
    answer = agent.ask("\x00What does\x07 Viagra target?\x1b")
    assert PDE5A in {n.id for n in answer.answers}


def test_label_text_is_quoted_from_the_asked_section(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    sections = {
        row["id"]: row["text"]
        for row in agent_graph.read(
            "MATCH (:Drug {id: $drug})-[:HAS_LABEL]->(:Label)-[:HAS_LABEL_SECTION]->"
            "(s:LabelSection {section: 'contraindications'}) RETURN s.id AS id, s.text AS text",
            {"drug": SILDENAFIL},
        )
    }
    assert any("nitrate" in text.lower() for text in sections.values())  # precondition
    answer = agent.ask("Is sildenafil contraindicated with nitrates?")
    quoted = [c for c in answer.claims if set(c.node_ids) & set(sections)]
    assert quoted
    claim = quoted[0]
    [section] = set(claim.node_ids) & set(sections)
    passage = claim.text.split("“", 1)[1].rstrip("”").rstrip("…")
    assert "nitrate" in passage.lower() and passage in " ".join(sections[section].split())
    assert {s.source for s in claim.sources} == {"infores:openfda"}


def test_side_effects_come_from_the_label_when_no_report_names_them(agent: GraphAgent) -> None:
    answer = agent.ask("What are the side effects of Humira?")
    assert answer.status == "answered"
    assert all("adverse_reactions" in c.text for c in answer.claims)


def test_answers_name_genes_by_symbol_and_drugs_by_ingredient_with_brand(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    [gene] = agent_graph.read(
        "MATCH (g:Gene {id: $id}) RETURN g.symbol AS symbol, g.name AS name", {"id": PDE5A}
    )
    [claim] = [c for c in agent.ask("What does Viagra target?").claims if PDE5A in c.node_ids]
    brands = re.match(r"sildenafil \((.+?); CHEMBL", claim.text)  # ingredient, brands beside
    assert brands and "viagra" in brands[1].lower()
    name = gene["name"]  # the full name comes with GO's gene records; the symbol otherwise
    named = f"PDE5A ({name}, {PDE5A})" if name not in (None, "PDE5A") else f"PDE5A ({PDE5A})"
    assert named in claim.text


# -- GO aspects: the full GO term set with the annotations of a slice of genes, on the
# cross-source graph (conftest: GO_GENE_SLICE) ----------------------------------------------
@pytest.mark.parametrize(
    ("question", "symbol", "namespace"),
    [
        ("Where is the ABCA1 protein localized?", "ABCA1", "cellular_component"),
        ("What is the function of ABL1?", "ABL1", "molecular_function"),
    ],
)
def test_go_questions_answer_the_asked_aspect(
    cross_source_agent: GraphAgent, question: str, symbol: str, namespace: str
) -> None:
    agent, go_graph = cross_source_agent, cross_source_agent.store
    direct = _go_annotations(go_graph, symbol, namespace)
    found = {n.id for n in agent.ask(question).answers}
    assert direct and found and found <= direct


def _go_annotations(graph: GraphStore, symbol: str, namespace: str | None = None) -> set[str]:
    """The GO terms the gene is annotated with (of one aspect when given), NOT lines left out."""
    return _ids(
        graph,
        "MATCH (:Gene {symbol: $symbol})-[r:ANNOTATED_WITH]->(t:GOTerm) "
        "WHERE coalesce(r.negated, false) = false AND ($ns IS NULL OR t.namespace = $ns) "
        "RETURN t.id AS id",
        symbol=symbol,
        ns=namespace,
    )


def test_what_a_gene_does_is_answered_with_its_go_annotations(
    cross_source_agent: GraphAgent,
) -> None:
    # "What does X do?" names no relationship: read from grammar words alone, its paraphrase
    # is a guess, and what the gene touches answers when the guess finds nothing
    agent, go_graph = cross_source_agent, cross_source_agent.store
    annotated = _go_annotations(go_graph, "ABL1")
    answer = agent.ask("What does ABL1 do?")
    found = {n.id for n in answer.answers}
    assert annotated and found and found <= annotated
    cited_terms = {i for i in _cited(answer) if i.startswith("GO:")}
    assert cited_terms and cited_terms <= annotated
    # a noun that says what the subject is asks nothing: neither a relationship of its own
    # (the gene's diseases) nor answers that share its word ("protein binding")
    for apposed in ("What does the gene ABL1 do?", "What does the ABL1 protein do?"):
        assert {n.id for n in agent.ask(apposed).answers} == found, apposed


def _answered_by_its_annotations(
    agent: GraphAgent, symbol: str, question: str
) -> tuple[list[str], dict[str, str]]:
    """The question's mentions and its answers' names by id, the answers checked to be GO
    terms the gene is annotated with."""
    answer = agent.ask(question)
    names = {n.id: n.name.lower() for n in answer.answers}
    assert names and set(names) <= _go_annotations(agent.store, symbol), answer.summary
    mentions = [m.text for m in answer.mentions]
    assert mentions[0] == symbol
    return mentions, names


def test_a_claim_in_a_genes_own_words_is_checked_against_what_it_touches(
    cross_source_agent: GraphAgent,
) -> None:
    # "Is X a <description> protein?": the asked label is X's own, so no relationship is asked;
    # when the paraphrase's guesses find nothing, X's neighbours that share the claim's words
    # answer, and a description no neighbour shares is not in the graph
    agent = cross_source_agent
    _, names = _answered_by_its_annotations(agent, "ABL1", "Is ABL1 a tyrosine kinase protein?")
    assert all("tyrosine" in name or "kinase" in name for name in names.values())
    assert agent.ask("Is ABL1 a velvet orchestra protein?").status == "not_found"


def test_the_kind_a_question_asks_for_names_the_answers_among_what_the_gene_touches(
    cross_source_agent: GraphAgent,
) -> None:
    # "X <does a process> with what <kind>?": the kind is no name (no gene alias, no unknown
    # entity) and the process names no intersection with a third label; the gene's own
    # neighbours named by the kind answer, and a kind none of them has is not in the graph
    agent = cross_source_agent
    question = "APEX1 repairs DNA with what endonuclease?"
    mentions, names = _answered_by_its_annotations(agent, "APEX1", question)
    assert not [m for m in mentions if "endonuclease" in m]
    assert "GO:0004519" in names  # endonuclease activity
    assert all("endonucle" in name for name in names.values())
    assert agent.ask("APEX1 repairs DNA with what velvet?").status == "not_found"


def test_a_claim_about_an_ambiguous_name_gets_no_single_verdict(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    # "Hutchinson-Gilford progeria" names three records (OMIM's, Orphanet's, PrimeKG's MONDO
    # node); the graph gives them different modes of inheritance
    answer = agent.ask("Is Hutchinson-Gilford progeria caused by an autosomal recessive gene?")
    [mention] = [m for m in answer.mentions if m.text == "Hutchinson-Gilford progeria"]
    candidates = [c.id for c in mention.candidates]
    recessive = _ids(
        agent_graph,
        "MATCH (d:Disease)-[:HAS_MODE_OF_INHERITANCE]->(:Phenotype {id: 'HP:0000007'}) "
        "WHERE d.id IN $ids RETURN d.id AS id",
        ids=candidates,
    )
    assert len(candidates) > 1 and recessive and set(candidates) - recessive  # precondition
    # a candidate that is the same disease as a recessive one under another source's id
    # (ORPHA:740 and OMIM:176670 are both Hutchinson-Gilford progeria, per MONDO) is covered
    twins = _ids(
        agent_graph,
        "MATCH (a:Disease)-[:SAME_AS*1..2]-(b:Disease) WHERE a.id IN $ids AND b.id IN $met "
        "RETURN DISTINCT a.id AS id",
        ids=[c for c in candidates if c not in recessive],
        met=sorted(recessive),
    )
    uncovered = set(candidates) - recessive - twins
    if uncovered:
        assert answer.verdict is None
        assert f"the claim holds for {len(recessive)} of the {len(candidates)}" in answer.summary
    else:
        assert answer.verdict == "yes"
    assert recessive <= _cited(answer)


def test_drugs_that_act_on_a_kind_of_gene_product_go_through_the_genes_that_have_it(
    cross_source_agent: GraphAgent,
) -> None:
    # "beta1-adrenergic receptors" is the product form of a GO function (GO names it "…
    # receptor activity"); no type joins drugs to GO terms, so the drugs are those that target
    # the genes annotated with the function, each answer citing both edges
    agent = cross_source_agent
    expected = _ids(
        agent.store,
        "MATCH (d:Drug)-[:TARGETS]->(:Gene)-[a:ANNOTATED_WITH]->(:GOTerm {id: $go}) "
        "WHERE coalesce(a.negated, false) = false RETURN d.id AS id",
        go="GO:0004940",
    )
    answer = agent.ask("Which drugs bind to beta1-adrenergic receptors?")
    assert [c.id for m in answer.mentions for c in m.candidates] == ["GO:0004940"]
    found = {n.id for n in answer.answers}
    assert expected and found == expected
    cited = {e.type for claim in answer.claims for e in _claim_edges(answer, claim)}
    assert cited == {"ANNOTATED_WITH", "TARGETS"}


def _claim_edges(answer: Answer, claim: Claim) -> list[EvidenceEdge]:
    """The evidence edges a claim cites."""
    edges = {e.id: e for e in answer.evidence.edges}
    return [edges[i] for i in claim.edge_ids]


def test_a_drug_whose_labels_hold_no_asked_section_is_told_so_not_answered_with_them(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    # a drug with openFDA labels whose sections were not loaded, and no side-effect record
    [drug] = agent_graph.read(
        "MATCH (d:Drug)-[:HAS_LABEL]->(:Label) "
        "WHERE NOT (d)-[:HAS_LABEL]->(:Label)-[:HAS_LABEL_SECTION]->() "
        "AND NOT (d)-[:HAS_SIDE_EFFECT|REPORTED_ADVERSE_EVENT]->() "
        "AND size(d.name) > 6 AND NOT d.name CONTAINS ' ' "
        "RETURN d.id AS id, d.name AS name ORDER BY d.id LIMIT 1"
    )
    answer = agent.ask(f"What are the side effects of {drug['name']}?")
    assert drug["id"] in {c.id for m in answer.mentions for c in m.candidates}
    # the labels are there, their sections are not: said as such, not "no label text"
    assert "holds no adverse reactions section of this drug's labels" in answer.summary, (
        drug,
        answer.summary,
    )
    assert not any("adverse_reactions" in c.text for c in answer.claims)
    # nor is it answered through its label document's namesake: no side effect is held
    assert answer.status == "not_found" and not answer.claims, answer.summary
    assert "the graph holds for" in answer.summary and "has label" in answer.summary
