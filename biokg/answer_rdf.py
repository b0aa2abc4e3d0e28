"""An agent's answer as one RDF graph (``biokg ask --format turtle``, the API's Turtle answer):
its evidence nodes and edges written as the RDF export writes the graph's
(:class:`biokg.export.rdf_terms.RdfWriter`), and each claim citing the statements and nodes it
rests on. It stands beside the surfaces that serve it, not in biokg/export/, because it reads the
agent's ``Answer`` (the exports never import the agent).
"""

from __future__ import annotations

import hashlib
from typing import Any

from rdflib import RDF, RDFS, SKOS, XSD, Graph, URIRef
from rdflib import Literal as RdfLiteral
from rdflib.namespace import DCTERMS, PROV

from biokg.export.rdf_terms import BIOKG, BIOLINK, PAV, RdfWriter, Triple
from biokg.graph_agent.models import Answer, EvidenceEdge, EvidenceNode
from biokg.schema import GraphSchema


def answer_graph(answer: Answer, schema: GraphSchema) -> Graph:
    """An answer as one RDF graph: its evidence nodes and edges (each edge reified with its
    provenance) and each claim, citing the statements and nodes it rests on."""
    writer = RdfWriter(schema)
    triples: list[Triple] = []
    for node in answer.evidence.nodes:
        triples += writer.node(_evidence_node_row(node))
    statements = {}
    for edge in answer.evidence.edges:
        statements[edge.id], made = writer.edge(_evidence_edge_row(edge))
        triples += made
    graph = Graph()
    _bind(graph)
    graph.parse(data="".join(f"{s} {p} {o} .\n" for s, p, o in triples), format="nt")
    digest = hashlib.sha1(answer.question.encode()).hexdigest()[:16]
    subject = URIRef(f"urn:biokg:answer:{digest}")
    graph.add((subject, RDF.type, PROV.Entity))
    graph.add((subject, RDFS.label, RdfLiteral(answer.question)))
    graph.add((subject, RDFS.comment, RdfLiteral(answer.summary)))
    graph.add((subject, BIOKG.status, RdfLiteral(answer.status)))
    for i, claim in enumerate(answer.claims, 1):
        node = URIRef(f"{subject}#claim-{i}")
        graph.add((subject, BIOKG.claim, node))
        graph.add((node, RDF.type, PROV.Entity))
        graph.add((node, RDFS.comment, RdfLiteral(claim.text)))
        for edge_id in claim.edge_ids:
            graph.add((node, PROV.wasDerivedFrom, URIRef(statements[edge_id][1:-1])))
        for node_id in claim.node_ids:
            graph.add((node, DCTERMS.references, URIRef(writer.iri(node_id)[1:-1])))
        if claim.conflict:
            graph.add((node, BIOKG.conflict, RdfLiteral(True, datatype=XSD.boolean)))
    return graph


def _evidence_node_row(node: EvidenceNode) -> dict[str, Any]:
    return {
        "id": node.id,
        "label": node.label,
        "name": node.name,
        "synonyms": [node.symbol, *node.brand_names] if node.symbol else node.brand_names,
        "sources": node.sources,
    }


def _evidence_edge_row(edge: EvidenceEdge) -> dict[str, Any]:
    props = {
        **edge.properties,
        "id": edge.id,
        "source": edge.source,
        "source_version": edge.source_version,
        "source_record": edge.source_record,
    }
    return {"subject": edge.subject, "type": edge.type, "object": edge.object, "props": props}


def _bind(graph: Graph) -> None:
    for prefix, namespace in (
        ("biolink", BIOLINK),
        ("pav", PAV),
        ("prov", PROV),
        ("dcterms", DCTERMS),
        ("skos", SKOS),
        ("biokg", BIOKG),
    ):
        graph.bind(prefix, namespace)
