"""Sources meet where it matters, on the real offline data: one gene node carries edges from HPO,
GO, ChEMBL and PrimeKG; a phenotype reaches the drugs indicated for its diseases through MONDO's
mappings, each hop with its own provenance; the agent answers across the bridge and cites it."""

from __future__ import annotations

import json

import polars as pl
import pytest

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.graph_agent.agent import GraphAgent
from biokg.ingest.bridge import (
    bridge_records,
    graph_diseases,
    mapping_files,
    mappings_dir,
    mondo_release,
    read_mappings,
    read_term_names,
    terms_file,
)
from biokg.ingest.records import Release
from biokg.summary import merge_summary

FOUR = ("infores:hpo-annotations", "infores:go", "infores:chembl", "infores:primekg")


@pytest.fixture(scope="module")
def own_settings(cross_source_graph: tuple[GraphStore, Settings]) -> Settings:
    return cross_source_graph[1]


@pytest.fixture(scope="module")
def bridged(cross_source_graph: tuple[GraphStore, Settings]) -> GraphStore:
    """Every source, bridged (see conftest)."""
    return cross_source_graph[0]


def test_a_gene_from_four_sources_is_one_node_with_each_sources_edges(bridged: GraphStore) -> None:
    rows = bridged.read(
        "MATCH (g:Gene)-[r]-() WITH g, collect(DISTINCT r.source) AS sources "
        "WHERE all(s IN $four WHERE s IN sources) RETURN g.id AS id ORDER BY id LIMIT 5",
        {"four": list(FOUR)},
    )
    assert rows, "no gene carries edges from HPO, GO, ChEMBL and PrimeKG"
    gene = rows[0]["id"]
    [node] = bridged.read("MATCH (g:Gene {id: $id}) RETURN g.sources AS sources", {"id": gene})
    assert set(FOUR) <= set(node["sources"])  # a later source adds its mark, never replaces
    edges = bridged.read(
        "MATCH (g:Gene {id: $id})-[r]-() RETURN r.source AS source, r.source_record AS record",
        {"id": gene},
    )
    assert {e["source"] for e in edges} >= set(FOUR)
    assert all(e["record"] for e in edges)


def test_a_phenotype_reaches_indicated_drugs_through_the_disease_bridge(
    bridged: GraphStore,
) -> None:
    rows = bridged.read(
        "MATCH (p:Phenotype)<-[h:HAS_PHENOTYPE]-(d:Disease)-[b:SAME_AS]-(m:Disease)"
        "<-[i:INDICATED_FOR]-(x:Drug) "
        "WHERE h.source = 'infores:hpo-annotations' AND i.source <> h.source "
        "AND b.source = 'infores:mondo' "  # KEGG's diseases bring SAME_AS edges of their own
        "RETURN p.id AS phenotype, d.id AS disease, m.id AS bridged, x.id AS drug, "
        "properties(h) AS h, properties(b) AS b, properties(i) AS i LIMIT 20"
    )
    assert rows, "no phenotype → HPO disease → SAME_AS → indicated drug path"
    for row in rows:
        assert row["disease"].split(":")[0] in ("OMIM", "ORPHA")
        for hop in (row["h"], row["b"], row["i"]):
            assert hop["source"] and hop["source_version"] and hop["source_record"]
        assert row["b"]["justification"].startswith("semapv:")
        assert row["b"]["source_record"].split(":")[0].endswith(".sssom.tsv")
    # every SAME_AS edge of the graph is MONDO's or KEGG's (its diseases' dblinks), cited
    same_as = bridged.read(
        "MATCH (:Disease)-[b:SAME_AS]->(:Disease) RETURN b.source AS source, "
        "count(*) AS n, sum(CASE WHEN b.source_version IS NULL OR b.source_record IS NULL "
        "THEN 1 ELSE 0 END) AS uncited"
    )
    assert {r["source"] for r in same_as} == {"infores:mondo", "infores:kegg"}
    assert all(r["uncited"] == 0 for r in same_as)


def test_drugbank_drugs_merge_onto_chembl_drugs(bridged: GraphStore) -> None:
    rows = bridged.read(
        "MATCH (d:Drug) WHERE d.id STARTS WITH 'CHEMBL.COMPOUND:' "
        "AND any(x IN d.xrefs WHERE x STARTS WITH 'DRUGBANK:') "
        "RETURN d.id AS id, d.sources AS sources LIMIT 5"
    )
    assert rows and all("infores:primekg" in r["sources"] for r in rows)


