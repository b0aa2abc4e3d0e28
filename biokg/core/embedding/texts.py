"""The text each node label embeds, from schema/.

Which properties are embedded comes from schema/ (each label's ``embed:`` list, in order): lists
are joined with ``"; "``, fields with ``". "``, a value repeated across fields is kept once, and
``description`` is cut to its first sentence (at most 200 characters), because for linking a
name and its synonyms matter more than the body of a definition. A text longer than one window
of the model (160 words) is cut into at most 8 windows whose vectors are averaged (long
definitions; openFDA label sections were embedded so until 0017 made them full-text only);
``docs/decisions/0006-embedding-text.md`` says why. Shared: the pipeline embeds these texts,
the agent rescores index hits by them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from biokg.errors import SchemaError
from biokg.schema import GraphSchema, load_schema

DEFINITION_CHARS = 200
CHUNK_WORDS = 160  # ~220 word pieces: inside the model's 256-piece window
MAX_CHUNKS = 8
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z0-9(])")


def node_text(label: str, properties: Mapping[str, Any], schema: GraphSchema | None = None) -> str:
    """The text embedded for a node of ``label``: its ``embed:`` fields from schema/, in order.

    >>> node_text("Phenotype", {"name": "Seizure", "synonyms": ["Seizures", "Epileptic seizure"],
    ...     "description": "A seizure is an intermittent abnormality. It is transient."})
    'Seizure. Seizures; Epileptic seizure. A seizure is an intermittent abnormality.'

    Raises:
        SchemaError: ``label`` is not declared in schema/.
    """
    spec = (schema or load_schema()).label(label)
    seen: set[str] = set()
    parts = []
    for name in spec.embed:
        value = properties.get(name)
        items = value if isinstance(value, list | tuple) else [value]
        kept = []
        for item in items:
            text = str(item).strip() if item is not None else ""
            if name == "description":
                text = short_definition(text)
            if text and text.casefold() not in seen:
                seen.add(text.casefold())
                kept.append(text)
        if kept:
            parts.append("; ".join(kept))
    return ". ".join(parts)


def short_definition(text: str) -> str:
    """The first sentence of a definition, at most ``DEFINITION_CHARS`` (cut at a word)."""
    end = _SENTENCE_END.search(text)
    first = text[: end.end()] if end else text
    if len(first) > DEFINITION_CHARS:
        first = first[:DEFINITION_CHARS].rsplit(" ", 1)[0]
    return first.strip()


def text_chunks(text: str) -> list[str]:
    """The windows embedded for a text: itself when short, else up to 8 windows of 160 words."""
    words = text.split()
    if len(words) <= CHUNK_WORDS:
        return [text] if words else []
    words = words[: CHUNK_WORDS * MAX_CHUNKS]
    return [" ".join(words[i : i + CHUNK_WORDS]) for i in range(0, len(words), CHUNK_WORDS)]


def embedded_labels(schema: GraphSchema | None = None) -> list[str]:
    """Labels whose schema/ entry embeds some text (each has a vector index)."""
    return sorted(name for name, spec in (schema or load_schema()).labels.items() if spec.embed)


def require_embedded(schema: GraphSchema, label: str) -> None:
    """Refuse a label without embedded text: it has no vector index to write or search.

    Raises:
        SchemaError: ``label`` is not declared or embeds no text.
    """
    if not schema.label(label).embed:
        raise SchemaError(
            f"label {label!r} embeds no text in schema/nodes.yaml (embedded labels: "
            f"{', '.join(embedded_labels(schema))})"
        )
