"""What a question asks, read from its words with the vocabulary in schema/ (no LLM).

Every cue comes from schema/: ``phrases`` and ``inverse_phrases`` of relationship types, ``nouns``
of labels, ``kinds`` of a label's categorical property (GO aspects, label sections),
``asked_properties`` and ``not_held`` topics. A new type, label or topic there is understood
without code changes. Words are compared by lemma, so "caused", "causes" and "causing" are one
cue and "Which genes ..." meets the noun "gene". Which relationship a cue means is settled
later against the linked entity's label (``inhibit`` is TARGETS for a drug, NEGATIVELY_REGULATES
for a GO term); cue-less questions get their relationship from the schema, or from a paraphrase
matcher (:mod:`.paraphrase`), in the planner.

Besides cues, the reader tells a yes/no question or a claim to check ("Is X …?", "X treats Y")
from a question asking for entities, whether the claim is negated, and what the question asks
for first (its *head*: a property such as a drug's brand names, or a topic no source holds
such as a date of approval).

It reads in two steps, one before linking and one after. :meth:`QuestionReader.understand` is
the understanding stage: a :class:`Reading` of the parsed question, made once, with every
vocabulary phrase where it stands, the kind of request (look-up, verification, diagnosis, …)
and the labels its relationship cues can join (a linking feature). :meth:`QuestionReader.intent`
is a function of that reading and the linked names: the same phrase matches, those inside a
name set aside.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from biokg.graph_agent.described import PhenotypeList, read_phenotype_list
from biokg.graph_agent.models import Mention, RequestKind
from biokg.graph_agent.question import NEGATIONS, Question
from biokg.graph_agent.text import (
    GRAMMAR_PHRASES,
    QUESTION_GRAMMAR,
    STOP_WORDS,
    is_common,
    lemma,
    mention_key,
)
from biokg.schema import GraphSchema

Kind = Literal["neighbours", "shared", "path"]
Cue = tuple[str, str]  # (vocabulary, name): ("relation", "TARGETS"), ("label", "Gene"), ...

_SHARED = frozenset({"share", "common", "both", "overlap", "enrich", "enriched", "together"})
_PATH = frozenset({"path", "connect", "connection", "route"})
#: Questions about time: no source dates anything but its own release.
_WHEN = "when"


@dataclass(frozen=True)
class Intent:
    """What a question cues (in order of appearance) and what it asks for first."""

    kind: Kind
    relations: tuple[str, ...]
    target_labels: tuple[str, ...]
    inverse: tuple[str, ...] = ()
    #: a yes/no question or a statement to check ("Is X …?", "X associates Gene Y")
    polar: bool = False
    #: the claim is negated ("X is not associated with Y")
    negated: bool = False
    #: values of a label's ``kinds`` property the question asks for ("molecular_function")
    kinds: tuple[str, ...] = ()
    #: a node property the question asks for ("brand_names", "xrefs")
    attribute: str | None = None
    #: for ``xrefs``: the CURIE prefixes the question names ("CHEMBL.COMPOUND", "DOID")
    prefixes: tuple[str, ...] = ()
    #: topics no source holds that the question asks for ("drug metabolism")
    not_held: tuple[str, ...] = ()
    #: the question's head: the first cue, e.g. ("attribute", "brand_names"), ("when", "when")
    head: Cue | None = None
    #: every cue found, in order: the planner's paraphrase fallback reads what is left
    cues: tuple[Cue, ...] = field(default=())
    #: the question's content words that are no linked name and no relation, label, attribute
    #: or grammar cue (kind phrases stay: "complex", "organelle" describe the answers)
    words: tuple[str, ...] = ()
    #: how many separate phrases cued relationships: one phrase may cue several types
    #: ("involved in": a gene's disease or its GO process), which chain nothing
    relation_phrases: int = 0
    #: linked name → the label a noun right before it gives it ("the gene PAX6": Gene)
    named_as: dict[str, str] = field(default_factory=dict)
    #: (first token, end token) of each such noun: no word of what the question asks
    appositives: tuple[tuple[int, int], ...] = ()
    #: cued relationship → words between its phrase and the nearest linked name: of nested
    #: phrases the one nearest the name is the first hop ("the parents of the diseases
    #: exposure to X is linked to": linked to, then parents)
    relation_gaps: dict[str, int] = field(default_factory=dict)
    #: the label a which/what question names before anything else ("Which diseases …", "What
    #: are the phenotypes of …"): the kind its answers are
    answer_label: str | None = None
    #: the lemmas of relationship phrases that also name a value of the type ("dominantly"):
    #: a yes/no question worded with one claims that value, not merely that some edge exists
    values: tuple[str, ...] = ()

    @property
    def asks_not_held(self) -> bool:
        """The question asks for something no source holds: its head is such a topic, or it
        names one and no relationship or property (a gene's tissue expression)."""
        if self.head is not None and self.head[0] in ("not_held", _WHEN):
            return True
        return bool(self.not_held) and not self.relations and self.attribute is None


@dataclass(frozen=True)
class CueSpan:
    """A phrase of schema/'s vocabulary where the question writes it (tokens ``start`` to
    ``end``, exclusive): a relationship, a label noun, a GO aspect, an asked property, …"""

    vocabulary: str
    name: str
    start: int
    end: int


@dataclass(frozen=True)
class Reading:
    """A question understood before any name in it is linked (the understanding stage).

    ``request`` is provisional where it depends on the names: a statement that opens with the
    label it asks for and names one thing ("genes for long QT") asks, it claims nothing, and
    only linking counts the things named (:meth:`QuestionReader.intent` settles it).
    """

    question: Question
    request: RequestKind
    #: the cues on the question as written, in order; no name is set aside yet
    cues: tuple[CueSpan, ...]
    #: the labels at either end of every relationship type cued (None: no relationship cued):
    #: a name the question's relationship cannot touch is seldom the one meant (decision 0018)
    reach: frozenset[str] | None
    #: for a ``diagnosis`` request, the described patient's observed and excluded phrases
    described: PhenotypeList | None = None
    #: every vocabulary phrase match as (phrase index, start), in the order phrases claim
    #: words: read again with the linked names set aside, never matched again
    matches: tuple[tuple[int, int], ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class _Phrase:
    lemmas: tuple[str, ...]
    vocabulary: str
    name: str


class QuestionReader:
    """Finds cues in a question (see module docstring)."""

    def __init__(self, schema: GraphSchema, *, prefix_names: Iterable[tuple[str, str]] = ()):
        self.schema = schema
        entries: list[tuple[str, str, str]] = []
        for rel, spec in schema.types.items():
            entries += [(p, "relation", rel) for p in spec.phrases]
            entries += [(p, "inverse", rel) for p in spec.inverse_phrases]
        for label, spec in schema.labels.items():
            entries += [(noun, "label", label) for noun in spec.nouns]
            if spec.kinds is not None:
                entries += [
                    (p, "kind", value)
                    for value, phrases in spec.kinds.values.items()
                    for p in phrases
                ]
        for prop, phrases in schema.asked_properties.items():
            entries += [(p, "attribute", prop) for p in phrases]
        for topic, phrases in schema.not_held.items():
            entries += [(p, "not_held", topic) for p in phrases]
        entries += [(name, "prefix", prefix) for name, prefix in prefix_names]
        entries += [(phrase, "grammar", phrase) for phrase in GRAMMAR_PHRASES]
        self._phrases = _vocabulary(entries)
        #: (vocabulary is "inverse", first word) → indices of the phrases starting with it
        self._starting: dict[tuple[bool, str], list[int]] = {}
        for index, phrase in enumerate(self._phrases):
            key = (phrase.vocabulary == "inverse", phrase.lemmas[0])
            self._starting.setdefault(key, []).append(index)
        self._values = {
            (_lemmas(phrase), rel)
            for rel, spec in schema.types.items()
            for phrase in spec.value_phrases
        }

    def label_nouns(self, label: str) -> set[str]:
        """Lemmas of one label's nouns, each noun's last word (its head: "small molecule")."""
        return {p.lemmas[-1] for p in self._phrases if p.vocabulary == "label" and p.name == label}

    @property
    def nouns(self) -> set[str]:
        """Lemmas of every label noun: words that may end a name (an eponym's disease)."""
        return {word for p in self._phrases if p.vocabulary == "label" for word in p.lemmas}

    @property
    def cue_sequences(self) -> set[tuple[str, ...]]:
        """Cues of several words ("go term", "trade name"): where one occurs, its words are
        no names ("What GO terms …" is no question about the gene alias GO)."""
        return {p.lemmas for p in self._phrases if len(p.lemmas) > 1}

    @property
    def cue_phrases(self) -> set[str]:
        """One-word cues ("id", "symbol", "function"): a word that is a whole cue by itself."""
        return {
            p.lemmas[0] for p in self._phrases if len(p.lemmas) == 1 and p.vocabulary != "grammar"
        }

    @property
    def cue_words(self) -> set[str]:
        """Every word of every relation phrase, noun and kind: not entity names on their own."""
        return {word for p in self._phrases if p.vocabulary in _VOCABS for word in p.lemmas}

    def understand(self, question: Question) -> Reading:
        """The question's :class:`Reading`: its phrase matches found once, the cues they give
        with nothing set aside, the labels those cues reach and the kind of request."""
        lemmas, surface = question.lemmas, question.keys
        matches = sorted(
            (index, start)
            for start in range(len(question.tokens))
            for inverse, text in ((False, lemmas), (True, surface))
            for index in self._starting.get((inverse, text[start]), ())
            if tuple(text[start : start + len(self._phrases[index].lemmas)])
            == self._phrases[index].lemmas
        )
        bare = Reading(question, "look-up", (), None, matches=tuple(matches))
        intent = self.intent(bare, ())
        types = [self.schema.types[t] for t in (*intent.relations, *intent.inverse)]
        described = read_phenotype_list(question.text)
        return Reading(
            question,
            _request(question, intent, described),
            tuple(
                CueSpan(p.vocabulary, p.name, start, start + len(p.lemmas))
                for start, p in _resolved(bare.matches, self._phrases, frozenset())
                if p.vocabulary != "grammar"
            ),
            frozenset(label for t in types for label in (*t.from_labels, *t.to_labels))
            if types
            else None,
            described,
            bare.matches,
        )

    def intent(self, reading: Reading, mentions: Iterable[Mention]) -> Intent:
        """What the question of ``reading`` asks, the words of the linked names (``mentions``)
        set aside wherever they are written: the reading's phrase matches that fall inside
        none of them.

        A label noun right before or after a name of that label (one of its candidates' or
        alternatives') names its kind ("the gene PAX6") and asks for nothing.
        """
        question = reading.question
        written = [t.text for t in question.tokens]
        words = list(question.lemmas)
        lemmas = list(words)
        span_labels: dict[str, set[str]] = {}
        ranges: list[tuple[str, int, int]] = []
        for mention in mentions:
            labels = {c.label for c in (*mention.candidates, *mention.alternatives)}
            span_labels[mention.text] = span_labels.get(mention.text, set()) | labels
            ranges += [
                (mention.text, a, b) for a, b in question.places(question.mention_words(mention))
            ]
        blank = frozenset(i for _, start, end in ranges for i in range(start, end))
        for i in blank:
            lemmas[i] = ""
        found = _resolved(reading.matches, self._phrases, blank)
        # "the protein X", "the leaflet X", "the X protein": a noun beside a name says what the
        # name is, not what the question asks for; a plural after it is what the question
        # asks about ("<disease> symptoms" are the symptoms of the disease)
        appositives = [  # right before the name ("the gene PAX6") or after it ("ABCA1 protein")
            (start, p.name, span)
            for start, p in found
            if p.vocabulary == "label"
            for span, begin, end in ranges
            if begin == start + len(p.lemmas)
            or (end == start and written[start].casefold() == words[start])
            if p.name in span_labels.get(span, ())
        ]
        named_as = {span: label for _, label, span in appositives}
        appositive = {(start, label) for start, label, _ in appositives}
        # an appositive is no content word either: "What does the gene PAX6 do?" asks what
        # PAX6 does, not for what shares the word "gene"
        beside = tuple(
            (start, start + len(p.lemmas)) for start, p in found if (start, p.name) in appositive
        )
        found = [
            (start, p)
            for start, p in found
            if p.vocabulary != "label" or (start, p.name) not in appositive
        ]
        claimed = {
            i
            for start, p in found
            if p.vocabulary != "kind"
            for i in range(start, start + len(p.lemmas))
        } | {i for start, end in beside for i in range(start, end)}
        content = tuple(
            written[i]
            for i, w in enumerate(lemmas)
            if w and i not in claimed and w not in STOP_WORDS and w not in QUESTION_GRAMMAR
        )
        cues = tuple((p.vocabulary, p.name) for _, p in found if p.vocabulary != "grammar")
        by = {v: tuple(dict.fromkeys(n for vocab, n in cues if vocab == v)) for v in _VOCABS}
        named = sum(1 for labels in span_labels.values() if labels)
        polar = question.polar and not _request_without_question(question, found, named)
        head = next((cue for cue in cues if cue[0] != "prefix"), None)
        if words and words[0] == _WHEN:
            head = (_WHEN, _WHEN)
        attribute = head[1] if head and head[0] == "attribute" and not polar else None
        if by["prefix"] and (head is None or head == ("attribute", "xrefs")):
            attribute = "xrefs"  # "the UNII of X": a prefix alone asks for the identifier
        gaps: dict[str, int] = {}
        for start, p in found:
            end = start + len(p.lemmas)
            for _, begin, stop in ranges if p.vocabulary == "relation" else ():
                gap = begin - end if end <= begin else start - stop
                gaps[p.name] = min(gaps.get(p.name, gap), gap)
        return Intent(
            kind=_kind(lemmas, polar),
            relations=by["relation"],
            relation_phrases=len({start for start, p in found if p.vocabulary == "relation"}),
            target_labels=by["label"],
            inverse=by["inverse"],
            polar=polar,
            # a negation inside a linked name ("… without neurofibrillary tangles") is the
            # name's, not the claim's
            negated=polar and any(w in NEGATIONS for w in lemmas),
            kinds=by["kind"],
            attribute=attribute,
            prefixes=by["prefix"],
            not_held=by["not_held"],
            head=head,
            cues=cues,
            words=content,
            named_as=named_as,
            appositives=beside,
            relation_gaps=gaps,
            answer_label=(
                head[1]
                if head and head[0] == "label" and words[:1] in _ASKING_KIND_OPENERS
                else None
            ),
            values=tuple(
                dict.fromkeys(
                    word
                    for _, p in found
                    if p.vocabulary == "relation" and (p.lemmas, p.name) in self._values
                    for word in p.lemmas
                )
            ),
        )


_VOCABS = ("relation", "inverse", "label", "kind", "attribute", "not_held", "prefix")
#: the words that open a question naming the kind of its answers ("Which diseases …")
_ASKING_KIND_OPENERS = (["which"], ["what"])


def identifier_names(schema: GraphSchema, cache_dir: Path | None = None) -> list[tuple[str, str]]:
    """(phrase, prefix) for every CURIE prefix schema/ declares: the prefix itself, bioregistry's
    name and synonyms for it ("UNII", "Unique Ingredient Identifier", "Disease Ontology",
    "RxCUI"), so that "the Disease Ontology identifier of X" asks for a DOID xref. Phrases that
    are common English words ("go", "do") are left out. bioregistry loads slowly (0.5 s), so the
    list is cached in ``cache_dir``, keyed by the schema's prefixes.
    """
    digest = hashlib.sha1(json.dumps(schema.prefixes, sort_keys=True).encode()).hexdigest()[:12]
    cached = cache_dir / f"identifier-names-{digest}.json" if cache_dir else None
    if cached is not None and cached.is_file():
        return [tuple(pair) for pair in json.loads(cached.read_text(encoding="utf-8"))]
    import bioregistry

    pairs = []
    for prefix, key in schema.prefixes.items():
        resource = bioregistry.get_resource(key)
        names = {prefix, key, prefix.replace(".", " "), prefix.partition(".")[0]}
        if resource is not None:
            name = resource.get_name() or ""
            names |= {name, name.removeprefix("Human "), *resource.get_synonyms()}
        pairs += [
            (n, prefix)
            for n in sorted(names)
            if len(mention_key(n)) >= 3 and not is_common(mention_key(n))
        ]
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(pairs), encoding="utf-8")
    return pairs


def _vocabulary(entries: Iterable[tuple[str, str, str]]) -> list[_Phrase]:
    """Phrases as lemma sequences, longest first so 'negatively regulate' wins. Inverse
    phrases keep their written words: "kinds of" asks for subtypes where "kind of" asks for a
    parent, a difference lemmas would erase."""
    phrases = {
        _Phrase(
            tuple(mention_key(text).split()) if vocabulary == "inverse" else _lemmas(text),
            vocabulary,
            name,
        )
        for text, vocabulary, name in entries
        if mention_key(text)
    }
    return sorted(phrases, key=lambda p: (-len(p.lemmas), p.vocabulary, p.name, p.lemmas))


def _lemmas(text: str) -> tuple[str, ...]:
    return tuple(lemma(w) for w in mention_key(text).split())


def _resolved(
    matches: Iterable[tuple[int, int]], phrases: list[_Phrase], blank: frozenset[int]
) -> list[tuple[int, _Phrase]]:
    """The cues of ``matches`` (phrase index, start) as (position, phrase), in order of
    position, leaving out those touching a ``blank`` token (a linked name's): a longer phrase
    claims its words first, and one span may carry several cues of different vocabularies
    ("function" is a relation cue, a label noun and a GO aspect)."""
    taken: dict[tuple[int, int], str] = {}
    found: list[tuple[int, _Phrase]] = []
    seen: set[tuple[int, str, str]] = set()
    for index, start in matches:
        phrase = phrases[index]
        span = (start, start + len(phrase.lemmas))
        if any(i in blank for i in range(*span)):
            continue
        overlaps = [s for s in taken if s[0] < span[1] and span[0] < s[1] and s != span]
        # a label noun inside a relationship's phrase still names the kind asked for
        # ("medications for X": indications, and drugs are the answer)
        if overlaps and not (
            phrase.vocabulary == "label" and all(taken[s] == "relation" for s in overlaps)
        ):
            continue
        taken.setdefault(span, phrase.vocabulary)
        key = (start, phrase.vocabulary, phrase.name)
        if key not in seen:
            seen.add(key)
            found.append((start, phrase))
    return sorted(found, key=lambda f: f[0])


def _request(question: Question, intent: Intent, described: PhenotypeList | None) -> RequestKind:
    """The kind of request, from the question's grammar and its cues before linking: the
    first kind that holds, in this order (a described patient is a diagnosis whatever else it
    cues; a question about absence or about data no source holds is answered by saying so)."""
    kinds: tuple[tuple[bool, RequestKind], ...] = (
        (described is not None, "diagnosis"),
        (question.asks_absence, "absence"),
        (intent.asks_not_held, "not-held"),
        (intent.polar, "verification"),
        (intent.attribute is not None, "attribute"),
        (intent.kind == "path", "path"),
        (intent.kind == "shared", "shared"),
    )
    return next((kind for holds, kind in kinds if holds), "look-up")


def _request_without_question(
    question: Question, found: list[tuple[int, _Phrase]], named: int
) -> bool:
    """A statement that opens with the label it asks for and names one thing: "genes for long
    QT", "drugs for type 2 diabetes" ask for genes and drugs, they claim nothing (a claim names
    two: "FBN1 causes tall stature"). Asked of a yes/no reading only, so of a statement: a
    yes/no question opens with its auxiliary, no label."""
    first = next((i for i, w in enumerate(question.lemmas) if w), None)
    opens_with_label = any(start == first and p.vocabulary == "label" for start, p in found)
    return opens_with_label and named < 2


def _kind(lemmas: list[str], polar: bool) -> Kind:
    present = set(lemmas)
    if present & _SHARED:
        return "shared"
    if not polar and present & _PATH:
        return "path"
    return "neighbours"
