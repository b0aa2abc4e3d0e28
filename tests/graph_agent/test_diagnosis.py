"""The diagnosis ranker on the session graph (the full offline HPO release, bridged by MONDO),
read through the real driver: hierarchy matching, exclusions, twins, and cited edges that exist.

Terms: HP:0001250 Seizure, HP:0007359 Focal-onset seizure (its child), HP:0001166
Arachnodactyly, HP:0001083 Ectopia lentis, HP:0002616 Aortic root aneurysm. OMIM:154700 Marfan
syndrome and ORPHA:558 are one disease (MONDO:0007947), joined by the bridge.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from biokg import cypher
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.graph_agent.diagnosis.index import PhenotypeIndex
from biokg.graph_agent.diagnosis.load import phenotype_index
from biokg.graph_agent.diagnosis.ranker import DiagnosisRanker
from biokg.graph_agent.diagnosis.scoring import LikelihoodRatio, ResnikBMA

SEIZURE, FOCAL = "HP:0001250", "HP:0007359"
MARFAN_FEATURES = ["HP:0001166", "HP:0001083", "HP:0002616"]
MARFAN = "OMIM:154700"


@pytest.fixture(scope="module")
def index(agent_graph: GraphStore, settings: Settings) -> PhenotypeIndex:
    return phenotype_index(agent_graph, settings.cache_dir)


def test_a_child_term_meets_its_parents_annotation_with_the_parents_ic(
    index: PhenotypeIndex, agent_graph: GraphStore
) -> None:
    seizure, focal = index.term_index[SEIZURE], index.term_index[FOCAL]
    # a disease annotated with Seizure itself and with nothing at or below Focal-onset seizure
    disease = next(
        d
        for d, profile in enumerate(index.profiles)
        if any(n.term == seizure for n in profile) and index.F[d, focal] == 0
    )
    entry = DiagnosisRanker(index, ResnikBMA()).explain(index.diseases[disease], [FOCAL])
    (evidence,) = entry.evidence
    assert (evidence.ancestor, evidence.disease_term) == (SEIZURE, SEIZURE)
    # the ancestor's IC, counted here from the graph: diseases annotated at or below Seizure
    # (walked from Seizure itself: one scan with a list test per edge took 17-19 s)
    below = agent_graph.read(
        "MATCH (:Phenotype {id: $id})<-[:IS_A*0..20]-(:Phenotype)<-[r:HAS_PHENOTYPE]-(d:Disease) "
        "WHERE r.negated = false RETURN count(DISTINCT d) AS n",
        {"id": SEIZURE},
    )[0]["n"]
    annotated = agent_graph.read(
        "MATCH (d:Disease)-[r:HAS_PHENOTYPE]->(:Phenotype) WHERE r.negated = false "
        "RETURN count(DISTINCT d) AS n"
    )[0]["n"]
    assert evidence.contribution == pytest.approx(-math.log(below / annotated), abs=0.02)
    assert evidence.contribution > index.ic[index.term_index["HP:0000118"]]


def test_an_excluded_feature_lowers_a_disease_that_has_it(index: PhenotypeIndex) -> None:
    ranker = DiagnosisRanker(index, LikelihoodRatio())
    marfan = index.profiles[index.disease_index[MARFAN]]
    # Marfan's most frequent feature that is rare among diseases and not asked about
    feature = max(
        (n for n in marfan if index.background[n.term] < 0.05),
        key=lambda n: (n.frequency, -index.background[n.term]),
    )
    excluded = index.terms[feature.term]
    before = ranker.explain(MARFAN, MARFAN_FEATURES)
    after = ranker.explain(MARFAN, MARFAN_FEATURES, [excluded])
    assert after.score < before.score
    (against,) = [e for e in after.evidence if e.excluded]
    assert against.term == excluded and against.edge == feature.edge
    assert against.contribution == pytest.approx(after.score - before.score, abs=1e-3)


def test_bridged_twins_are_ranked_once(index: PhenotypeIndex) -> None:
    ranking = DiagnosisRanker(index).rank(MARFAN_FEATURES, top=20).ranking
    entries = [e for e in ranking if MARFAN in e.ids]
    assert len(entries) == 1 and entries[0].rank <= 3
    assert {"OMIM:154700", "ORPHA:558"} <= set(entries[0].ids)
    # one profile pooled from both records; the evidence cites edges of the entry's records
    pooled = index.profiles[index.disease_index[MARFAN]]
    assert {n.disease for n in pooled} == {"OMIM:154700", "ORPHA:558"}
    assert {ev.disease for ev in entries[0].evidence} <= set(entries[0].ids)
    ids = [i for e in ranking for i in e.ids]
    assert len(ids) == len(set(ids))


def test_every_cited_edge_is_in_the_graph(index: PhenotypeIndex, agent_graph: GraphStore) -> None:
    ranking = DiagnosisRanker(index).rank(MARFAN_FEATURES, [SEIZURE], top=10).ranking
    cited = {
        (ev.disease, ev.disease_term, ev.edge, ev.source, ev.source_record)
        for e in ranking
        for ev in e.evidence
        if ev.edge
    }
    assert len(cited) >= 20
    rows = agent_graph.read(
        "UNWIND $rows AS row "
        "MATCH (:Disease {id: row.d})-[r:HAS_PHENOTYPE]->(:Phenotype {id: row.t}) "
        "WHERE r.id = row.e "
        "RETURN row.d AS d, row.t AS t, r.id AS e, r.source AS src, r.source_record AS rec",
        {"rows": [{"d": d, "t": t, "e": e} for d, t, e, _, _ in cited]},
    )
    assert {(r["d"], r["t"], r["e"], r["src"], r["rec"]) for r in rows} == cited
    bridge = {(b["subject"], b["object"], b["edge"]) for e in ranking for b in e.bridge}
    found = agent_graph.read(
        "UNWIND $rows AS row MATCH (:Disease {id: row.s})-[r:SAME_AS]->(:Disease {id: row.o}) "
        "WHERE r.id = row.e RETURN r.id AS e",
        {"rows": [{"s": s, "o": o, "e": e} for s, o, e in bridge]},
    )
    assert bridge and {r["e"] for r in found} == {b[2] for b in bridge}


def test_the_sql_scan_reads_the_annotations_the_cypher_template_reads(
    index: PhenotypeIndex, agent_graph: GraphStore
) -> None:
    """The embedded engine's annotation rows come from its paged SQL scan (the ends joined by
    record id in Python): every one of the template's rows, no gene's, values as Cypher reads
    them (checked whole for 40 diseases, counted for the rest)."""
    assert agent_graph.http_api and index.folder is not None
    scanned = pl.read_parquet(index.folder / "diagnosis_annotations.parquet")
    template = cypher.load("diagnosis_annotations").split("RETURN")
    (total,) = agent_graph.read(f"{template[0]} RETURN count(r) AS n")
    assert scanned.height == total["n"] > 200_000
    sample = scanned["disease"].unique().sort().gather_every(300).to_list()
    assert len(sample) >= 40
    rows = agent_graph.read(
        f"{template[0]} WHERE d.id IN $ids RETURN{template[1]}", {"ids": sample}
    )
    read = pl.DataFrame(rows, schema=scanned.schema).sort("disease", "term", "edge")
    assert read.equals(scanned.filter(pl.col("disease").is_in(sample)))


def test_the_hierarchy_is_the_ontologys_own_is_a_edges(agent_graph: GraphStore) -> None:
    # another source's IS_A between two HPO terms (here the reverse of HPO's own Focal-onset
    # seizure is_a Seizure: a cycle) is no part of the ontology the ranker reads
    edge = {"child": SEIZURE, "parent": FOCAL, "id": "test-diagnosis-cycle"}
    agent_graph.write(
        "MATCH (c:Phenotype {id: $child}), (p:Phenotype {id: $parent}) "
        "CREATE (c)-[:IS_A {id: $id, source: 'infores:primekg'}]->(p)",
        edge,
    )
    try:
        rows = agent_graph.read(
            cypher.load("diagnosis_hierarchy"), {"source": "infores:hpo-annotations"}
        )
        pairs = {(r["child"], r["parent"]) for r in rows}
        assert (FOCAL, SEIZURE) in pairs  # HPO's own edge
        assert (SEIZURE, FOCAL) not in pairs
    finally:
        agent_graph.write("MATCH ()-[r:IS_A {id: $id}]->() DELETE r", edge)


def test_an_entry_lists_its_genes_each_an_edge_of_the_graph(
    index: PhenotypeIndex, agent_graph: GraphStore
) -> None:
    ranking = DiagnosisRanker(index).rank(MARFAN_FEATURES, top=5).ranking
    [marfan] = [e for e in ranking if MARFAN in e.ids]
    # Marfan syndrome is FBN1's (NCBIGene:2200), in genes_to_phenotype.txt
    assert "FBN1" in {g["symbol"] for g in marfan.genes}
    genes = [g for e in ranking for g in e.genes]
    rows = agent_graph.read(
        "UNWIND $rows AS row "
        "MATCH (g:Gene {id: row.g})-[r:ASSOCIATED_WITH]->(d:Disease {id: row.d}) "
        "WHERE r.id = row.e RETURN r.id AS e, d.id AS d",
        {"rows": [{"g": g["gene"], "d": g["disease"], "e": g["edge"]} for g in genes]},
    )
    assert {r["e"] for r in rows} == {g["edge"] for g in genes}
    assert {g["disease"] for g in marfan.genes} <= set(marfan.ids)
