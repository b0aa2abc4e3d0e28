"""The graph store on the real embedded engine: schema application, reads, writes, errors."""

from __future__ import annotations

import dataclasses
import time

import pytest

from biokg import cypher
from biokg.core.settings import Settings
from biokg.core.store import GraphStore, constraint_statements, neo4j_cypher_files
from biokg.errors import ConfigError, QueryTimeoutError, StoreError
from biokg.schema import load_schema


def test_schema_applies_twice_and_constraints_hold(store: GraphStore) -> None:
    schema = load_schema()
    store.apply_schema(schema)
    store.apply_schema(schema)  # idempotent: IF NOT EXISTS everywhere
    names = {row["name"] for row in store.read("SHOW CONSTRAINTS")}
    # one per label, :Entity, :SourceVersion and one per relationship type; the index that
    # finds the current loads
    assert len(constraint_statements(schema)) == len(schema.labels) + len(schema.types) + 3
    assert {"entity_id", "gene_id", "is_a_id", "source_version_id"} <= names
    indexed = {row["name"]: row["properties"] for row in store.read("SHOW INDEXES")}
    assert indexed["source_version_current"] == ["current"]
    store.write("CREATE (n:Entity:Gene {id: 'NCBIGene:999999991', name: 'probe'})")
    with pytest.raises(StoreError, match="NCBIGene:999999991"):
        store.write("CREATE (n:Entity:Gene {id: 'NCBIGene:999999991'})")
    rows = store.read(
        "MATCH (n:Entity {id: $id}) RETURN count(n) AS n", {"id": "NCBIGene:999999991"}
    )
    assert rows == [{"n": 1}]
    store.write("MATCH (n:Entity {id: 'NCBIGene:999999991'}) DETACH DELETE n")


def test_fulltext_index_finds_a_phenotype_by_word(store: GraphStore) -> None:
    store.apply_schema(load_schema())
    store.write(
        "CREATE (:Entity:Phenotype {id: 'HP:9999991', name: 'Zzyzx-like tremor of the probe'})"
    )
    index = store.dialect.fulltext_index_names(load_schema(), "Phenotype")[0]  # over names
    rows = store.read(
        "CALL db.index.fulltext.queryNodes($index, 'zzyzx') YIELD node, score "
        "RETURN node.id AS id, score",
        {"index": index},
    )
    store.write("MATCH (n:Entity {id: 'HP:9999991'}) DETACH DELETE n")
    assert [r["id"] for r in rows] == ["HP:9999991"]
    assert rows[0]["score"] > 0


def test_bad_cypher_is_a_store_error_naming_the_query(store: GraphStore) -> None:
    with pytest.raises(StoreError, match="RETURN nonsense"):
        store.read("MATCH (n) RETURN nonsense(")


def test_embedded_engine_stops_a_runaway_read_at_the_command_timeout(
    own_unstarted_graph_settings: Settings,
) -> None:
    # 9 million rows of arithmetic: about 6 s on this machine without a limit
    slow = (
        "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b "
        "WITH a, b WHERE (a * b) % 7 = 0 RETURN count(*) AS n"
    )
    limited = dataclasses.replace(own_unstarted_graph_settings, command_timeout_s=1)
    with GraphStore.connect(limited) as graph:
        with pytest.raises(QueryTimeoutError, match="BIOKG_COMMAND_TIMEOUT_S") as raised:
            graph.read(slow, timeout_s=60)
        assert graph.read("RETURN 1 AS one") == [{"one": 1}]  # the engine serves on
    assert "command.timeout" in str(raised.value)


def test_client_abandons_a_generated_read_after_its_timeout(
    own_unstarted_graph_settings: Settings,
) -> None:
    # the same 6 s of arithmetic; the engine's own limit (4 s) is looser than the caller's 1 s
    slow = (
        "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b "
        "WITH a, b WHERE (a * b) % 7 = 0 RETURN count(*) AS n"
    )
    limited = dataclasses.replace(own_unstarted_graph_settings, command_timeout_s=4)
    with GraphStore.connect(limited) as graph:
        start = time.perf_counter()
        with pytest.raises(QueryTimeoutError, match="its 1 s limit"):
            graph.read(slow, timeout_s=1, rollback=True)
        assert time.perf_counter() - start < 2.5
        start = time.perf_counter()
        assert graph.read("RETURN 1 AS one") == [{"one": 1}]  # other sessions are not held
        assert time.perf_counter() - start < 1.0


def test_neo4j_cypher_files_cover_every_label() -> None:
    files = neo4j_cypher_files(load_schema())
    for label, spec in load_schema().labels.items():
        assert f"FOR (n:{label}) REQUIRE n.id IS UNIQUE" in files["constraints.cypher"]
        indexed = f"CREATE FULLTEXT INDEX {label.lower()}_fulltext" in files["indexes.cypher"]
        assert indexed == bool(spec.fulltext)  # LabelSection's text is not indexed (0017)
    assert "`vector.dimensions`: 384" in files["indexes.cypher"]


