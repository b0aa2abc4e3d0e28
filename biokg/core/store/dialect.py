"""Every difference between Neo4j 5 and the embedded ArcadeDB engine, and nothing else.

Nothing outside this module branches on the engine. Known differences (DESIGN §3):

* index DDL: Neo4j takes ``CREATE FULLTEXT INDEX`` / ``CREATE VECTOR INDEX`` in Cypher; ArcadeDB
  takes SQL ``CREATE INDEX ... FULL_TEXT`` / ``LSM_VECTOR`` (sent over its HTTP API);
* index names in ``db.index.*.queryNodes``: Neo4j uses the index name, ArcadeDB ``Label[prop]``
  (one full-text index per property there; a string list such as ``synonyms`` is indexed item by
  item as ``Label[synonymsbyitem]``, so both engines search names and synonyms alike);
* read-only sessions: Neo4j enforces READ access mode, ArcadeDB does not (the agent's gate must);
* EXPLAIN: Neo4j's summary gives the statement's query type (``r`` = read-only); ArcadeDB's
  reports ``w`` for every statement, so its plan's steps are read instead (:meth:`plan_writes`).

The default database name (``neo4j`` vs ``kg``) is a setting
(:class:`biokg.core.settings.Settings`).
Writes need no dialect: the writer's Cypher (index lookup, CREATE the missing, SET the rest)
runs unchanged on both; ``docs/decisions/0002-embedded-engine-writes.md`` says why it avoids
``MERGE (n:A:B {id})``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from biokg.schema import GraphSchema

EMBEDDING_DIMENSIONS = 384
#: ArcadeDB plan steps that update the graph (step names as its EXPLAIN prints them).
_ARCADE_WRITE_STEP = re.compile(
    r"^(CREATE|MERGE|SET|DELETE|DETACH DELETE|REMOVE|FOREACH|LOAD CSV)\b|IN TRANSACTIONS$"
)


@dataclass(frozen=True)
class IndexStatement:
    """One index DDL statement and the language it is written in (``cypher`` or ``sql``)."""

    language: str
    text: str


class Dialect:
    """The Neo4j 5 dialect; :class:`ArcadeDialect` overrides what ArcadeDB does differently."""

    name = "neo4j"
    enforces_read_only = True

    def plan_writes(self, query_type: str | None, plan: dict[str, Any] | None) -> list[str]:
        """Why an EXPLAIN summary is not a read-only statement ([] when it is).

        Neo4j reports the statement's query type; only ``r`` is read-only (``rw``/``w`` update
        data, ``s`` the schema).
        """
        if query_type == "r":
            return []
        return [f"the engine's plan has query type {query_type!r}, not read-only 'r'"]

    def prepare_indexes(self, schema: GraphSchema) -> list[IndexStatement]:
        """Statements that must run before the index DDL (none on Neo4j)."""
        return []

    def fulltext_index_name(self, label: str) -> str:
        return f"{label.lower()}_fulltext"

    def vector_index_name(self, label: str) -> str:
        return f"{label.lower()}_embedding"

    def fulltext_index_names(self, schema: GraphSchema, label: str) -> list[str]:
        """Every full-text index over a label's ``fulltext`` properties (one on Neo4j)."""
        return [self.fulltext_index_name(label)] if schema.label(label).fulltext else []

    def fulltext_indexes(self, schema: GraphSchema) -> list[IndexStatement]:
        """One full-text index per label over its ``fulltext`` properties (strings and string
        lists alike); a label without any gets none (``ON EACH []`` is a syntax error)."""
        return [
            IndexStatement(
                "cypher",
                f"CREATE FULLTEXT INDEX {self.fulltext_index_name(label)} IF NOT EXISTS "
                f"FOR (n:{label}) ON EACH [{', '.join(f'n.{p}' for p in spec.fulltext)}]",
            )
            for label, spec in sorted(schema.labels.items())
            if spec.fulltext
        ]

    def vector_indexes(self, schema: GraphSchema) -> list[IndexStatement]:
        return [
            IndexStatement(
                "cypher",
                f"CREATE VECTOR INDEX {self.vector_index_name(label)} IF NOT EXISTS "
                f"FOR (n:{label}) ON n.embedding OPTIONS {{indexConfig: {{"
                f"`vector.dimensions`: {EMBEDDING_DIMENSIONS}, "
                "`vector.similarity_function`: 'cosine'}}",
            )
            for label, spec in sorted(schema.labels.items())
            if spec.embed
        ]


class ArcadeDialect(Dialect):
    """ArcadeDB 26.x reached over its Bolt plugin, with SQL DDL over its HTTP API."""

    name = "arcadedb"
    enforces_read_only = False

    def vector_index_name(self, label: str) -> str:
        return f"{label}[embedding]"

    def fulltext_index_names(self, schema: GraphSchema, label: str) -> list[str]:
        # One index per property, e.g. Gene[name], Gene[symbol]; a list's is Gene[synonymsbyitem]
        return [
            f"{label}[{prop}{'byitem' if is_list else ''}]"
            for prop, is_list in _fulltext_properties(schema, label)
        ]

    def plan_writes(self, query_type: str | None, plan: dict[str, Any] | None) -> list[str]:
        # EXPLAIN says "w" for everything here; the plan text lists one "+ STEP" per line.
        text = ((plan or {}).get("args") or {}).get("string-representation", "")
        steps = [line[2:].strip() for line in text.splitlines() if line.startswith("+ ")]
        if not steps:
            return ["the engine made no query plan (a schema or admin command?)"]
        return [f"plan step {s!r} writes" for s in steps if _ARCADE_WRITE_STEP.search(s)]

    def prepare_indexes(self, schema: GraphSchema) -> list[IndexStatement]:
        # ArcadeDB indexes only declared properties; the types exist once constraints ran.
        out = []
        for label, spec in sorted(schema.labels.items()):
            for prop, is_list in _fulltext_properties(schema, label):
                kind = "LIST OF STRING" if is_list else "STRING"
                out.append(
                    IndexStatement("sql", f"CREATE PROPERTY {label}.{prop} IF NOT EXISTS {kind}")
                )
            if spec.embed:
                out.append(
                    IndexStatement(
                        "sql", f"CREATE PROPERTY {label}.embedding IF NOT EXISTS ARRAY_OF_FLOATS"
                    )
                )
        return out

    def fulltext_indexes(self, schema: GraphSchema) -> list[IndexStatement]:
        # a string list is indexed item by item (BY ITEM), as Neo4j indexes LIST<STRING>
        return [
            IndexStatement(
                "sql",
                f"CREATE INDEX IF NOT EXISTS ON {label} "
                f"({prop}{' BY ITEM' if is_list else ''}) FULL_TEXT",
            )
            for label in sorted(schema.labels)
            for prop, is_list in _fulltext_properties(schema, label)
        ]

    def vector_indexes(self, schema: GraphSchema) -> list[IndexStatement]:
        return [
            IndexStatement(
                "sql",
                f"CREATE INDEX IF NOT EXISTS ON {label} (embedding) LSM_VECTOR METADATA "
                f"{{dimensions: {EMBEDDING_DIMENSIONS}, similarity: 'COSINE'}}",
            )
            for label, spec in sorted(schema.labels.items())
            if spec.embed
        ]


def _fulltext_properties(schema: GraphSchema, label: str) -> list[tuple[str, bool]]:
    """A label's full-text properties, each with whether it is a string list."""
    types = schema.node_properties(label)
    return [(p, types[p] == "str[]") for p in schema.label(label).fulltext]


NEO4J = Dialect()
ARCADEDB = ArcadeDialect()