def test_bridge_is_one_to_one_and_reports_conflicts(
    bridged: GraphStore, own_settings: Settings
) -> None:
    diseases = graph_diseases(bridged)
    files = mapping_files(own_settings.cache_dir, data_dir=mappings_dir(own_settings, offline=True))
    mappings, version = read_mappings(files), mondo_release(files)
    release = Release("infores:mondo", version, "cc0", {})
    records, report = bridge_records(diseases, mappings, read_term_names(terms_file()), release)
    plain = records.edges["SAME_AS"].filter(~pl.col("grouped"))
    ends = pl.concat(
        [plain.select(pl.col(end).alias("id"), "mondo") for end in ("subject", "object")]
    ).unique()
    # no graph id is joined through two MONDO terms, no MONDO term joins two ids of one prefix
    assert ends.height > 4_000 and ends["id"].is_unique().all()
    prefix = ends["id"].str.split(":").list.first()
    assert not ends.select("mondo", prefix.alias("p")).is_duplicated().any()
    assert records.edges["SAME_AS"]["grouped"].any()  # PrimeKG's groups reach their members
    # imperforate anus: MONDO maps it to two OMIM entries; when both are diseases, not bridged
    assert report.conflicts["mondo term mapped to two ids of one prefix"] > 0
    assert version == "2026-08-04"
    stored = bridged.read(
        "MATCH (v:SourceVersion {source: 'infores:mondo', current: true}) RETURN v.identity AS r"
    )
    assert stored and "conflicts" in stored[0]["r"]


def test_a_record_carries_its_mondo_terms_names_beside_its_own(bridged: GraphStore) -> None:
    # HPO titles OMIM:309900 "Mucopolysaccharidosis, type II"; MONDO's term for it (and for
    # its Orphanet twin) is also called Hunter syndrome. The name stays HPO's; MONDO's names
    # are its synonyms, kept as infores:mondo's facts about the record
    [row] = bridged.read(
        "MATCH (d:Disease {id: 'OMIM:309900'}) "
        "RETURN d.name AS name, d.synonyms AS synonyms, d.sources AS sources, "
        "d.source_facts AS facts"
    )
    facts = json.loads(row["facts"])
    assert row["name"] == "Mucopolysaccharidosis, type II"
    assert {"Hunter syndrome", "MPS II"} <= set(row["synonyms"])
    assert row["sources"] == ["infores:hpo-annotations", "infores:mondo"]
    assert "Hunter syndrome" in facts["infores:mondo"]["values"]["synonyms"]
    assert facts["infores:mondo"]["stub"] and "name" not in facts["infores:mondo"]["values"]
    # the record's own name is no synonym of it (MONDO's label "mucopolysaccharidosis type 2"
    # differs, and is one)
    assert all(s.lower() != row["name"].lower() for s in row["synonyms"])


def test_status_counts_the_records_given_mondo_names(bridged: GraphStore) -> None:
    named = 0
    for row in bridged.read("MATCH (d:Disease) RETURN d.source_facts AS facts"):
        facts = json.loads(row["facts"] or "{}")
        named += bool(facts.get("infores:mondo", {}).get("values", {}).get("synonyms"))
    assert named > 5_000
    assert merge_summary(bridged)["disease_bridge"]["named"] == named


def test_the_agent_finds_a_disease_by_its_mondo_name(cross_source_agent: GraphAgent) -> None:
    answer = cross_source_agent.ask("What are the symptoms of Hunter syndrome?")
    linked = {c.id for m in answer.mentions for c in m.candidates}
    assert linked & {"OMIM:309900", "ORPHA:580"}
    cited = {n for claim in answer.claims for n in claim.node_ids}
    assert any(n.startswith("HP:") for n in cited)


def test_agent_answers_across_the_bridge_citing_both_sources(
    cross_source_agent: GraphAgent,
) -> None:
    agent = cross_source_agent
    answer = agent.ask("Which drugs are indicated for diseases with the phenotype dementia?")
    cited = [s for claim in answer.claims for s in claim.sources if s.edge_id]
    sources = {s.source for s in cited}
    edge_types = {e.type for e in answer.evidence.edges if e.id in {s.edge_id for s in cited}}
    assert answer.claims and "SAME_AS" in edge_types
    assert "infores:mondo" in sources and len(sources - {"infores:mondo"}) >= 2
    assert any(n.startswith("CHEMBL.COMPOUND:") for c in answer.claims for n in c.node_ids)
