"""``biokg ask`` for a patient described in words, on the session graph (full offline HPO,
bridged by MONDO) with the session agent: phrases linked to HPO terms, an excluded one among
them, the diagnosis ranker's answer citing the terms, annotation edges and source records.

Arachnodactyly HP:0001166, Ectopia lentis HP:0001083, Seizure HP:0001250; Marfan syndrome
OMIM:154700 (= ORPHA:558 through MONDO:0007947).
"""

from __future__ import annotations

from biokg.core.store import GraphStore
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.models import Answer

QUESTION = (
    "A tall teenager with arachnodactyly, ectopia lentis and a dilated aortic root, "
    "but no seizures: which diseases fit?"
)


def test_a_described_patient_is_ranked_with_cited_annotations(
    agent: GraphAgent, agent_graph: GraphStore
) -> None:
    events = list(agent.stream(QUESTION))
    assert [e.kind for e in events][:2] == ["linking", "plan"]
    assert events[1].data.request == "diagnosis"
    answer = events[-1].data
    assert isinstance(answer, Answer)
    assert answer.planner == "diagnosis" and answer.status == "answered"
    linked = {m.text: m.candidates[0].id for m in answer.mentions if m.candidates}
    assert linked["arachnodactyly"] == "HP:0001166" and linked["seizures"] == "HP:0001250"
    assert linked["ectopia lentis"] == "HP:0001083"
    assert events[1].data.seeds[-1] == ["HP:0001250"]  # the excluded term, last
    # Marfan among the first three answers, its claim citing the patient's terms
    assert "OMIM:154700" in [n.id for n in answer.answers[:3]]
    [marfan] = [c for c in answer.claims if c.node_ids[0] == "OMIM:154700"]
    assert {"HP:0001166", "HP:0001083"} <= set(marfan.node_ids)
    assert "Arachnodactyly (HP:0001166)" in marfan.text and "ORPHA:558" in marfan.text
    # every cited edge was read back from the graph: in the evidence, with its source record
    edges = {e.id: e for e in answer.evidence.edges}
    for claim in answer.claims:
        assert claim.edge_ids and set(claim.edge_ids) <= set(edges)
        assert {n.id for n in answer.evidence.nodes} >= set(claim.node_ids)
        for source in claim.sources:
            assert source.source_record == edges[source.edge_id].source_record
            assert (
                source.source == "infores:hpo-annotations"
                or edges[source.edge_id].type == "SAME_AS"
            )
    phenotype_edges = [edges[e] for e in marfan.edge_ids if edges[e].type == "HAS_PHENOTYPE"]
    assert {e.subject for e in phenotype_edges} <= {"OMIM:154700", "ORPHA:558"}
    assert any(q.step == "diagnosis:edges" and q.rows for q in answer.queries)


def test_an_excluded_feature_the_disease_has_is_cited_against_it(agent: GraphAgent) -> None:
    # Marfan syndrome's annotations include Scoliosis (HP:0002650)
    answer = agent.ask(
        "Patient with arachnodactyly and ectopia lentis but no scoliosis: what fits?"
    )
    [marfan] = [c for c in answer.claims if c.node_ids[0] == "OMIM:154700"]
    assert "against it: Scoliosis (HP:0002650) excluded" in marfan.text
    assert "HP:0002650" in marfan.node_ids
