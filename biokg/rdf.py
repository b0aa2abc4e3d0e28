"""The graph, or an answer's evidence, as RDF (rdflib): Biolink classes and predicates, PROV-O.

Shape (docs/decisions/0014-rdf-export.md says why):

* a node is the IRI its CURIE expands to (bioregistry's URI prefix for the schema/ prefix; a
  local prefix such as ``MEDDRA.PT`` under ``urn:biokg:id:``), typed with its label's Biolink
  class, with ``rdfs:label``, ``skos:altLabel`` per synonym, ``dcterms:identifier`` (the
  CURIE), ``dcterms:description``, ``biolink:xref`` and ``dcterms:source`` per source;
* an edge is the triple ``subject biolink:<predicate> object`` in the named graph of its
  source release (``urn:biokg:release:<infores id>/<version>``), and a standard RDF
  reification of it (``urn:biokg:edge:<edge id>``, an ``rdf:Statement``) in the same graph
  carries its provenance: ``biolink:primary_knowledge_source``, ``pav:version``,
  ``dcterms:source`` (the source record), ``biolink:has_evidence``, ``biolink:publications``
  and every other edge property under ``urn:biokg:vocab#``;
* each release graph is a ``prov:Entity`` (in the default graph) with
  ``prov:wasAttributedTo`` its source, ``pav:version``, ``prov:generatedAtTime`` and
  ``dcterms:license``.

Node triples sit in the default graph: a node is asserted by several sources, an edge by one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import quote

import bioregistry
from curies import Converter, Record
from rdflib import RDF, RDFS, SKOS, XSD, Dataset, Graph, URIRef
from rdflib import Literal as RdfLiteral
from rdflib.namespace import DCTERMS, PROV, Namespace

from biokg.graph_agent.models import Answer, EvidenceEdge, EvidenceNode
from biokg.schema import GraphSchema

BIOLINK = Namespace("https://w3id.org/biolink/vocab/")
PAV = Namespace("http://purl.org/pav/")
#: Edge properties with no standard term (qualifiers such as frequency, onset, negated).
BIOKG = Namespace("urn:biokg:vocab#")
EDGE = "urn:biokg:edge:"
RELEASE = "urn:biokg:release:"
LOCAL_IDS = "urn:biokg:id:"
#: Characters kept as they are in a local id; everything else (spaces, quotes) is %-encoded.
_SAFE = "/:#?=&-._~+,;@!$'()*"
#: Edge properties mapped to standard terms; the rest go under BIOKG.
_EDGE_TERMS = {
    "source_version": PAV.version,
    "source_record": DCTERMS.source,
    "evidence": BIOLINK.has_evidence,
    "references": BIOLINK.publications,
    "retrieved_at": PROV.generatedAtTime,
    "license": DCTERMS.license,
}
_NOT_EXPORTED = {"id", "source", "load_id"}  # the edge's IRI, its graph, a build internal


@cache
def converter(prefixes: tuple[tuple[str, str], ...]) -> Converter:
    """CURIE prefix → URI prefix from bioregistry for schema/'s prefixes (plus infores);
    a prefix bioregistry has no URI for is local (``urn:biokg:id:<PREFIX>:``)."""
    records = [
        Record(prefix=ours, uri_prefix=bioregistry.get_uri_prefix(key) or f"{LOCAL_IDS}{ours}:")
        for ours, key in [("infores", "infores"), *prefixes]
    ]
    # not strict: KEGG's drug and compound entries share one URI prefix (we only expand)
    return Converter(records, strict=False)


@dataclass
class RdfWriter:
    """Turns node and edge rows into triples and quads (one instance per export or answer)."""

    schema: GraphSchema
    releases: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    _described: set[URIRef] = field(default_factory=set)

    def iri(self, curie: str) -> URIRef:
        """The IRI a CURIE expands to; a CURIE of an undeclared prefix stays local."""
        prefix, _, local = curie.partition(":")
        expanded = converter(tuple(self.schema.prefixes.items())).expand_pair(
            prefix, quote(local, safe=_SAFE)
        )
        return URIRef(expanded or f"{LOCAL_IDS}{quote(curie, safe=_SAFE)}")

    def add_node(self, graph: Graph, node: dict[str, Any]) -> None:
        """A node row (``id``, ``label``, ``name``, ``synonyms``, ...) as default-graph triples."""
        subject = self.iri(node["id"])
        spec = self.schema.labels.get(node.get("label") or "")
        if spec is not None:
            graph.add((subject, RDF.type, _curie_term(spec.category)))
        graph.add((subject, DCTERMS.identifier, RdfLiteral(node["id"])))
        if node.get("name"):
            graph.add((subject, RDFS.label, RdfLiteral(node["name"])))
        if node.get("description"):
            graph.add((subject, DCTERMS.description, RdfLiteral(node["description"])))
        for synonym in node.get("synonyms") or ():
            graph.add((subject, SKOS.altLabel, RdfLiteral(synonym)))
        for xref in node.get("xrefs") or ():
            graph.add((subject, BIOLINK.xref, RdfLiteral(xref)))
        for source in node.get("sources") or ():
            graph.add((subject, DCTERMS.source, self.iri(source)))

    @property
    def graph_count(self) -> int:
        """How many release graphs have been described so far."""
        return len(self._described)

    def release_graph(self, dataset: Dataset, source: str, version: str) -> Graph:
        """The named graph of one source release, described with PROV-O on first use."""
        name = URIRef(f"{RELEASE}{quote(source, safe=':')}/{quote(version, safe='')}")
        if name not in self._described:
            self._described.add(name)
            meta = self.releases.get((source, version), {})
            dataset.add((name, RDF.type, PROV.Entity))
            dataset.add((name, PROV.wasAttributedTo, self.iri(source)))
            dataset.add((name, PAV.version, RdfLiteral(version)))
            if meta.get("retrieved_at"):
                dataset.add((name, PROV.generatedAtTime, RdfLiteral(meta["retrieved_at"])))
            if meta.get("license"):
                dataset.add((name, DCTERMS.license, RdfLiteral(meta["license"])))
        return dataset.graph(name)

    def add_edge(self, graph: Graph, edge: dict[str, Any]) -> URIRef:
        """An edge row (``subject``, ``type``, ``object``, ``props``) as its triple plus a
        reified statement carrying its provenance; returns the statement's IRI."""
        props = edge["props"]
        subject, obj = self.iri(edge["subject"]), self.iri(edge["object"])
        spec = self.schema.types.get(edge["type"])
        predicate = _curie_term(spec.predicate) if spec else BIOKG[edge["type"].lower()]
        graph.add((subject, predicate, obj))
        statement = URIRef(EDGE + quote(props["id"], safe=""))
        graph.add((statement, RDF.type, RDF.Statement))
        graph.add((statement, RDF.subject, subject))
        graph.add((statement, RDF.predicate, predicate))
        graph.add((statement, RDF.object, obj))
        graph.add((statement, BIOLINK.primary_knowledge_source, self.iri(props["source"])))
        for key, value in sorted(props.items()):
            if key in _NOT_EXPORTED or value is None:
                continue
            term = _EDGE_TERMS.get(key, BIOKG[key])
            for item in value if isinstance(value, list) else [value]:
                graph.add((statement, term, _literal(item)))
        return statement


