"""RDF terms for the graph (and an answer's evidence): Biolink classes and predicates, PROV-O.

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
Literals are typed (numbers, booleans, `xsd:dateTime` timestamps); a licence is always an IRI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import quote

import bioregistry
from curies import Converter, Record
from rdflib import RDF, RDFS, SKOS, XSD
from rdflib.namespace import DCTERMS, PROV, Namespace

from biokg.schema import GraphSchema

BIOLINK = Namespace("https://w3id.org/biolink/vocab/")
PAV = Namespace("http://purl.org/pav/")
#: Edge properties with no standard term (qualifiers such as frequency, onset, negated).
BIOKG = Namespace("urn:biokg:vocab#")
EDGE = "urn:biokg:edge:"
RELEASE = "urn:biokg:release:"
LOCAL_IDS = "urn:biokg:id:"
#: A licence given as a name, not a URL, becomes ``urn:biokg:license:<name>`` (an IRI still).
LOCAL_LICENSE = "urn:biokg:license:"
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
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: Triple: subject, predicate, object, each already an N-Triples term (``<iri>``, ``"lit"``).
Triple = tuple[str, str, str]


def _t(iri: str) -> str:
    return f"<{iri}>"


_TYPE, _STATEMENT = _t(str(RDF.type)), _t(str(RDF.Statement))
_SUBJECT, _PREDICATE, _OBJECT = _t(str(RDF.subject)), _t(str(RDF.predicate)), _t(str(RDF.object))
_IDENTIFIER, _LABEL = _t(str(DCTERMS.identifier)), _t(str(RDFS.label))
_DESCRIPTION, _ALT = _t(str(DCTERMS.description)), _t(str(SKOS.altLabel))
_XREF, _SOURCE = _t(str(BIOLINK.xref)), _t(str(DCTERMS.source))
_KNOWLEDGE_SOURCE = _t(str(BIOLINK.primary_knowledge_source))
_LICENSE, _GENERATED = _t(str(DCTERMS.license)), _t(str(PROV.generatedAtTime))
_ENTITY, _ATTRIBUTED, _VERSION = (
    _t(str(PROV.Entity)),
    _t(str(PROV.wasAttributedTo)),
    _t(str(PAV.version)),
)
_TERMS = {key: _t(str(term)) for key, term in _EDGE_TERMS.items()}
_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def literal(value: Any) -> str:
    """A value as an N-Triples literal: booleans and numbers typed (xsd:boolean, xsd:integer,
    xsd:double), ISO timestamps xsd:dateTime and dates xsd:date, the rest plain strings."""
    if isinstance(value, bool):
        return f'"{str(value).lower()}"^^<{XSD.boolean}>'
    if isinstance(value, int):
        return f'"{value}"^^<{XSD.integer}>'
    if isinstance(value, float):
        return f'"{value!r}"^^<{XSD.double}>'
    text = str(value)
    if text[:4].isdigit():  # cheap test first: most strings are no date
        if _DATE_TIME.match(text):
            return f'"{text}"^^<{XSD.dateTime}>'
        if _DATE.match(text):
            return f'"{text}"^^<{XSD.date}>'
    if '"' in text or "\\" in text or "\n" in text or "\r" in text:
        text = text.translate(_ESCAPES)
    return f'"{text}"'


def license_iri(value: str) -> str:
    """A licence as an IRI: its URL, or ``urn:biokg:license:<name>`` for a bare name."""
    if value.startswith(("http://", "https://")):
        return _t(quote(value, safe=_SAFE + "%"))
    return _t(LOCAL_LICENSE + quote(value, safe=""))


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
    """Turns node and edge rows into N-Triples terms (one instance per export or answer).

    Terms are written as text, not built as rdflib objects: an export of millions of quads
    spends its time here (docs/decisions/0019-bounded-queries-and-rdf.md).
    """

    schema: GraphSchema
    releases: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    _described: set[str] = field(default_factory=set)
    _iris: dict[str, str] = field(default_factory=dict)
    _graphs: dict[tuple[str, str], str] = field(default_factory=dict)
    _terms: dict[str, str] = field(default_factory=lambda: dict(_TERMS))
    #: literals of values that recur (versions, licences, evidence codes), made once
    _values: dict[tuple[str, Any], str] = field(default_factory=dict)

    def iri(self, curie: str) -> str:
        """The IRI term a CURIE expands to; a CURIE of an undeclared prefix stays local."""
        term = self._iris.get(curie)
        if term is None:
            prefix, _, local = curie.partition(":")
            expanded = converter(tuple(self.schema.prefixes.items())).expand_pair(
                prefix, quote(local, safe=_SAFE)
            )
            term = _t(expanded or f"{LOCAL_IDS}{quote(curie, safe=_SAFE)}")
            self._iris[curie] = term
        return term

    def node(self, node: dict[str, Any]) -> list[Triple]:
        """A node row (``id``, ``label``, ``name``, ``synonyms``, ...) as default-graph triples
        (its chosen values; ``source_facts``, each source's own, is not exported)."""
        subject = self.iri(node["id"])
        out = []
        spec = self.schema.labels.get(node.get("label") or "")
        if spec is not None:
            out.append((subject, _TYPE, _curie_term(spec.category)))
        out.append((subject, _IDENTIFIER, literal(node["id"])))
        if node.get("name"):
            out.append((subject, _LABEL, literal(node["name"])))
        if node.get("description"):
            out.append((subject, _DESCRIPTION, literal(node["description"])))
        out += [(subject, _ALT, literal(s)) for s in node.get("synonyms") or ()]
        out += [(subject, _XREF, literal(x)) for x in node.get("xrefs") or ()]
        out += [(subject, _SOURCE, self.iri(s)) for s in node.get("sources") or ()]
        return out

    @property
    def graph_count(self) -> int:
        """How many release graphs have been described so far."""
        return len(self._described)

    def release(self, source: str, version: str) -> tuple[str, list[Triple]]:
        """The named graph of one source release, and its PROV-O description (default graph)
        the first time it is used (no triples after that)."""
        name = self._graphs.get((source, version))
        if name is not None:
            return name, []
        name = _t(f"{RELEASE}{quote(source, safe=':')}/{quote(version, safe='')}")
        self._graphs[(source, version)] = name
        self._described.add(name)
        meta = self.releases.get((source, version), {})
        out = [
            (name, _TYPE, _ENTITY),
            (name, _ATTRIBUTED, self.iri(source)),
            (name, _VERSION, f'"{version.translate(_ESCAPES)}"'),
        ]
        if meta.get("retrieved_at"):
            out.append((name, _GENERATED, literal(meta["retrieved_at"])))
        if meta.get("license"):
            out.append((name, _LICENSE, license_iri(meta["license"])))
        return name, out

    def edge(self, edge: dict[str, Any]) -> tuple[str, list[Triple]]:
        """An edge row (``subject``, ``type``, ``object``, ``props``) as its triple plus a
        reified statement carrying its provenance; the statement's IRI and the triples."""
        props = edge["props"]
        subject, obj = self.iri(edge["subject"]), self.iri(edge["object"])
        spec = self.schema.types.get(edge["type"])
        predicate = _curie_term(spec.predicate) if spec else self._term(edge["type"].lower())
        edge_id = props["id"]
        statement = _t(EDGE + (edge_id if edge_id.isalnum() else quote(edge_id, safe="")))
        out = [
            (subject, predicate, obj),
            (statement, _TYPE, _STATEMENT),
            (statement, _SUBJECT, subject),
            (statement, _PREDICATE, predicate),
            (statement, _OBJECT, obj),
            (statement, _KNOWLEDGE_SOURCE, self.iri(props["source"])),
        ]
        for slot, value in (spec.predicate_qualifiers if spec else {}).items():
            out.append((statement, _t(BIOLINK[slot]), literal(value)))
        for key, value in sorted(props.items()):
            if key in _NOT_EXPORTED or value is None:
                continue
            term = self._term(key)
            for item in value if isinstance(value, list) else (value,):
                out.append((statement, term, self._value(key, item)))
        return statement, out

    def _term(self, key: str) -> str:
        term = self._terms.get(key)
        if term is None:
            term = self._terms[key] = _t(BIOKG[key])
        return term

    def _value(self, key: str, value: Any) -> str:
        """An edge property's object term; a source record is unique, anything else recurs."""
        if key == "source_record":
            return literal(value)
        made = self._values.get((key, value))
        if made is None:
            made = license_iri(value) if key == "license" else literal(value)
            if len(self._values) < 100_000:
                self._values[(key, value)] = made
        return made


@cache
def _curie_term(curie: str) -> str:
    """A ``biolink:`` CURIE from schema/ as its IRI term."""
    prefix, _, local = curie.partition(":")
    if prefix != "biolink":
        raise ValueError(f"{curie!r} is not a Biolink term")
    return _t(BIOLINK[local])
