"""``POST /diagnose`` on the real app over the session graph (full offline HPO, bridged by
MONDO): the ranking, its cited edges, and the gate's and validation's answers.

HP:0001166 Arachnodactyly, HP:0001083 Ectopia lentis, HP:0002616 Aortic root aneurysm: Marfan
syndrome (OMIM:154700, one disease with ORPHA:558 through the bridge). HP:0001250 Seizure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from biokg.core.store import GraphStore
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.diagnosis.load import phenotype_index

MARFAN_FEATURES = ["HP:0001166", "HP:0001083", "HP:0002616"]


@pytest.fixture(scope="module", autouse=True)
def warm_index(agent: GraphAgent) -> None:
    """The index built before the requests: its one-off build reads every annotation, which
    on a loaded machine takes longer than a request deadline (the route allows for it, but
    these tests are about the route)."""
    phenotype_index(agent.store, agent.cache_dir)


def test_diagnose_ranks_marfan_once_citing_edges_that_exist(
    client: TestClient, auth: dict[str, str], agent_graph: GraphStore
) -> None:
    body = {"observed": MARFAN_FEATURES, "excluded": ["HP:0001250"], "top": 5}
    response = client.post("/diagnose", json=body, headers=auth)
    assert response.status_code == 200, response.text
    found = response.json()
    assert found["method"] == "likelihood-ratio" and len(found["ranking"]) == 5
    assert found["excluded"] == ["HP:0001250"] and found["unknown"] == []
    [marfan] = [e for e in found["ranking"] if "OMIM:154700" in e["ids"]]
    assert "ORPHA:558" in marfan["ids"] and marfan["rank"] <= 3
    cited = [e for e in marfan["evidence"] if e["edge"]]
    assert {e["term"] for e in cited} >= set(MARFAN_FEATURES)
    # every cited edge is a HAS_PHENOTYPE edge of the record it names, with that source record
    rows = agent_graph.read(
        "MATCH (d:Disease)-[r:HAS_PHENOTYPE]->(p:Phenotype) WHERE r.id IN $ids "
        "RETURN r.id AS id, d.id AS disease, p.id AS term, r.source_record AS record",
        {"ids": [e["edge"] for e in cited]},
    )
    graph = {row["id"]: row for row in rows}
    for evidence in cited:
        edge = graph[evidence["edge"]]
        assert (edge["disease"], edge["term"], edge["record"]) == (
            evidence["disease"],
            evidence["disease_term"],
            evidence["source_record"],
        )


def test_a_term_that_is_not_an_hpo_id_is_422_naming_the_field(
    client: TestClient, auth: dict[str, str]
) -> None:
    body = {"observed": ["HP:0001166", "seizures"]}
    response = client.post("/diagnose", json=body, headers=auth)
    assert response.status_code == 422
    assert response.json()["fields"] == ["observed.1"]


def test_diagnose_needs_the_key_and_at_least_one_observed_term(
    client: TestClient, auth: dict[str, str]
) -> None:
    assert client.post("/diagnose", json={"observed": MARFAN_FEATURES}).status_code == 401
    response = client.post("/diagnose", json={"observed": []}, headers=auth)
    assert response.status_code == 422 and response.json()["fields"] == ["observed"]


#: A real GA4GH v2 phenopacket from phenopacket-store (read in place).
PACKET = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "data"
    / "phenopackets"
    / "PMID_15148656_female_patient.json"
)


def test_a_phenopacket_ranks_as_its_terms_do(client: TestClient, auth: dict[str, str]) -> None:
    packet = json.loads(PACKET.read_text())
    features = packet["phenotypicFeatures"]
    terms = {
        "observed": [f["type"]["id"] for f in features if not f.get("excluded")],
        "excluded": [f["type"]["id"] for f in features if f.get("excluded")],
        "top": 5,
    }
    by_packet = client.post("/diagnose/phenopacket?top=5", json=packet, headers=auth)
    by_terms = client.post("/diagnose", json=terms, headers=auth)
    assert by_packet.status_code == 200 and by_terms.status_code == 200, by_packet.text
    assert by_packet.json() == by_terms.json() and terms["excluded"]
    withheld = client.post(
        "/diagnose/phenopacket",
        params={"top": 5, "withhold_references": "PMID:15148656"},
        json=packet,
        headers=auth,
    )
    assert withheld.status_code == 200 and withheld.json()["withheld"] == ["PMID:15148656"]


def test_a_body_that_is_not_a_phenopacket_is_422(client: TestClient, auth: dict[str, str]) -> None:
    body = {"id": "x", "phenotypicFeatures": [{"type": "HP:0001166"}]}
    response = client.post("/diagnose/phenopacket", json=body, headers=auth)
    assert response.status_code == 422
    assert "not a GA4GH v2 phenopacket" in response.text


def test_a_withheld_publication_is_left_out_of_that_request_only(
    client: TestClient, auth: dict[str, str]
) -> None:
    # PMID:33436942 (a Marfan cohort) is cited by 32 of Marfan's phenotype lines
    body = {"observed": MARFAN_FEATURES, "top": 3, "withhold_references": ["PMID:33436942"]}
    withheld = client.post("/diagnose", json=body, headers=auth).json()
    plain = client.post("/diagnose", json={"observed": MARFAN_FEATURES, "top": 3}, headers=auth)
    assert withheld["withheld_lines"] == 32 and plain.json()["withheld_lines"] == 0
    [before] = [e for e in plain.json()["ranking"] if "OMIM:154700" in e["ids"]]
    [after] = [e for e in withheld["ranking"] if "OMIM:154700" in e["ids"]]
    # its 53-patient cohort no longer counts in the prior
    assert after["prior"] < before["prior"]
    bad = {"observed": MARFAN_FEATURES, "withhold_references": ["not a reference"]}
    response = client.post("/diagnose", json=bad, headers=auth)
    assert response.status_code == 422 and response.json()["fields"] == ["withhold_references.0"]