def _curie_term(curie: str) -> URIRef:
    """A ``biolink:`` CURIE from schema/ as its IRI."""
    prefix, _, local = curie.partition(":")
    if prefix != "biolink":
        raise ValueError(f"{curie!r} is not a Biolink term")
    return BIOLINK[local]


def _literal(value: Any) -> RdfLiteral:
    if isinstance(value, bool):
        return RdfLiteral(value, datatype=XSD.boolean)
    return RdfLiteral(value)


def chunks(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """``rows`` in lists of ``size`` (the last may be shorter)."""
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def answer_graph(answer: Answer, schema: GraphSchema) -> Graph:
    """An answer as one RDF graph: its evidence nodes and edges (each edge reified with its
    provenance) and each claim, citing the statements and nodes it rests on."""
    writer = RdfWriter(schema)
    graph = Graph()
    _bind(graph)
    for node in answer.evidence.nodes:
        writer.add_node(graph, _evidence_node_row(node))
    statements = {
        edge.id: writer.add_edge(graph, _evidence_edge_row(edge)) for edge in answer.evidence.edges
    }
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
            graph.add((node, PROV.wasDerivedFrom, statements[edge_id]))
        for node_id in claim.node_ids:
            graph.add((node, DCTERMS.references, writer.iri(node_id)))
        if claim.conflict:
            graph.add((node, BIOKG.conflict, _literal(True)))
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


def new_dataset() -> Dataset:
    """An empty dataset with the export's prefixes bound."""
    dataset = Dataset()
    _bind(dataset)
    return dataset
