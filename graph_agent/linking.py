"""Entity linking: question text to typed, scored candidate nodes, ambiguity kept.

Strongest evidence first:

1. ids and xrefs (``HP:0001250``, ``CHEMBL192``, ``UNII:…``) anywhere in the text;
2. exact name keys of spans (case-, punctuation- and salt-insensitive: ``VIAGRA``,
   ``sildenafil citrate``, ``tp53``), longest span first, forgiving one keyboard slip in one
   word of a span of several ("Decreased hpi abduction");
3. for what is left over once relation and type words are set aside: typo-tolerant matching over
   the lexicon's keys (rapidfuzz), then the engine's full-text and vector indexes (meaning, not
   spelling: "high blood pressure" → Hypertension) where they are available.

A span whose best candidates tie is ambiguous; all of them are returned with their scores, and
lower-ranked exact matches of the same span as the mention's alternatives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from string import ascii_lowercase
from typing import Protocol

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from biokg.graph_agent.lexicon import RULE_SCORES, Lexicon
from biokg.graph_agent.models import Candidate, Mention
from biokg.ingest.embed import Reader
from biokg.ingest.identity import name_key

#: Function words and question words never linked on their own (English; short on purpose).
STOP_WORDS = frozenset(
    """
    a about all also an and any are as at be been by can could did do does for from has have
    how i in into is it its me of on or please show tell that the their them there these they
    this those to was were what when where which who whom whose why with would you list give
    find name names known many much more most other others each both between same shared
    common share path paths connect connected connects link links linked via through related
    relate
    """.split()
)
MAX_SPAN_TOKENS = 24
#: Lower-ranked exact matches kept beside a mention's candidates (see Mention.alternatives).
MAX_ALTERNATIVES = 5
FUZZY_CUTOFF = 85.0
FUZZY_WEIGHT = 0.85
#: A word is read as another lexicon word at this similarity (optimal string alignment: one
#: edit or swap in a four-letter word, two in an eight-letter one).
SPELL_SIMILARITY = 0.75
#: A known word this rare (uses in the lexicon) may still be a typo of a commoner word.
RARE_WORD_COUNT = 3
_TOKEN = re.compile(r"[^\s]+")
_EDGE_PUNCT = '?!.,;()[]{}"“”‘’'


class Searcher(Protocol):
    """Maps left-over text to (node id, score in [0, 1]) pairs; ``rule`` names the method.

    ``read`` runs its queries (default: the store's own read; the agent passes its question's
    runner, so that index searches are logged with the question's other queries).
    """

    rule: str

    def __call__(self, text: str, read: Reader | None = None) -> list[tuple[str, float]]: ...


@dataclass(frozen=True)
class _Token:
    text: str
    key: str
    corrected: bool = False
    #: Other readings of ``key``, each one word respelled: tried only inside a longer name.
    alts: tuple[str, ...] = ()


class EntityLinker:
    """Links names in text to graph nodes through a :class:`Lexicon` and optional searchers."""

    def __init__(
        self,
        lexicon: Lexicon,
        *,
        cue_words: Iterable[str] = (),
        searchers: Iterable[Searcher] = (),
    ) -> None:
        self.lexicon = lexicon
        self.ignored = STOP_WORDS | {name_key(w) for w in cue_words}
        self.searchers = tuple(searchers)

    def link(self, text: str, *, limit: int = 10, read: Reader | None = None) -> list[Candidate]:
        """Candidates for ``text`` taken as one name (``biokg search``), best first.

        ``read``: how index searches run their queries (see :class:`Searcher`).
        """
        tokens = self._tokens(text)
        found = _top_tier(self._named(tokens)) if tokens else []
        if not found:
            found = self._fuzzy(text)
        if not found:
            found = self._search(text, read)
        return sorted(found, key=lambda c: (-c.score, c.id))[:limit]

    def mentions(self, question: str, *, read: Reader | None = None) -> list[Mention]:
        """Every entity mention in a question, left to right, each with its candidates.

        ``read``: how index searches run their queries (see :class:`Searcher`).
        """
        tokens = self._tokens(question)
        spans = self._exact_spans(tokens)
        covered = {i for start, end, _ in spans for i in range(start, end)}
        spans += self._leftover_spans(tokens, covered, read)
        spans.sort(key=lambda span: span[0])
        mentions = []
        for start, end, found in spans:
            best = _top_tier(found)
            rest = [c for c in found if c not in best] + self._namesakes(best)
            rest = _best_per_node(c for c in rest if c.id not in {b.id for b in best})
            text = " ".join(t.text for t in tokens[start:end])
            mentions.append(
                Mention(text=text, candidates=best, alternatives=rest[:MAX_ALTERNATIVES])
            )
        return mentions

    def _namesakes(self, candidates: list[Candidate]) -> list[Candidate]:
        """Other nodes named exactly like a candidate: "high blood pressure" is a synonym of
        Hypertension the HPO phenotype, while drugs are indicated for Hypertension the disease."""
        return [
            self._candidate(entry.id, "namesake", c.name, RULE_SCORES["name"] * c.score)
            for c in candidates
            for entry in self.lexicon.by_key.get(name_key(c.name), ())
            if entry.rule == "name" and entry.id != c.id
        ]

    def _exact_spans(self, tokens: list[_Token]) -> list[tuple[int, int, list[Candidate]]]:
        found: list[tuple[int, int, list[Candidate]]] = []
        for start in range(len(tokens)):
            for end in range(min(len(tokens), start + MAX_SPAN_TOKENS), start, -1):
                if all(t.key in self.ignored or not t.key for t in tokens[start:end]):
                    continue
                candidates = self._named(tokens[start:end])
                if candidates:
                    found.append((start, end, candidates))
        found.sort(key=lambda s: (-(s[1] - s[0]), -max(c.score for c in s[2]), s[0]))
        chosen: list[tuple[int, int, list[Candidate]]] = []
        for span in found:
            if all(span[1] <= s or span[0] >= e for s, e, _ in chosen):
                chosen.append(span)
        return chosen

    def _tokens(self, text: str) -> list[_Token]:
        texts = (m.strip(_EDGE_PUNCT) for m in _TOKEN.findall(text))
        return [self._spelled(t) for t in texts if t]

    def _named(self, span: list[_Token]) -> list[Candidate]:
        """Nodes the span names exactly, or once one misspelt word is respelled (rule ``fuzzy``);
        best first, all of them (the caller keeps the top tier).

        A respelling is tried only for a span of several words and one word at a time: a typo
        that is itself a word ("Mael" the gene symbol in "Mael infertility") loses to the longer
        name its respelling completes ("Male infertility"), and nothing is rewritten freely.
        """
        text = " ".join(t.text for t in span)
        worded = [t for t in span if t.key]  # a lone "-" or "&" has no key
        keys = [t.key for t in worded]
        candidates = self._exact(text, key=" ".join(keys))
        respelled = any(t.corrected for t in span)
        if not candidates and len(worded) > 1:
            readings = (
                " ".join([*keys[:i], alt, *keys[i + 1 :]])
                for i, token in enumerate(worded)
                for alt in token.alts
            )
            candidates = _best_per_node(
                found
                for key in readings
                if key in self.lexicon.by_key
                for found in self._exact(text, key=key)
            )
            respelled = True
        if not respelled:
            return candidates
        return [
            c.model_copy(update={"rule": "fuzzy", "score": c.score * FUZZY_WEIGHT})
            for c in candidates
        ]

    def _leftover_spans(
        self, tokens: list[_Token], covered: set[int], read: Reader | None
    ) -> list[tuple[int, int, list[Candidate]]]:
        """Runs of words that are neither linked nor stop/cue words: typos, paraphrases."""
        out = []
        start = None
        for i in range(len(tokens) + 1):
            free = i < len(tokens) and i not in covered and tokens[i].key not in self.ignored
            if free and start is None:
                start = i
            elif not free and start is not None:
                run = " ".join(t.text for t in tokens[start:i])
                if len(name_key(run)) >= 4:
                    # a cue noun right after the run may be part of the name ("Marfn syndrome")
                    extended = " ".join(t.text for t in tokens[start : min(i + 1, len(tokens))])
                    fuzzy = max(
                        (self._fuzzy(run), self._fuzzy(extended)),
                        key=lambda found: max((c.score for c in found), default=0.0),
                    )
                    candidates = fuzzy or self._search(run, read)
                    if candidates:
                        out.append((start, i, candidates))
                start = None
        return out

    def _spelled(self, text: str) -> _Token:
        """The token's key with unknown words respelled, and other readings of known words.

        An unknown word is read as its closest lexicon word. A known word may still be a typo
        of another one slip away ("hpi" for "hip", "fo" for "of", "mats" for "mast", "mael" for
        "male"), or a rare word close to a commoner one ("neurla" is a gene synonym, "neural" was
        meant).
        Those readings are kept as ``alts`` and used only when they complete a longer name.
        """
        words = name_key(text).split()
        counts = self.lexicon.word_counts
        key: list[str] = []
        readings: list[set[str]] = []
        for word in words:
            others = set()
            if word not in self.ignored and not word.isdigit():
                others = _one_slip(word) & self.lexicon.words
                if len(word) >= 4 and counts[word] <= RARE_WORD_COUNT:
                    respelled = self._closest_word(word)
                    if word not in self.lexicon.words:
                        word = respelled
                    elif counts[respelled] > counts[word]:
                        others.add(respelled)
            key.append(word)
            readings.append(others - {word})
        alts = tuple(
            " ".join([*key[:i], other, *key[i + 1 :]])
            for i, others in enumerate(readings)
            for other in sorted(others)
        )
        joined = " ".join(key)
        return _Token(text, joined, corrected=joined != " ".join(words), alts=alts)

    def _closest_word(self, word: str) -> str:
        """The most similar other lexicon word (the commoner on a tie), or ``word`` itself."""
        options = process.extract(
            word,
            self.lexicon.word_list,
            scorer=OSA.normalized_similarity,
            score_cutoff=SPELL_SIMILARITY,
            limit=4,
        )
        others = sorted(
            (o for o in options if o[0] != word),
            key=lambda o: (-o[1], -self.lexicon.word_counts[o[0]], o[0]),
        )
        return others[0][0] if others else word

    def _exact(self, text: str, *, key: str | None = None) -> list[Candidate]:
        lexicon = self.lexicon
        node = lexicon.by_id.get(text.casefold())
        if node is not None:
            return [self._candidate(node, "id", text, RULE_SCORES["id"])]
        return _best_per_node(
            self._candidate(entry.id, entry.rule, entry.text, RULE_SCORES[entry.rule])
            for entry in lexicon.by_key.get(key if key is not None else name_key(text), ())
        )

    def _fuzzy(self, text: str) -> list[Candidate]:
        key = name_key(text)
        if len(key) < 4:
            return []
        hits = process.extract(
            key, self.lexicon.fuzzy_keys, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=5
        )
        return _top_tier(
            _best_per_node(
                self._candidate(
                    entry.id,
                    "fuzzy",
                    entry.text,
                    round(FUZZY_WEIGHT * score / 100 * RULE_SCORES[entry.rule], 4),
                )
                for matched, score, _ in hits
                for entry in self.lexicon.by_key[matched]
            )
        )

    def _search(self, text: str, read: Reader | None) -> list[Candidate]:
        return _top_tier(
            _best_per_node(
                self._candidate(node, searcher.rule, text, round(score, 4))
                for searcher in self.searchers
                for node, score in searcher(text, read)
                if node in self.lexicon.nodes
            )
        )

    def _candidate(self, node: str, rule: str, matched: str, score: float) -> Candidate:
        label, name = self.lexicon.nodes[node]
        return Candidate(id=node, label=label, name=name, score=score, rule=rule, matched=matched)


def _one_slip(word: str) -> set[str]:
    """Every word one keyboard slip away: two neighbouring letters swapped, or one letter
    dropped, added or replaced."""
    cuts = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    slips = {a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1}
    slips |= {a + b[1:] for a, b in cuts if b}
    slips |= {a + c + b[1:] for a, b in cuts if b for c in ascii_lowercase}
    slips |= {a + c + b for a, b in cuts for c in ascii_lowercase}
    return slips - {word, ""}


def _best_per_node(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Each node once, with its best-scoring match; best first."""
    best: dict[str, Candidate] = {}
    for c in candidates:
        if c.id not in best or c.score > best[c.id].score:
            best[c.id] = c
    return sorted(best.values(), key=lambda c: (-c.score, c.id))


def _top_tier(candidates: list[Candidate], *, tolerance: float = 0.02) -> list[Candidate]:
    """The candidates within ``tolerance`` of the best score: real ties stay ambiguous."""
    if not candidates:
        return []
    top = max(c.score for c in candidates)
    return sorted(
        (c for c in candidates if c.score >= top - tolerance), key=lambda c: (-c.score, c.id)
    )
