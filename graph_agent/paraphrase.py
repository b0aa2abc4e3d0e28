"""Which relationship a question means when its words are none of schema/'s phrases.

"What problems do patients with Behcet syndrome have?" names no phrase of HAS_PHENOTYPE, but it
means what schema/ words as "Which symptoms does {name} present with?". The matcher embeds, once,
every wording schema/ gives a relationship type in each direction (its ``questions``,
``describe_*`` templates and ``paraphrases``, the entity written as "X"), and compares the
question, its entity written as "X", with the wordings of the types that can leave the entity's
label, and with schema/'s ``not_held_questions`` (a discoverer, a price, a prevalence: what no
relationship holds). The best type is taken when its cosine similarity reaches
:data:`MIN_SIMILARITY` and no not-held question is closer, with the types within
:data:`MIN_MARGIN` of it tried after it; otherwise the question stays without a relationship
(a guess would answer something else). Both bounds were chosen on a
calibration set of paraphrases kept apart from the evaluation's held-out wordings
(``benchmarks/bench_paraphrase.py`` prints how each choice scores;
docs/decisions/0009-question-understanding.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from biokg.core.embedding.models import Embedder
from biokg.core.files import atomic_path
from biokg.graph_agent.models import Mention
from biokg.graph_agent.question import DETERMINERS, Question
from biokg.graph_agent.requests import Relation
from biokg.graph_agent.text import lemma
from biokg.schema import EndWords, GraphSchema

#: Cosine similarity from which a question is read as a relationship's wording.
MIN_SIMILARITY = 0.50
#: Types this close to the best are tried after it (a near tie is no reason to guess).
MIN_MARGIN = 0.08
#: At most this many types are tried for one question.
MAX_TIED = 3
PLACEHOLDER = "X"
#: The pseudo-type of schema/'s ``not_held_questions``: the nearest wording being one of them
#: means the question asks for something no relationship holds.
NOT_HELD = "(not held)"


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
        cache_dir: Path | None = None,
    ) -> None:
        self.schema = schema
        self.embedder = embedder
        self.cache_dir = cache_dir
        self.min_similarity = min_similarity
        self.min_margin = min_margin

    def scores(self, frame: str, labels: set[str]) -> list[tuple[float, Relation]]:
        """Every (type, direction) that can leave ``labels``, with its best similarity to
        ``frame``, best first."""
        best: dict[tuple[str, bool], float] = {}
        for similarity, wording in self._nearest(frame, labels):
            if wording.type != NOT_HELD:
                best.setdefault((wording.type, wording.outgoing), similarity)
        return [
            (score, Relation(rel, outgoing, self._far(rel, outgoing)))
            for (rel, outgoing), score in best.items()
        ]

    def match(self, frame: str, labels: set[str]) -> tuple[Relation, ...]:
        """The relationships ``frame`` may mean, most likely first: the best type, and the
        types about as close as it (within :data:`MIN_MARGIN`, at most :data:`MAX_TIED` in
        all), to be tried in that order (what the graph holds then decides: a GO term
        "negative regulation of X" has only negative-regulation edges), each followed by the
        types schema/ says answer its questions from another source. Empty when no wording
        is close enough.

        Sentence vectors hardly tell "What does X control?" from "What controls X?", so the
        direction comes from the nearest wording of the type and the question's syntax: the
        nearest wording's direction, reversed when the entity plays the opposite grammatical
        role in the two ("What contains X?" is near "What does X consist of?", asked with X
        as object: X is the part, not the whole).
        """
        nearest = self._nearest(frame, labels)
        if not nearest or nearest[0][0] < self.min_similarity or nearest[0][1].type == NOT_HELD:
            return ()
        top = nearest[0][0]
        firsts: dict[str, _Wording] = {}
        for similarity, wording in nearest:
            if top - similarity <= self.min_margin and len(firsts) < MAX_TIED:
                if wording.type != NOT_HELD:
                    firsts.setdefault(wording.type, wording)
        tried: list[Relation] = []
        for wording in firsts.values():
            relation = self._directed(frame, wording, labels)
            tried += [relation, *self._kin(relation)]
        return tuple(dict.fromkeys(tried))

    def orient(
        self, relations: Sequence[Relation], question: Question, mention: Mention
    ) -> tuple[Relation, ...]:
        """``relations`` with the direction of each type joining a label to itself taken from the
        question's words where schema/'s ``ends`` decide it (:func:`asked_end`): a sentence
        vector puts antonyms side by side, so it only guessed that direction."""
        place = question.places(question.mention_words(mention))
        if not place:
            return tuple(relations)
        oriented = []
        for relation in relations:
            ends = self.schema.types[relation.type].ends
            outgoing = asked_end(question, place[0], ends) if ends is not None else None
            if outgoing is not None and outgoing != relation.outgoing:
                relation = Relation(relation.type, outgoing, self._far(relation.type, outgoing))
            oriented.append(relation)
        return tuple(dict.fromkeys(oriented))

    def prepare(self) -> int:
        """Embed schema/'s wordings now, or read them from the cache (a server's first question
        then embeds only itself); returns how many there are."""
        return len(self._vectors)

    def _kin(self, relation: Relation) -> list[Relation]:
        """The types schema/ says answer ``relation``'s questions from another source
        (``also_answered_by``), in its direction: tried right after it, before a type that
        only sounds alike ("the unwanted effects of X" are side effects or reported events
        before they are contraindications)."""
        kin = self.schema.types[relation.type].questions.also_answered_by
        return [Relation(k, relation.outgoing, self._far(k, relation.outgoing)) for k in kin]

    def opposite(self, relation: Relation, labels: set[str]) -> Relation | None:
        """``relation`` read the other way, when its type joins ``labels`` to themselves (a
        term's broader terms and its subtypes): sentence vectors place "wider" next to
        "narrower", so the direction of such a type is the matcher's weakest guess, and the
        other way is tried when the guessed one finds nothing (a leaf term has no subtypes)."""
        spec = self.schema.types[relation.type]
        if not (labels & set(spec.from_labels) and labels & set(spec.to_labels)):
            return None
        outgoing = not relation.outgoing
        return Relation(relation.type, outgoing, self._far(relation.type, outgoing))

    def _nearest(self, frame: str, labels: set[str]) -> list[tuple[float, _Wording]]:
        """The wordings of types that can leave ``labels``, by similarity to ``frame``."""
        [query] = self.embedder.embed([frame])
        similarities = self._vectors @ np.asarray(query, dtype=np.float64)
        scored = [
            (round(float(similarity), 4), wording)
            for wording, similarity in zip(self._wordings, similarities, strict=True)
            if wording.type == NOT_HELD or labels & self._leaving(wording)
        ]
        return sorted(scored, key=lambda item: -item[0])

    def _leaving(self, wording: _Wording) -> set[str]:
        """The labels the wording's type leaves in the wording's direction."""
        spec = self.schema.types[wording.type]
        return set(spec.from_labels if wording.outgoing else spec.to_labels)

    def _directed(self, frame: str, nearest: _Wording, labels: set[str]) -> Relation:
        """The direction of ``nearest``'s type that ``frame`` asks (see :meth:`match`)."""
        spec = self.schema.types[nearest.type]
        both = labels & set(spec.from_labels) and labels & set(spec.to_labels)
        outgoing = nearest.outgoing
        asked, worded = _role(frame), _role(nearest.text)
        if both and asked and worded and asked != worded:
            outgoing = not outgoing
        return Relation(nearest.type, outgoing, self._far(nearest.type, outgoing))

    def _far(self, rel: str, outgoing: bool) -> tuple[str, ...]:
        spec = self.schema.types[rel]
        return tuple(sorted(spec.to_labels if outgoing else spec.from_labels))

    @cached_property
    def _wordings(self) -> list[_Wording]:
        out = []
        for rel, spec in self.schema.types.items():
            q = spec.questions
            for outgoing, texts in (
                (True, (*q.forward, q.describe_forward, *q.paraphrases.forward)),
                (False, (*q.inverse, q.describe_inverse, *q.paraphrases.inverse)),
            ):
                out += [_Wording(rel, outgoing, t.format(name=PLACEHOLDER)) for t in texts]
        asked = self.schema.not_held_questions
        return out + [_Wording(NOT_HELD, True, t.format(name=PLACEHOLDER)) for t in asked]

    @cached_property
    def _vectors(self) -> np.ndarray:
        """The wordings' vectors, one row each. Embedding them (346 on 2026-11-29) took
        0.5-0.7 s of every CLI question that reached the matcher, so with a ``cache_dir`` they
        are kept there, keyed by the model and the wordings' text (a schema change embeds them
        again)."""
        texts = [w.text for w in self._wordings]
        kept = None
        if self.cache_dir is not None:
            digest = hashlib.sha1("\n".join([self.embedder.model_id, *texts]).encode())
            kept = self.cache_dir / "paraphrase" / f"wordings-{digest.hexdigest()[:16]}.npy"
            if kept.is_file():
                return np.load(kept)
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float64)
        if kept is not None:
            with atomic_path(kept) as partial, open(partial, "wb") as out:
                np.save(out, vectors)
        return vectors


