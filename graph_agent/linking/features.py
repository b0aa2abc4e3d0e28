"""Linking as one scored decision: named features of a (span, candidate) pair, one logistic
scorer, one threshold below which the span is not in the graph.

The linker proposes candidates for a span by exact keys, one-slip respellings, fuzzy names and
the engine's full-text and vector indexes; each proposal is a guess of a different strength.
Rather than a rule per way of being wrong (an index hit that leaves a word of the span unnamed,
a respelling two letters from an invented drug name, a gene alias written as an English word),
every candidate is described by the same features and scored by one logistic model. Its
weights are data (``weights.json`` beside this module), fitted on the ``fit`` split of
``benchmarks/data/linking_calibration.jsonl`` by ``benchmarks/fit_linking.py``; its threshold
is chosen there too, on the fit split only. See docs/decisions/0018-scored-linking.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rapidfuzz.distance import OSA

from biokg.graph_agent import text as words
from biokg.graph_agent.models import SEARCH_RULES, Candidate
from biokg.graph_agent.text import mention_key

WEIGHTS = Path(__file__).with_name("weights.json")
#: How a candidate was found, as the feature that names it (rules not listed are exact keys:
#: a name, synonym, symbol, brand, id; which of them is the candidate's score, a feature too).
_KINDS = {
    "fuzzy": "respelled",
    "fulltext": "fulltext",
    "vector": "vector",
}
#: Ways of finding a candidate that guess: the rest match a key exactly. A key that is a form
#: GO's naming implies (``derived``: "insulin receptors" for the receptor activity)
#: is exact but no name of the node's own, so the scorer judges it as it judges a guess: the
#: question's relationship may ask for the gene product, not the function.
GUESS_RULES = frozenset({"fuzzy", "fulltext", "vector", "derived"})
_GENE_ALIAS_RULES = frozenset({"symbol", "synonym"})
_HEADS = frozenset({"base", "title"})
#: Zipf frequencies are scaled by this to lie in [0, 1] (the commonest English words are ~7.5).
_ZIPF_SCALE = 8.0
#: Edits are counted up to this many (a longer distance is no spelling slip either way).
_MAX_EDITS = 4
#: log10 of the name count at which a word is as generic as a word can be (10,000 names)
_LOG_USES = 4.0
FEATURES = (
    "bias",
    "exact",
    "rule_score",
    "respelled",
    "fulltext",
    "vector",
    "edits",
    "slip",
    "span_covered",
    "name_covered",
    "unmatched_foreign",
    "unmatched_zipf",
    "matched_zipf",
    "short",
    "symbol_span",
    "gene_alias_as_word",
    "symbol_agrees",
    "search_score",
    "words",
    "respelled_gene",
    "gene_symbol",
    "exact_in_context",
    "phrase_share",
    "context_foreign",
    "context_rare",
    "head_after",
    "matched_generic",
    "label_unreached",
    "label_reached",
)


@dataclass(frozen=True)
class SpanText:
    """What the features read of a span: its words as written and their lexicon keys (a
    respelled word's key is its respelling), and which keys are cue or grammar words."""

    written: tuple[str, ...]
    keys: tuple[str, ...]
    content: tuple[bool, ...]
    #: the other content words of the phrase the span stands in (no stop word between them)
    context: tuple[str, ...] = ()
    #: those of :attr:`context` that follow the span: the phrase's head is another word, so
    #: the span qualifies something else ("insulin trampoline", "cardiac origami")
    after: tuple[str, ...] = ()
    #: the labels the question's relationship cues can join (None: the question cues none)
    reach: frozenset[str] | None = None

    @property
    def text(self) -> str:
        return " ".join(self.written)


def features(span: SpanText, candidate: Candidate, uses: Callable[[str], int]) -> dict[str, float]:
    """The named features of one candidate for one span, each in [0, 1].

    ``uses``: how many name keys of the graph use a word (0: none; a word of the span that no
    name uses and the candidate leaves unnamed is the mark of an invented or absent name; a
    word many names use, "dystrophy", names none of them alone).
    """

    def known(word: str) -> bool:
        return uses(word) > 0

    kind = _KINDS.get(candidate.rule, "exact")
    named = candidate.name if candidate.rule in SEARCH_RULES else candidate.matched
    name_words = _content_words(mention_key(named))
    asked = [
        w
        for written, ok in zip(span.written, span.content, strict=True)
        if ok
        for w in mention_key(written).split()
    ]
    covered = [w for w in asked if _near_any(w, name_words)]
    unmatched = [w for w in asked if w not in covered]
    # every word of the span holds a name's word ("syndrome" is a cue, still written); a
    # type's number or letter the span leaves out is no word it misses ("Tuberous
    # sclerosis-1" for "tuberous sclerosis")
    spelt = mention_key(span.text).split()
    name_words = [w for w in name_words if not words.designator(w) or w in spelt]
    held = [w for w in name_words if _near_any(w, spelt)]
    written = span.text
    symbol = words.looks_like_symbol(written.replace(" ", ""))
    gene_alias = candidate.label == "Gene" and candidate.rule in _GENE_ALIAS_RULES
    values = {
        "bias": 1.0,
        "exact": float(kind == "exact"),
        "rule_score": candidate.score if kind == "exact" else 0.0,
        "respelled": float(kind == "respelled"),
        "fulltext": float(kind == "fulltext"),
        "vector": float(kind == "vector"),
        # to the node's name (a synonym may be far from it); a title's head is its name
        "edits": 0.0 if candidate.rule in _HEADS else _edits(written, named) / _MAX_EDITS,
        # a respelling by edits people make when they mean the name, or not: "Alpotr" is a
        # typo of "Alport", "Alpine" another name
        "slip": 0.0 if candidate.rule in _HEADS else slip_cost(written, named),
        "span_covered": len(covered) / len(asked) if asked else 0.0,
        "name_covered": len(held) / len(name_words) if name_words else 0.0,
        "unmatched_foreign": float(any(not known(w) for w in unmatched)),
        "unmatched_zipf": max((_zipf(w) for w in unmatched), default=0.0),
        "matched_zipf": min((_zipf(w) for w in covered), default=0.0),
        "short": float(len(mention_key(written).replace(" ", "")) <= 3),
        "symbol_span": float(symbol),
        # a gene alias written as an everyday word ("sting", "trade"), not as a symbol: the
        # linker judges such a candidate alone (a lower-case symbol, "apoe", is no such word)
        "gene_alias_as_word": float(gene_alias and not symbol and words.is_everyday(written)),
        "symbol_agrees": float(gene_alias and symbol),
        "search_score": candidate.score if kind in SEARCH_RULES else 0.0,
        "words": min(len(asked), 4) / 4,
        # a word one slip from a gene's name or alias is another gene's, or no gene
        "respelled_gene": float(kind == "respelled" and candidate.label == "Gene"),
        # a gene's own symbol, in any case, where it is no English word
        "gene_symbol": float(
            candidate.label == "Gene"
            and candidate.rule == "symbol"
            and not words.is_english(written)
        ),
        "phrase_share": len(asked) / (len(asked) + len(span.context)) if asked else 0.0,
        "context_foreign": float(any(not known(w) for w in span.context)),
        "context_rare": 1.0 - min((_zipf(w) for w in span.context), default=1.0),
    }
    # an exact name inside a longer phrase of rare words names a part of something unknown
    values["exact_in_context"] = values["exact"] * values["context_rare"]
    # the most specific word the candidate matched, by how many names use it (Gilda weighs
    # words the same way): "progeria" picks out its syndrome, "dystrophy" none of 900 names
    values["matched_generic"] = min(
        (min(math.log10(1 + uses(w)) / _LOG_USES, 1.0) for w in covered), default=0.0
    )
    # a name followed in its phrase by an uncommon word qualifies that word: not the head
    values["head_after"] = 1.0 - min((_zipf(w) for w in span.after), default=1.0)
    # "What drugs are used for <a GO term>?": no relationship the question cues joins drugs to
    # GO terms; a question that cues none says nothing either way
    reach = span.reach
    values["label_unreached"] = float(reach is not None and candidate.label not in reach)
    values["label_reached"] = float(reach is not None and candidate.label in reach)
    return values


@dataclass(frozen=True)
class LinkScorer:
    """A logistic model over :data:`FEATURES` and the probability from which a candidate links.

    ``threshold`` is the per-span decision: a span whose best candidate scores below it names
    nothing in the graph.
    """

    weights: Mapping[str, float]
    threshold: float

    def probability(self, values: Mapping[str, float], *, rivals: int = 0) -> float:
        """P(the candidate is what the span means), from the fitted weights.

        ``rivals``: other names as near to the span as this respelling. The model says how
        likely a respelling this close is meant; with ``rivals`` others as close, it is one of
        ``rivals + 1`` readings alike, so the probability is shared among them (a noisy channel
        with equal priors). In a dense lexicon (a release's million names built from the same
        stems and suffixes) an absent name lies a slip from several names, a typo of a real
        name seldom: the sharing is set by that argument, not fitted (the quick-start graph's
        calibration pairs seldom have a rival).
        """
        z = sum(self.weights.get(name, 0.0) * value for name, value in values.items())
        return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0))) / (1 + rivals)

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> LinkScorer:
        """The weights and threshold kept as data beside this module."""
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(weights=data["weights"], threshold=data["threshold"])

    def to_json(self, **extra: object) -> str:
        """The form :meth:`load` reads, with ``extra`` facts about the fit."""
        weights = {name: round(self.weights.get(name, 0.0), 4) for name in FEATURES}
        body = {"threshold": round(self.threshold, 4), "weights": weights, **extra}
        return json.dumps(body, indent=1) + "\n"


