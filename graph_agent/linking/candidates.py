"""Candidate generators: the nodes a span may name, by exact key (a plural's singular, joined
pieces, a one-slip reading inside a longer name), a disease's numbered forms and a name's
namesakes, fuzzy names over the lexicon's keys, and the engine's full-text and vector indexes.
Each candidate carries how it was found (``rule``) and a score; the scorer
(:mod:`.features`) judges them."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Protocol

from rapidfuzz import fuzz, process

from biokg.core.embedding.search import Reader
from biokg.errors import EmbeddingError, StoreError
from biokg.graph_agent import text as words
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.lexicon_build import RULE_SCORES
from biokg.graph_agent.linking.spans import Token
from biokg.graph_agent.linking.spelling import SPELL_SIMILARITY
from biokg.graph_agent.models import SEARCH_RULES, Candidate
from biokg.graph_agent.text import mention_key, numbered

log = logging.getLogger(__name__)
FUZZY_CUTOFF = 85.0
#: An index hit at least this good links a mention firmly: cosine 0.7 by meaning, or every
#: word shared by full text (searchers.py scales both below exact matches).
CONFIDENT_SEARCH_SCORE = 0.56
#: A name linked in parts is replaced by a whole name only this close to it (0-100).
WHOLE_NAME_CUTOFF = 90.0
FUZZY_WEIGHT = 0.85


class Searcher(Protocol):
    """Maps left-over text to (node id, score in [0, 1]) pairs; ``rule`` names the method.

    ``read`` runs its queries (default: the store's own read; the agent passes its question's
    runner, so that index searches are logged with the question's other queries).
    """

    rule: str

    def __call__(self, text: str, read: Reader | None = None) -> list[tuple[str, float]]: ...


class CandidateFinder:
    """The candidate generators over one lexicon and the engine's index searchers."""

    def __init__(self, lexicon: Lexicon, searchers: Iterable[Searcher] = ()) -> None:
        self.lexicon = lexicon
        self.searchers = tuple(searchers)

    def exact(self, text: str, *, key: str | None = None) -> list[Candidate]:
        lexicon = self.lexicon
        node = lexicon.by_id.get(text.strip().casefold())
        if node is not None:
            return [self.candidate(node, "id", text, RULE_SCORES["id"])]
        return best_per_node(
            self.candidate(entry.id, entry.rule, entry.text, RULE_SCORES[entry.rule])
            for entry in lexicon.by_key.get(key if key is not None else mention_key(text), ())
        )

    def named(self, text: str, span: list[Token]) -> list[Candidate]:
        """Nodes the span names exactly (its last word also as a plural's singular, an exact
        name still), or once one misspelt word is respelled (rule ``fuzzy``); best first, all
        of them (the caller keeps the top tier).

        A respelling is tried only for a span of several words and one word at a time: a typo
        that is itself a word ("Mael" the gene symbol in "Mael infertility") loses to the longer
        name its respelling completes ("Male infertility"), and nothing is rewritten freely.
        """
        worded = [t for t in span if t.key]  # a lone "-" or "&" has no key
        keys = [t.key for t in worded]
        key = numbered(" ".join(keys))
        candidates = self.exact(text, key=key)
        if not candidates and keys and (head := _singular(keys[-1])) != keys[-1]:
            # a plural head is the name's own ("protein kinases", "growth factors"): names are
            # singular, and an inflection the graph's names also use ("factors") is not
            # replaced by its lemma when the word is spelled (see _spelled)
            candidates = self.exact(text, key=" ".join([*keys[:-1], head]))
        if not candidates and " " in key and words.one_word(text):
            # its pieces joined meet an alias written with other dashes or none ("IL-1β" is
            # "IL1-BETA", "NF-κB" "NFkappaB"; the lexicon keys both so)
            candidates = self.exact(text, key=key.replace(" ", ""))
        respelled = any(t.corrected for t in span)
        if not candidates and len(worded) > 1:
            readings = (
                " ".join([*keys[:i], alt, *keys[i + 1 :]])
                for i, token in enumerate(worded)
                for alt in token.alts
            )
            candidates = best_per_node(
                found
                for key in readings
                if key in self.lexicon.by_key
                for found in self.exact(text, key=key)
            )
            respelled = True
        if not respelled:
            return candidates
        return [
            c.model_copy(update={"rule": "fuzzy", "score": c.score * FUZZY_WEIGHT})
            for c in candidates
        ]

    def forms(self, candidates: list[Candidate]) -> list[Candidate]:
        """Numbered forms of a disease: "Wolfram syndrome 2" for "Wolfram syndrome" (genes
        and modes of inheritance are often annotated to the forms only)."""
        out = []
        for c in candidates:
            if c.label != "Disease":
                continue
            key = mention_key(c.name)
            for found in self.lexicon.keys_starting(f"{key} "):
                if not words.numbered_form(found[len(key) + 1 :].split()):
                    continue
                out += [
                    self.candidate(e.id, "form", e.text, RULE_SCORES[e.rule] * c.score)
                    for e in self.lexicon.by_key[found]
                    if self.lexicon.label(e.id) == "Disease"
                ]
        return best_per_node(out)

    def namesakes(self, candidates: list[Candidate]) -> list[Candidate]:
        """Other nodes named exactly like a candidate: "high blood pressure" is a synonym of
        Hypertension the HPO phenotype, while drugs are indicated for Hypertension the disease."""
        return [
            self.candidate(entry.id, "namesake", c.name, RULE_SCORES["name"] * c.score)
            for c in candidates
            for entry in self.lexicon.by_key.get(mention_key(c.name), ())
            if entry.rule == "name" and entry.id != c.id
        ]

    def fuzzy(
        self, text: str, *, word_order: bool = True, cutoff: float = FUZZY_CUTOFF
    ) -> list[Candidate]:
        """Names spelt like ``text`` (edit similarity ≥ FUZZY_CUTOFF); ``word_order=False``
        also forgives words in another order ("Biedl-Bardet" for "Bardet-Biedl")."""
        key = mention_key(text)
        if len(key) < 4:
            return []
        scorer = fuzz.ratio if word_order else fuzz.token_sort_ratio
        hits = process.extract(
            key, self.lexicon.fuzzy_keys, scorer=scorer, score_cutoff=cutoff, limit=5
        )
        return top_tier(
            best_per_node(
                self.candidate(
                    entry.id,
                    "fuzzy",
                    entry.text,
                    round(FUZZY_WEIGHT * score / 100 * RULE_SCORES[entry.rule], 4),
                )
                for matched, score, _ in hits
                for entry in self.lexicon.by_key[matched]
            )
        )

    def search(self, text: str, read: Reader | None) -> list[Candidate]:
        """The index searchers' candidates; a searcher that fails is skipped (and logged, its
        query is in the question's log with the error): linking degrades, the answer stands."""
        found = []
        for searcher in self.searchers:
            try:
                hits = searcher(text, read)
            except (StoreError, EmbeddingError) as err:
                log.warning("linking search %s skipped for %r: %s", searcher.rule, text, err)
                continue
            found += [
                self.candidate(node, searcher.rule, text, round(score, 4))
                for node, score in hits
                if node in self.lexicon.nodes
            ]
        return top_tier(best_per_node(found))

    def rival_names(self, run: list[Token]) -> set[tuple[str, ...]]:
        """The name families the span is as near to as to the respelling chosen: the span with
        one respelled word read as one of its rivals that the lexicon holds as a name key, less
        the family of the reading chosen."""
        worded = [t for t in run if t.key]
        keys = [t.key for t in worded]
        readings = {
            " ".join([*keys[:i], rival, *keys[i + 1 :]])
            for i, token in enumerate(worded)
            for rival in token.rivals
        }
        named = {family(key) for key in readings if key in self.lexicon.by_key}
        return named - {family(" ".join(keys))}

    def candidate(self, node: str, rule: str, matched: str, score: float) -> Candidate:
        label, name = self.lexicon.nodes[node]
        return Candidate(id=node, label=label, name=name, score=score, rule=rule, matched=matched)


def holds(candidate: Candidate, tokens: list[Token], loose: list[int]) -> bool:
    """Whether the name matched holds most of the loose words, spelt alike (a qualifier of a
    phenotype's name may be missing, the one verb of "dampens <a GO term>" may not)."""
    named = mention_key(candidate.matched).split()
    asked = [word for i in loose for word in tokens[i].key.split()]
    held = [w for w in asked if any(fuzz.ratio(w, o) >= SPELL_SIMILARITY * 100 for o in named)]
    return 2 * len(held) > len(asked)


def name_words(candidate: Candidate) -> set[str]:
    """The candidate's name, word by word, stemmed."""
    return {words.stem(w) for w in mention_key(candidate.name).split()}


def doubtful(candidates: list[Candidate]) -> bool:
    """Index hits below :data:`CONFIDENT_SEARCH_SCORE`: a guess, not a name."""
    searched = all(c.rule in SEARCH_RULES for c in candidates)
    return searched and max(c.score for c in candidates) < CONFIDENT_SEARCH_SCORE


def family(key: str) -> tuple[str, ...]:
    """A name key without its type numbers and letters."""
    return tuple(w for w in key.split() if not words.designator(w))


def _singular(word: str) -> str:
    """A plural noun's singular ("kinases", "analyses"), else the word itself: only a plural,
    so that "sneezing" stays a word of its own."""
    return words.lemma(word) if word.endswith("s") else word


def closest(candidates: Iterable[Candidate], *, limit: int = 3) -> list[Candidate]:
    """The best few of the candidates the scorer rejected, one per node, best first."""
    return best_per_node(candidates)[:limit]


def best_per_node(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Each node once, with its best-scoring match; best first."""
    best: dict[str, Candidate] = {}
    for c in candidates:
        if c.id not in best or c.score > best[c.id].score:
            best[c.id] = c
    return sorted(best.values(), key=lambda c: (-c.score, c.id))


def top_tier(candidates: list[Candidate], *, tolerance: float = 0.02) -> list[Candidate]:
    """The candidates within ``tolerance`` of the best score: real ties stay ambiguous."""
    if not candidates:
        return []
    top = max(c.score for c in candidates)
    return sorted(
        (c for c in candidates if c.score >= top - tolerance), key=lambda c: (-c.score, c.id)
    )