_SUBJECT = re.compile(
    rf"\b(does|do|did|can|could|will|would|should|may|might)\s+(the\s+\w+\s+)?{PLACEHOLDER}\b"
    r"(?!\s+be\b)"  # "Which subtypes can X be split into?": a passive's subject is its object
)


def _role(text: str) -> str | None:
    """The placeholder's grammatical role: "subject" after "does", "do", "did" or a modal
    ("What does X control?") or after a passive's "by", "object" at the end ("What controls
    X?"), else None."""
    if _SUBJECT.search(text) or re.search(rf"\bby\s+{PLACEHOLDER}\W*$", text):
        return "subject"  # "What is modulated by X?": X the agent of a passive
    if re.search(rf"\b{PLACEHOLDER}\W*$", text):
        return "object"
    return None


def asked_end(question: Question, place: tuple[int, int], ends: EndWords) -> bool | None:
    """Whether ``question``, about the entity at token range ``place``, asks for the edge's
    object end (True: the entity is the subject, the answers its broader terms or wholes) or its
    subject end (False), when every sign ``ends`` reads agrees; None without a sign or when
    signs disagree.

    The signs: a word describing an end describes the answers before the entity, and the
    entity itself after it unless the entity's name is possessive. A word ordering the ends
    ("falls under") puts the entity first when it stands before the word or the word opens the
    wh-phrase ("Under which heading does X fall?"); a passive swaps them.
    """
    lemmas = question.lemmas
    start, end = place
    last_word = question.tokens[end - 1]
    possessive = question.text[last_word.start : last_word.end].endswith(("'s", "’s"))
    signs: set[bool] = set()
    outside = [w for w in _end_words(lemmas, ends) if w[1] <= start or end <= w[0]]
    for first, last, kind in outside:
        if kind in ("subject", "object"):
            signs.add((kind == "object") == (last <= start or possessive))
        else:
            entity_first = end <= first or (last < len(lemmas) and lemmas[last] in DETERMINERS)
            # a participle after a form of "be": its lemma differs, and no present ending
            word = question.tokens[first].text.lower()
            passive = "be" in lemmas[:first] and word != lemmas[first] and not word.endswith("s")
            signs.add((entity_first == (kind == "subject_first")) != passive)
    return signs.pop() if len(signs) == 1 else None


def _end_words(lemmas: Sequence[str], ends: EndWords) -> list[tuple[int, int, str]]:
    """(first token, end token, field) of every run of ``lemmas`` that is an entry of one of
    ``ends``'s fields."""
    found = []
    for kind, entries in ends.model_dump().items():
        for entry in entries:
            words = [lemma(w) for w in entry.split()]
            for i in range(len(lemmas) - len(words) + 1):
                if list(lemmas[i : i + len(words)]) == words:
                    found.append((i, i + len(words), kind))
    return found


def frame(question: Question, subject: Mention, leave_out: Sequence[tuple[int, int]] = ()) -> str:
    """The question with its subject's name written as "X" ("What problems do patients with X
    have?"), so that similarity compares the question's words, not the entity's; without the
    token ranges ``leave_out`` (a noun that says what the subject is: "the gene X")."""
    return question.framed(subject, PLACEHOLDER, leave_out)