@cache
def default_scorer() -> LinkScorer:
    """The shipped scorer (read once)."""
    return LinkScorer.load()


def accept_all() -> LinkScorer:
    """A scorer that links every candidate: for collecting features to fit on."""
    return LinkScorer(weights={"bias": 1.0}, threshold=0.0)


def _content_words(key: str) -> list[str]:
    return [w for w in key.split() if w not in words.STOP_WORDS]


def _near_any(word: str, others: Sequence[str]) -> bool:
    """Same stem, or one slip apart in a word of four letters or more."""
    stem = words.stem(word)
    return any(
        words.stem(o) == stem or (min(len(o), len(word)) >= 4 and OSA.distance(o, word) <= 1)
        for o in others
    )


def _edits(asked: str, named: str) -> float:
    """Edits from the span to the name, capped (0: spelt alike), the fewest of the words as
    written, in sorted order ("Biedl-Bardet" for "Bardet-Biedl") and without the
    name's type numbers and letters the span leaves out."""
    edits = min(OSA.distance(name, span) for name, span in _readings(asked, named, mention_key))
    return float(min(edits, _MAX_EDITS))


def _readings(asked: str, named: str, key: Callable[[str], str]) -> list[tuple[str, str]]:
    """(name, span) as :func:`_edits` compares them: as written, each in sorted word order,
    and the name without the type numbers and letters the span leaves out."""
    span, name = key(asked).split(), key(named).split()
    bare = [w for w in name if not words.designator(w) or w in span]
    return [
        (" ".join(name), " ".join(span)),
        (" ".join(sorted(name)), " ".join(sorted(span))),
        (" ".join(bare), " ".join(span)),
    ]