def test_neo4j_uri_without_password_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="BIOKG_NEO4J_PASSWORD"):
        Settings.from_env({"BIOKG_NEO4J_URI": "bolt://localhost:7687"})
    with pytest.raises(ConfigError, match="BIOKG_BATCH_SIZE"):
        Settings.from_env({"BIOKG_BATCH_SIZE": "lots"})


def test_per_source_folders_come_from_biokg_source_dir_variables(tmp_path) -> None:
    settings = Settings.from_env({"BIOKG_OPENFDA_DIR": str(tmp_path), "BIOKG_HOME": "/x"})
    assert settings.source_dir("openfda") == tmp_path
    assert settings.source_dir("hpo") is None


def test_sql_scans_read_every_record_once_across_pages(own_graph_settings: Settings) -> None:
    """The embedded engine's paged SQL scans (the exports' fast road): every node and edge once
    over many pages, properties as stored (a missing one None, a value holding the text the page
    boundary is found by left alone), ends as the nodes' record ids; a scan abandoned half-way
    stops its reader."""
    tricky = 'a note quoting {"rid":"#1:2"} as text'
    with GraphStore.connect(own_graph_settings) as graph:
        graph.write(
            "UNWIND range(1, 11) AS i "
            "CREATE (d:Entity:Disease {id: 'OMIM:' + toString(600000 + i), name: 'disease ' + i}) "
            "CREATE (p:Entity:Phenotype {id: 'HP:' + toString(9000000 + i)}) "
            "CREATE (d)-[:HAS_PHENOTYPE {id: 'e' + i, source: 'infores:hpo-annotations', "
            "evidence: ['PCS'], frequency: CASE WHEN i % 2 = 0 THEN $tricky END}]->(p)",
            {"tricky": tricky},
        )
        nodes = list(graph.scan_nodes("Entity", ["id", "name"], page=3))
        edges = list(graph.scan_edges("HAS_PHENOTYPE", ["id", "evidence", "frequency"], page=4))
        half = graph.scan_edges("HAS_PHENOTYPE", ["id"], page=2)
        assert next(half)["id"].startswith("e")
        half.close()
        handles = graph.node_handles("Disease")  # read with the scan on this engine
        query = "MATCH (n:Disease) RETURN n.id AS id, elementId(n) AS handle"
        elements = {row["id"]: row["handle"] for row in graph.read(query)}
    assert len(handles) == 11 and handles == elements
    assert len(nodes) == len({n["rid"] for n in nodes}) == 22
    ids = {n["rid"]: n["id"] for n in nodes}
    assert sorted(n["labels"] for n in nodes)[0] == ["Disease", "Entity"]
    assert {n["name"] for n in nodes if n["id"] == "OMIM:600003"} == {"disease 3"}
    assert sorted(e["id"] for e in edges) == sorted(f"e{i}" for i in range(1, 12))
    for edge in edges:
        number = int(edge["id"][1:])
        assert ids[edge["out"]] == f"OMIM:{600000 + number}"
        assert ids[edge["in"]] == f"HP:{9000000 + number}"
        assert edge["evidence"] == ["PCS"]
        assert edge["frequency"] == (tricky if number % 2 == 0 else None)


def test_whole_record_scans_and_sql_counts_equal_what_cypher_reads(agent_graph: GraphStore):
    """On the session graph (full HPO, ChEMBL, openFDA, bridges): a scan with every property
    gives each node's properties as ``properties(n)`` does, and ``biokg status``'s counts by
    SQL equal the Cypher statements that count them on Neo4j."""
    wanted = {"HP:0001250", "CHEMBL.COMPOUND:CHEMBL192", "OMIM:154700"}
    scanned = {
        row["id"]: {k: v for k, v in row.items() if k not in ("rid", "labels")}
        for row in agent_graph.scan_nodes("Entity", None)
        if row["id"] in wanted
    }
    query = "MATCH (n:Entity) WHERE n.id IN $ids RETURN n.id AS id, properties(n) AS p"
    read = {row["id"]: row["p"] for row in agent_graph.read(query, {"ids": sorted(wanted)})}
    # a vector (another module may have embedded drugs) comes as the engine's float32 text in
    # SQL's JSON and as doubles over Bolt: equal to float32 precision
    vectors = {i: (scanned[i].pop("embedding", None), read[i].pop("embedding", None)) for i in read}
    assert len(scanned) == 3 and scanned == read
    for mine, theirs in vectors.values():
        assert (mine is None) == (theirs is None)
        assert mine is None or mine == pytest.approx(theirs, rel=1e-6, abs=1e-7)
    labels = agent_graph.read(cypher.load("status_labels"))
    assert agent_graph.label_counts() == {r["label"]: r["count"] for r in labels}
    counted = agent_graph.relationship_counts()
    assert counted == agent_graph.read(cypher.load("status_relationships"))
    assert {r["source"] for r in counted} >= {"infores:hpo-annotations", "infores:mondo"}
