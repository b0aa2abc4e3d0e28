"""Which relationship a question means when its words are none of schema/'s phrases.

"What problems do patients with Behcet syndrome have?" names no phrase of HAS_PHENOTYPE, but it
means what schema/ words as "Which symptoms does {name} present with?". The matcher embeds, once,
every wording schema/ gives a relationship type in each direction (its ``questions`` and
``describe_*`` templates, the entity written as "X"), and compares the question, its entity
written as "X", with the wordings of the types that can leave the entity's label. The best type
is taken when its cosine similarity reaches :data:`MIN_SIMILARITY` and beats the runner-up by
:data:`MIN_MARGIN`; otherwise the question stays without a relationship (a guess would answer
something else). Both bounds were chosen on a calibration set of paraphrases kept apart from
the evaluation's held-out wordings (``benchmarks/bench_paraphrase.py`` prints how each choice
scores; docs/decisions/0009-question-understanding.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from biokg.graph_agent.requests import Relation
from biokg.ingest.embedding.nodes import Embedder
from biokg.schema import GraphSchema

#: Cosine similarity from which a question is read as a relationship's wording.
MIN_SIMILARITY = 0.65
#: How much better than the next-best relationship the best must be.
MIN_MARGIN = 0.03
PLACEHOLDER = "X"


@dataclass(frozen=True)
class _Wording:
    type: str
    outgoing: bool
    text: str


class RelationMatcher:
    """Relationship types by similarity of meaning to schema/'s wordings (module docstring)."""

    def __init__(
        self,
        schema: GraphSchema,
        embedder: Embedder,
        *,
        min_similarity: float = MIN_SIMILARITY,
        min_margin: float = MIN_MARGIN,
    ) -> None:
        self.schema = schema
        self.embedder = embedder
        self.min_similarity = min_similarity
        self.min_margin = min_margin

    def scores(self, frame: str, labels: set[str]) -> list[tuple[float, Relation]]:
        """Every (type, direction) that can leave ``labels``, with its best similarity to
        ``frame``, best first."""
        [query] = self.embedder.embed([frame])
        best: dict[tuple[str, bool], float] = {}
        for wording, vector in zip(self._wordings, self._vectors, strict=True):
            spec = self.schema.types[wording.type]
            here = spec.from_labels if wording.outgoing else spec.to_labels
            if not labels & set(here):
                continue
            key = (wording.type, wording.outgoing)
            similarity = sum(a * b for a, b in zip(query, vector, strict=True))
            best[key] = max(best.get(key, -1.0), similarity)
        ranked = sorted(best.items(), key=lambda item: -item[1])
        return [
            (round(score, 4), Relation(rel, outgoing, self._far(rel, outgoing)))
            for (rel, outgoing), score in ranked
        ]

    def match(self, frame: str, labels: set[str]) -> Relation | None:
        """The relationship ``frame`` means, or None when no wording is close enough or two
        relationships are about as close.

        Sentence vectors hardly tell "What does X control?" from "What controls X?", so the two
        directions of one type count as one candidate, and the question's syntax picks the
        direction: X after "does", "do", "did" or a modal is the subject (forward), X at the end
        is the object (inverse); otherwise the closer wording decides.
        """
        scored = self.scores(frame, labels)
        if not scored or scored[0][0] < self.min_similarity:
            return None
        best_score, best = scored[0]
        others = [score for score, r in scored if r.type != best.type]
        if others and best_score - others[0] < self.min_margin:
            return None
        directions = {r.outgoing: r for _, r in scored if r.type == best.type}
        if len(directions) == 2:
            best = directions.get(_direction(frame), best)
        return best

    def _far(self, rel: str, outgoing: bool) -> tuple[str, ...]:
        spec = self.schema.types[rel]
        return tuple(sorted(spec.to_labels if outgoing else spec.from_labels))

    @cached_property
    def _wordings(self) -> list[_Wording]:
        out = []
        for rel, spec in self.schema.types.items():
            q = spec.questions
            for outgoing, texts in (
                (True, (*q.forward, q.describe_forward)),
                (False, (*q.inverse, q.describe_inverse)),
            ):
                out += [_Wording(rel, outgoing, t.format(name=PLACEHOLDER)) for t in texts]
        return out

    @cached_property
    def _vectors(self) -> list[list[float]]:
        return self.embedder.embed([w.text for w in self._wordings])


_SUBJECT = re.compile(
    rf"\b(does|do|did|can|could|will|would|should|may|might)\s+(the\s+\w+\s+)?{PLACEHOLDER}\b"
)


def _direction(frame: str) -> bool | None:
    """True when the placeholder is the question's subject, False when its object, else None."""
    if _SUBJECT.search(frame):
        return True
    if re.search(rf"\b{PLACEHOLDER}\W*$", frame):
        return False
    return None


def frame(question: str, subject: str) -> str:
    """The question with its subject's name written as "X" ("What problems do patients with X
    have?"), so that similarity compares the question's words, not the entity's."""
    return re.sub(re.escape(subject), PLACEHOLDER, question, count=1, flags=re.IGNORECASE)