def slip_cost(asked: str, named: str) -> float:
    """Whether an edit from the name to the span is no typing slip (1) or every edit is one
    (0; :data:`_MAX_COSTLY` such edits are counted), on the reading that :func:`_edits` finds
    closest and, among its alignments of fewest edits, the one with most slips. Slips are the
    edits people make when they mean the name (a letter left out, doubled or swapped with its
    neighbour, a vowel for a vowel, a key next to the right one, a vowel or a plural "s" added:
    "Marfam", "warfrin", "ibuprofin", "malformations"); any other edit is unlike a typo
    ("Marfax", "Sertralinex"), as in a noisy-channel error model (Kernighan, Church and Gale
    1990: most single-letter typos are of the kinds above). Only the readings with fewest
    edits are aligned (the alignment is Python, the edit count rapidfuzz's)."""
    # as written and as spoken: reading ph as f turns the h of a ph left out (a slip) into p
    # typed for f (none), so the spoken reading only adds readings
    readings = [*_readings(asked, named, mention_key), *_readings(asked, named, _spoken)]
    # the name's words the span holds: a word it leaves out is no slip ("progeria" for
    # "Hutchinson-Gilford progeria syndrome"); the covered share says that
    span = _spoken(asked).split()
    held = [w for w in _spoken(named).split() if _near_any(w, span)]
    if held:
        readings.append((" ".join(held), " ".join(span)))
    fewest = min(OSA.distance(name, span) for name, span in readings)
    costly = min(
        _slip_alignment(name, span) for name, span in readings if OSA.distance(name, span) == fewest
    )
    # a respelling holds a slip or two; a name further off by slips is another name
    costly += max(fewest - costly - _MAX_SLIPS, 0)
    return min(costly, _MAX_COSTLY) / _MAX_COSTLY


