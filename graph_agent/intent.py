"""What a question asks, read from its words with the vocabulary in schema/ (no LLM).

``phrases`` of each relationship type and ``nouns`` of each label (schema/*.yaml) are the only
vocabulary: a new type or label in schema/ is understood without code changes. Which
relationship a cue means is settled later against the linked entity's label (``inhibit`` is
TARGETS for a drug, NEGATIVELY_REGULATES for a GO term).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from biokg.ingest.identity import name_key
from biokg.schema import GraphSchema

Kind = Literal["neighbours", "shared", "path"]
_SHARED = re.compile(r"\b(share|shared|common|in common|both)\b")
_PATH = re.compile(r"\b(path|paths|connect|connected|connects|link between|linked to each other)\b")


@dataclass(frozen=True)
class Intent:
    """The relationship types a question cues (in order of appearance), the labels it asks for."""

    kind: Kind
    relations: tuple[str, ...]
    target_labels: tuple[str, ...]
    inverse: tuple[str, ...] = ()


class QuestionReader:
    """Finds relationship cues and asked-for labels in a question (see module docstring)."""

    def __init__(self, schema: GraphSchema) -> None:
        self.schema = schema
        self._phrases = _vocabulary(
            (phrase, rel) for rel, spec in schema.types.items() for phrase in spec.phrases
        )
        self._inverse = _vocabulary(
            (phrase, rel) for rel, spec in schema.types.items() for phrase in spec.inverse_phrases
        )
        self._nouns = _vocabulary(
            (noun, label) for label, spec in schema.labels.items() for noun in spec.nouns
        )

    @property
    def cue_words(self) -> set[str]:
        """Every word of every phrase and noun: not entity names on their own."""
        return {w for key, _ in (*self._phrases, *self._nouns) for w in key.split()}

    def read(self, question: str, *, entity_spans: list[str] = ()) -> Intent:
        """The intent of ``question``; ``entity_spans`` (linked names) are blanked out first."""
        text = f" {name_key(question)} "
        for span in entity_spans:
            key = name_key(span)
            if key:
                blank = " ".join("_" * len(w) for w in key.split())
                text = text.replace(f" {key} ", f" {blank} ")
        relations = _find(text, self._phrases)
        targets = _find(text, self._nouns)
        kind: Kind = "neighbours"
        if _SHARED.search(text):
            kind = "shared"
        elif _PATH.search(text):
            kind = "path"
        return Intent(
            kind=kind,
            relations=relations,
            target_labels=targets,
            inverse=_find(text, self._inverse),
        )


def _vocabulary(pairs) -> list[tuple[str, str]]:
    """(phrase key, name) pairs, longest phrase first so 'negatively regulates' wins."""
    return sorted({(name_key(p), n) for p, n in pairs}, key=lambda x: (-len(x[0]), x))


def _find(text: str, vocabulary: list[tuple[str, str]]) -> tuple[str, ...]:
    """Names whose phrase occurs in ``text`` (as whole words), ordered by first occurrence."""
    hits: dict[str, int] = {}
    taken: list[tuple[int, int]] = []
    for phrase, name in vocabulary:
        for match in re.finditer(rf"(?<= ){re.escape(phrase)}(?= )", text):
            span = (match.start(), match.end())
            if any(s < span[1] and span[0] < e for s, e in taken if (s, e) != span):
                continue
            taken.append(span)
            hits.setdefault(name, match.start())
            hits[name] = min(hits[name], match.start())
    return tuple(sorted(hits, key=hits.get))
