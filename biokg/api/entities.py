"""An entity's card: its properties, Biolink category and the releases of the sources behind it.

Shared by the API (``GET /entities/{curie}``), the explorer page and the MCP server.
"""

from __future__ import annotations

from biokg import cypher
from biokg.api.models import EntityDetails, SourceRelease
from biokg.core.store import GraphStore
from biokg.errors import EntityNotFoundError
from biokg.ingest import node_facts
from biokg.ingest.node_facts import FACTS
from biokg.schema import GraphSchema

#: Written by the embedding step; nothing a reader of the card wants.
_HIDDEN = {"embedding", "embedding_hash", "embedding_model"}
_CARD = {"id", "name", "synonyms", "xrefs", "description", "category", "sources"}


def entity_details(store: GraphStore, schema: GraphSchema, curie: str) -> EntityDetails:
    """The node ``curie`` with its properties and its sources' current releases.

    Raises:
        EntityNotFoundError: no node has that id.
        StoreError: the engine refused the read.
    """
    rows = store.read(cypher.load("api_entity_details"), {"id": curie})
    if not rows:
        raise EntityNotFoundError(
            f"no node has the id {curie!r}; find ids by name with GET /search?q=<name>"
        )
    label, props = rows[0]["label"], rows[0]["props"]
    versions = {
        row["source"]: row["version"] for row in store.read(cypher.load("agent_data_versions"))
    }
    spec = schema.labels.get(label)
    return EntityDetails(
        id=curie,
        label=label,
        name=props.get("name"),
        category=props.get("category") or (spec.category if spec else None),
        description=props.get("description"),
        synonyms=props.get("synonyms") or [],
        xrefs=props.get("xrefs") or [],
        sources=[
            SourceRelease(source=s, version=versions.get(s)) for s in props.get("sources") or []
        ],
        properties={k: v for k, v in sorted(props.items()) if k not in _HIDDEN | _CARD | {FACTS}},
        source_values={
            source: fact.values
            for source, fact in sorted(node_facts.parse(props.get(FACTS), props).items())
        },
    )
