"""Dialect differences that would break or diverge on Neo4j, checked where they can be run."""

from __future__ import annotations

from biokg import cypher
from biokg.core.embedding.search import fulltext_search
from biokg.core.store import GraphStore
from biokg.core.store.dialect import NEO4J
from biokg.schema import load_schema


def test_a_label_without_fulltext_fields_gets_no_neo4j_fulltext_index() -> None:
    schema = load_schema()
    spec = schema.labels["Anatomy"].model_copy(update={"fulltext": ()})
    bare = schema.model_copy(update={"labels": {**schema.labels, "Anatomy": spec}})
    statements = [s.text for s in NEO4J.fulltext_indexes(bare)]
    indexed = [label for label, spec in schema.labels.items() if spec.fulltext]
    assert len(statements) == len(indexed) - 1
    assert not any("(n:Anatomy)" in s or "ON EACH []" in s for s in statements)
    assert NEO4J.fulltext_index_names(bare, "Anatomy") == []


def test_fulltext_search_finds_a_synonym_on_the_embedded_engine_as_on_neo4j(
    store: GraphStore,
) -> None:
    # Neo4j's full-text index covers the synonyms list; the embedded engine's must as well
    schema = load_schema()
    store.apply_schema(schema)
    store.write(
        "CREATE (:Entity:Phenotype {id: 'HP:9999992', name: 'Probe tremor', "
        "synonyms: ['Quizzlewort shaking', 'another name']})"
    )
    try:
        hits = fulltext_search(store, "Phenotype", "quizzlewort")
    finally:
        store.write("MATCH (n:Entity {id: 'HP:9999992'}) DETACH DELETE n")
    assert [hit[0] for hit in hits] == ["HP:9999992"]
    assert any(
        i.endswith("[synonymsbyitem]")
        for i in store.dialect.fulltext_index_names(schema, "Phenotype")
    )


def test_shortest_path_from_a_node_to_itself_is_no_row(agent_graph: GraphStore) -> None:
    # Neo4j raises 51N23 for a shortest path whose ends are one node; the query guards it
    query = cypher.load("agent_shortest_path")
    viagra, pde5a = "CHEMBL.COMPOUND:CHEMBL192", "NCBIGene:8654"  # sildenafil targets PDE5A
    params = {"kind_properties": []}
    assert agent_graph.read(query, {**params, "a": viagra, "b": viagra}) == []
    [path] = agent_graph.read(query, {**params, "a": viagra, "b": pde5a})
    assert [n["id"] for n in path["nodes"]] == [viagra, pde5a]
    assert [e["type"] for e in path["edges"]] == ["TARGETS"]
