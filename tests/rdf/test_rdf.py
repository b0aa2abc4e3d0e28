"""RDF export and answers as RDF, parsed back with rdflib and queried with SPARQL."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rdflib import RDF, XSD, Dataset, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, PROV
from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.cli.export import source_ids
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.errors import AgentInputError, EntityNotFoundError
from biokg.export.rdf import export_rdf
from biokg.export.reader import types_written
from biokg.schema import load_schema

SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"  # Viagra; ChEMBL's mechanism: it targets PDE5A
PDE5A = "NCBIGene:8654"
PREFIXES = """
PREFIX biolink: <https://w3id.org/biolink/vocab/>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX pav: <http://purl.org/pav/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
"""
TARGETS_OF = (
    PREFIXES
    + """
SELECT ?symbol ?g WHERE {
  ?drug dcterms:identifier ?curie .
  GRAPH ?g { ?drug biolink:directly_physically_interacts_with ?gene }
  ?gene rdfs:label ?symbol ; a biolink:Gene .
}"""
)
EDGE_PROVENANCE = (
    PREFIXES
    + """
SELECT ?source ?record ?version ?license WHERE {
  ?drug dcterms:identifier ?curie .
  GRAPH ?g {
    ?st a rdf:Statement ; rdf:subject ?drug ; rdf:object ?gene ;
        rdf:predicate biolink:directly_physically_interacts_with ;
        biolink:primary_knowledge_source ?source ; dcterms:source ?record ; pav:version ?version .
  }
  ?g a prov:Entity ; prov:wasAttributedTo ?source ; dcterms:license ?license .
}"""
)


def _export(store: GraphStore, fmt: str = "trig", **options: object) -> Dataset:
    out = io.BytesIO()
    export_rdf(store, load_schema(), out, fmt=fmt, **options)  # type: ignore[arg-type]
    dataset = Dataset()
    dataset.parse(data=out.getvalue(), format=fmt)
    return dataset


@pytest.mark.parametrize("fmt", ["trig", "nquads"])
def test_a_drugs_targets_and_an_edges_provenance_by_sparql(
    agent_graph: GraphStore, fmt: str
) -> None:
    dataset = _export(agent_graph, fmt, seed=SILDENAFIL, hops=1)
    bound = {"curie": Literal(SILDENAFIL)}
    targets = list(dataset.query(TARGETS_OF, initBindings=bound))
    assert [str(row.symbol) for row in targets] == ["PDE5A"]
    assert "infores:chembl" in str(targets[0].g)  # the named graph of ChEMBL's release
    [row] = dataset.query(EDGE_PROVENANCE, initBindings=bound)
    assert str(row.source).endswith("/chembl")
    assert str(row.record).startswith("chembl.sqlite#drug_mechanism/")
    assert str(row.version) and str(row.license).startswith("https://creativecommons.org/")


def test_only_the_named_sources_edges_are_exported(agent_graph: GraphStore) -> None:
    dataset = _export(agent_graph, seed=SILDENAFIL, hops=1, sources=source_ids(["openfda"]))
    bound = {"curie": Literal(SILDENAFIL)}
    assert list(dataset.query(TARGETS_OF, initBindings=bound)) == []  # ChEMBL's edge left out
    graphs = {str(g.identifier) for g in dataset.graphs() if "release" in str(g.identifier)}
    assert graphs and all("infores:openfda" in g for g in graphs)


def test_a_one_source_export_reads_only_the_types_its_release_wrote(
    agent_graph: GraphStore,
) -> None:
    """The types come from the current load's recorded counts, and are exactly those the
    engine finds on the source's edges; a source without a load record reads every type."""
    for names in (["openfda"], ["chembl", "openfda"], ["hpo"]):
        sources = source_ids(names)
        rows = agent_graph.read(
            "MATCH ()-[r]->() WHERE r.source IN $sources RETURN DISTINCT type(r) AS type",
            {"sources": sources},
        )
        assert types_written(agent_graph, sources) == {row["type"] for row in rows}
    assert types_written(agent_graph, ["infores:openfda", "infores:kegg"]) is None