def _spoken(text: str) -> str:
    """The name key with "ph" written as it sounds ("Microcefaly" for "Microcephaly")."""
    return mention_key(text).replace("ph", "f")


def _slip_alignment(intended: str, typed: str) -> int:
    """The fewest edits that are no slip among the optimal string alignments from
    ``intended`` to ``typed`` with fewest edits. A cell holds edits * _COSTLY_PER_EDIT + edits
    that are no slip, so that one integer ``min`` orders alignments by both."""
    rows, cols = len(intended) + 1, len(typed) + 1
    edit = _COSTLY_PER_EDIT
    # what adding typed[j] costs beyond the edit: 0 for a slip, 1 otherwise; a plural "s" is a
    # slip only right after the name's last letter, so it is settled per cell
    added = [edit + (not _slip_added(typed, j)) for j in range(len(typed))]
    plural = [_plural_s(typed, j) for j in range(len(typed))]
    d = [[0] * cols for _ in range(rows)]
    for i in range(1, rows):
        d[i][0] = i * edit  # letters left out
    for j in range(1, cols):
        d[0][j] = d[0][j - 1] + added[j - 1]
    for i in range(1, rows):
        a, above, row = intended[i - 1], d[i - 1], d[i]
        name_ends = intended[i : i + 1] in ("", " ")
        for j in range(1, cols):
            b = typed[j - 1]
            add = added[j - 1]
            if plural[j - 1] and name_ends and a == typed[j - 2]:
                add = edit
            best = min(
                above[j] + edit,
                row[j - 1] + add,
                above[j - 1] if a == b else above[j - 1] + edit + ((a, b) not in _SLIP_PAIRS),
            )
            if i > 1 and j > 1 and a == typed[j - 2] and intended[i - 2] == b:
                best = min(best, d[i - 2][j - 2] + edit)  # two letters swapped
            row[j] = best
    return d[-1][-1] % edit


def _slip_added(typed: str, j: int) -> bool:
    """Whether the typed letter ``typed[j]``, which the name lacks, is a slip: a vowel, a
    doubled neighbour or a key next to a neighbour."""
    letter = typed[j]
    around = typed[max(j - 1, 0) : j] + typed[j + 1 : j + 2]
    return letter in _VOWELS or any(letter == c or (letter, c) in _ADJACENT for c in around)


def _plural_s(typed: str, j: int) -> bool:
    """``typed[j]`` is an "s" that ends a word after a letter: a plural, a slip when the name's
    word ends right before it with the same letter."""
    return typed[j] == "s" and typed[j + 1 : j + 2] in ("", " ") and 0 < j


def _keys_next_to_each_other() -> frozenset[tuple[str, str]]:
    """Pairs of keys next to each other on a QWERTY keyboard (rows staggered as on it)."""
    rows = (("1234567890", -0.5), ("qwertyuiop", 0.0), ("asdfghjkl", 0.25), ("zxcvbnm", 0.75))
    at = {
        key: (r, c + stagger)
        for r, (keys, stagger) in enumerate(rows)
        for c, key in enumerate(keys)
    }
    return frozenset(
        (a, b)
        for a, (ra, ca) in at.items()
        for b, (rb, cb) in at.items()
        if a != b and abs(ra - rb) <= 1 and abs(ca - cb) <= 1.0
    )


#: Edits that are no slip are counted up to this many: one is enough to make a respelling
#: another name ("Losartax", "Wilsox disease"); counting a second (2, until 2026-11-29 (e))
#: let a single one weigh half, and one-letter inventions over common names linked
_MAX_COSTLY = 1
#: Slips a respelling may hold: past these, each edit counts as no slip
_MAX_SLIPS = 2
#: An edit's weight in an alignment cell, above any count of edits that are no slip
_COSTLY_PER_EDIT = 10_000
_VOWELS = frozenset("aeiouy")
_ADJACENT = _keys_next_to_each_other()
#: Letters typed for others by slip: a vowel for a vowel, a key for its neighbour
_SLIP_PAIRS = _ADJACENT | {(a, b) for a in _VOWELS for b in _VOWELS if a != b}


def _zipf(word: str) -> float:
    return min(words.zipf(word) / _ZIPF_SCALE, 1.0)
