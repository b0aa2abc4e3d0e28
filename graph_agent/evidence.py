"""The evidence graph: exactly the nodes and edges that the agent's queries returned.

Queries return nodes and relationships in one projection (see ``cypher/agent_*.cypher``):
``{id, label, name}`` for nodes and ``{id, type, subject, object, props}`` for relationships.
The graph deduplicates by id and is the only thing a claim may cite: :meth:`cite` refuses
anything else, so a citation outside the evidence is a bug that fails loudly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from biokg.errors import BiokgError
from biokg.graph_agent.models import Claim, EvidenceEdge, EvidenceNode, EvidenceView, SourceRecord

_PROVENANCE = ("id", "source", "source_version", "source_record")
#: also each source's own values of a node (``source_facts``): the shown ones are the node's
_OMITTED_PROPERTIES = frozenset(
    {*_PROVENANCE, "load_id", "embedding", "embedding_hash", "source_facts"}
)


class CitationError(BiokgError):
    """A claim cited a node or edge that no query returned (a bug in the answer step)."""


class EvidenceGraph:
    """Nodes and edges by id, in the order queries first returned them."""

    def __init__(self) -> None:
        self.nodes: dict[str, EvidenceNode] = {}
        self.edges: dict[str, EvidenceEdge] = {}

    def add_node(self, node: dict[str, Any] | None) -> str | None:
        """Add a projected node; returns its id (None for a missing optional node)."""
        if not node or node.get("id") is None:
            return None
        self.nodes.setdefault(
            node["id"],
            EvidenceNode(
                id=node["id"],
                label=node["label"],
                name=node.get("name"),
                symbol=node.get("symbol"),
                brand_names=node.get("brands") or [],
                kind=node.get("kind"),
                sources=node.get("sources") or [],
            ),
        )
        return node["id"]

    def add_edge(self, edge: dict[str, Any] | None) -> str | None:
        """Add a projected relationship with its provenance; returns its id."""
        if not edge or edge.get("id") is None:
            return None
        props = edge.get("props") or {}
        if edge["id"] not in self.edges:
            self.edges[edge["id"]] = EvidenceEdge(
                id=edge["id"],
                type=edge["type"],
                subject=edge["subject"],
                object=edge["object"],
                source=props.get("source", ""),
                source_version=props.get("source_version", ""),
                source_record=str(props.get("source_record", "")),
                properties={k: v for k, v in props.items() if k not in _OMITTED_PROPERTIES},
            )
        return edge["id"]

    def add_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        """Add every node and edge projection found in query rows, however deeply nested."""
        for row in rows:
            self._walk(row)

    def _walk(self, value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                self._walk(item)
        elif isinstance(value, dict):
            if "type" in value and "subject" in value and "props" in value:
                self.add_edge(value)
            elif "label" in value and "id" in value:
                self.add_node(value)
            else:
                for item in value.values():
                    self._walk(item)

    def cite(
        self,
        text: str,
        node_ids: Iterable[str],
        edge_ids: Iterable[str],
        *,
        versions: dict[str, str] | None = None,
    ) -> Claim:
        """A claim citing these ids and their edges' source records. A claim resting on no
        edge (a node's own property) cites the sources that loaded its first node, at the
        versions in ``versions`` (source → current version).

        Raises:
            CitationError: an id is not in the evidence graph.
        """
        node_ids, edge_ids = list(dict.fromkeys(node_ids)), list(dict.fromkeys(edge_ids))
        missing = [i for i in node_ids if i not in self.nodes]
        missing += [i for i in edge_ids if i not in self.edges]
        if missing:
            raise CitationError(f"claim {text!r} cites ids not in the evidence graph: {missing}")
        edges = [self.edges[i] for i in edge_ids]
        sources = [
            SourceRecord(
                edge_id=e.id,
                source=e.source,
                source_version=e.source_version,
                source_record=e.source_record,
            )
            for e in edges
        ]
        if not edges and node_ids:
            node = self.nodes[node_ids[0]]
            sources = [
                SourceRecord(
                    node_id=node.id,
                    source=source,
                    source_version=(versions or {}).get(source, ""),
                    source_record=node.id,
                )
                for source in node.sources
            ]
        return Claim(
            text=text,
            node_ids=node_ids,
            edge_ids=edge_ids,
            sources=sources,
            conflict=_conflicting(edges),
        )

    def view(self) -> EvidenceView:
        return EvidenceView(nodes=list(self.nodes.values()), edges=list(self.edges.values()))


def _conflicting(edges: list[EvidenceEdge]) -> bool:
    """Edges of one pair and type where one is negated (e.g. a GO NOT beside a positive)."""
    negated = {bool(e.properties.get("negated")) for e in edges}
    return len(negated) > 1