def test_quote_heavy_names_survive_the_round_trip(agent_graph: GraphStore) -> None:
    name = "Crohn's \"ileitis\" \\ 3',5'-cyclic AMP\nsecond line, <tag> & {brace}"
    agent_graph.write(
        "CREATE (:Entity:Disease {id: 'MONDO:9999991', name: $name, synonyms: [$name, 'x y']})",
        {"name": name},
    )
    try:
        dataset = _export(agent_graph, "nquads", seed="MONDO:9999991", hops=0)
    finally:
        agent_graph.write("MATCH (n:Entity {id: 'MONDO:9999991'}) DETACH DELETE n")
    query = PREFIXES + "SELECT ?name ?syn WHERE { ?d dcterms:identifier ?c ; rdfs:label ?name ;"
    query += " skos:altLabel ?syn }"
    rows = dataset.query(query, initBindings={"c": Literal("MONDO:9999991")})
    assert {str(r.name) for r in rows} == {name}
    assert {str(r.syn) for r in rows} == {name, "x y"}


def test_bad_input_is_a_clear_error(agent_graph: GraphStore) -> None:
    with pytest.raises(EntityNotFoundError, match="MONDO:0000000"):
        _export(agent_graph, seed="MONDO:0000000")
    with pytest.raises(AgentInputError, match="unknown source 'chebml'"):
        source_ids(["chebml"])
    with pytest.raises(AgentInputError, match="hops"):
        _export(agent_graph, seed=SILDENAFIL, hops=9)


def test_cli_export_and_ask_as_turtle(
    agent_graph: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    runner, env = CliRunner(), settings_env(settings)
    out = tmp_path / "viagra.nq"
    args = ["export", "rdf", "--out", str(out), "--seed", SILDENAFIL, "--sources", "chembl"]
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    assert "release graphs" in result.output and out.stat().st_size > 0
    result = runner.invoke(app, ["ask", "What does Viagra target?", "--format", "turtle"], env=env)
    assert result.exit_code == 0, result.output
    graph = Graph().parse(data=result.output, format="turtle")
    query = (
        PREFIXES
        + """SELECT ?text ?record WHERE {
      ?claim rdfs:comment ?text ; prov:wasDerivedFrom ?st ; dcterms:references ?gene .
      ?gene dcterms:identifier ?g .
      ?st dcterms:source ?record }"""
    )
    [row] = graph.query(query, initBindings={"g": Literal(PDE5A)})
    assert "PDE5A" in str(row.text) and str(row.record).startswith("chembl.sqlite#")


def test_a_one_source_export_parses_back_whole_typed_and_holds_only_its_nodes(
    agent_graph: GraphStore,
) -> None:
    out = io.BytesIO()
    report = export_rdf(agent_graph, load_schema(), out, sources=source_ids(["chembl"]))
    dataset = Dataset()
    dataset.parse(data=out.getvalue(), format="nquads")
    assert len(dataset) == report.quads  # rdflib reads back every quad written
    touched = {
        str(o)
        for g in dataset.graphs()
        if "infores:chembl" in str(g.identifier)
        for s, p, o in g
        if str(p).endswith("directly_physically_interacts_with")
    } | {
        str(s)
        for g in dataset.graphs()
        if "infores:chembl" in str(g.identifier)
        for s, p, o in g
        if str(p).endswith("directly_physically_interacts_with")
    }
    identified = list(dataset.default_graph.triples((None, DCTERMS.identifier, None)))
    assert identified and report.nodes == len(identified)
    graphs = {str(g.identifier) for g in dataset.graphs() if "release" in str(g.identifier)}
    assert graphs and all("infores:chembl" in g for g in graphs)
    assert touched <= {str(s) for s, _, _ in identified}
    # no node without a ChEMBL edge: every exported node is a subject or object in its graph
    in_edges = {
        str(term)
        for g in dataset.graphs()
        if "infores:chembl" in str(g.identifier)
        for s, p, o in g
        if p not in (RDF.subject, RDF.object, RDF.type)
        for term in (s, o)
    }
    assert {str(s) for s, _, _ in identified} <= in_edges
    licences = set(dataset.objects(None, DCTERMS.license))
    assert licences and all(isinstance(x, URIRef) for x in licences)
    times = set(dataset.objects(None, PROV.generatedAtTime))
    assert times and all(x.datatype == XSD.dateTime for x in times)
