"""Entity linking: question text to typed, scored candidate nodes, ambiguity kept.

Strongest evidence first:

1. ids and xrefs (``HP:0001250``, ``CHEMBL192``, ``UNII:…``) anywhere in the text;
2. exact name keys of spans (case-, punctuation-, possessive- and salt-insensitive: ``VIAGRA``,
   ``sildenafil citrate``, ``Lange's``), forgiving one keyboard slip in one word of a span of
   several ("Decreased hpi abduction"); a qualified disease title also by its head, below its
   own names ("Spinal and bulbar muscular atrophy" for OMIM's "…, X-linked 1");
3. for what is left over once relation, type and grammar words are set aside: typo-tolerant
   matching over the lexicon's keys (rapidfuzz) for words that are not English, then the
   engine's full-text and vector indexes (meaning, not spelling: "high blood pressure" →
   Hypertension) where they are available.

Spans are chosen for the whole question, not one by one: a name of several words beats the
words inside it, and a span that is a single common English word ("lead", "severe", "human")
or a gene alias written as a plain word ("sting", "trade") is *weak*: kept and marked, used as
the question's subject only when nothing stronger was named (see :mod:`.text`). A quoted phrase
is one name: linked whole or reported unknown. A parenthesis right after a name restates it
("Oculopharyngeal muscular dystrophy (OPMD)"): merged with it when it names the same node,
dropped when it names another. A name-like word the graph does not know ("telomestatin") is
reported as a mention without candidates, so the answer can say it is not in the graph.

A span whose best candidates tie is ambiguous; all of them are returned with their scores, and
lower-ranked exact matches of the same span as the mention's alternatives.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise
from string import ascii_lowercase
from typing import Protocol

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from biokg.embedding.search import Reader
from biokg.errors import EmbeddingError, StoreError
from biokg.graph_agent import text as words
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.lexicon_build import RULE_SCORES
from biokg.graph_agent.linking_score import (
    GUESS_RULES,
    LinkScorer,
    SpanText,
    accept_all,
    features,
    slip_cost,
)
from biokg.graph_agent.models import SEARCH_RULES, Candidate, Mention
from biokg.graph_agent.question import Question
from biokg.graph_agent.text import mention_key, numbered

log = logging.getLogger(__name__)
MAX_SPAN_TOKENS = 24
#: Lower-ranked exact matches kept beside a mention's candidates (see Mention.alternatives).
MAX_ALTERNATIVES = 5
#: Numbered forms of a disease kept as alternatives ("Bartter syndrome, type 1" … "type 5").
MAX_FORMS = 20
_CURIE = re.compile(r"[A-Za-z][\w.]*:[\w.-]+")
_FORM = re.compile(r"(type |form |group )?\d{1,2}[a-z]?")
FUZZY_CUTOFF = 85.0
#: An index hit at least this good links a mention firmly: cosine 0.7 by meaning, or every
#: word shared by full text (searchers.py scales both below exact matches).
CONFIDENT_SEARCH_SCORE = 0.56
#: A name linked in parts is replaced by a whole name only this close to it (0-100).
WHOLE_NAME_CUTOFF = 90.0
FUZZY_WEIGHT = 0.85
#: A word is read as another lexicon word at this similarity (optimal string alignment: one
#: edit or swap in a four-letter word, two in an eight-letter one).
SPELL_SIMILARITY = 0.75
#: A known word this rare (uses in the lexicon) may still be a typo of a commoner word.
RARE_WORD_COUNT = 3
#: Words that cannot begin or end a name of several words without making it doubtful
#: ("Triggered by" in "often triggered by hyperthyroidism").
_EDGE_WORDS = frozenset("a an the of in by for with to on at from and or as is are".split())
_NAME_RULES = frozenset({"id", "xref"})
_GENE_ALIAS_RULES = frozenset({"symbol", "synonym"})


class Searcher(Protocol):
    """Maps left-over text to (node id, score in [0, 1]) pairs; ``rule`` names the method.

    ``read`` runs its queries (default: the store's own read; the agent passes its question's
    runner, so that index searches are logged with the question's other queries).
    """

    rule: str

    def __call__(self, text: str, read: Reader | None = None) -> list[tuple[str, float]]: ...


@dataclass(frozen=True)
class _Token:
    word: words.Token
    key: str
    corrected: bool = False
    #: Other readings of ``key``, each one word respelled: tried only inside a longer name.
    alts: tuple[str, ...] = ()
    #: ``key`` with a respelled word read as another word as few edits from it as the one
    #: chosen (no inflection of it): the other names the span may be, where they are names
    rivals: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return self.word.text


@dataclass(frozen=True)
class Decision:
    """One scored (span, candidate) pair, as :attr:`EntityLinker.trace` records it."""

    span: str
    start: int
    end: int
    candidate: Candidate
    features: dict[str, float]
    probability: float
    #: an exact name of several words: linked whatever its probability
    trusted: bool = False
    #: other names as near to the span as this respelling (see :meth:`LinkScorer.probability`)
    rivals: int = 0


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    candidates: list[Candidate]
    weak: bool = False
    rejected: tuple[Candidate, ...] = ()  # what the scorer judged too far (no candidates)


class EntityLinker:
    """Links names in text to graph nodes through a :class:`Lexicon` and optional searchers."""

    def __init__(
        self,
        lexicon: Lexicon,
        *,
        cue_words: Iterable[str] = (),
        cue_phrases: Iterable[str] = (),
        cue_sequences: Iterable[tuple[str, ...]] = (),
        nouns: Iterable[str] = (),
        searchers: Iterable[Searcher] = (),
        scorer: LinkScorer | None = None,
        judge_exact_words: bool = True,
        reach: Callable[[Question], frozenset[str] | None] | None = None,
    ) -> None:
        self.lexicon = lexicon
        # None: every candidate the rules propose links (BIOKG_LINKING=rules, decision 0018)
        self.scorer = scorer or accept_all()
        #: whether an exact name of one content word is judged too (BIOKG_LINKING=scored) or
        #: only guesses are (respellings, index hits: ``guesses``), and a one-word name that
        #: qualifies an unknown word after it
        self.judge_exact_words = judge_exact_words
        #: when a list, every scored candidate is appended to it (for fitting the scorer)
        self.trace: list[Decision] | None = None
        self.ignored = words.STOP_WORDS | words.QUESTION_GRAMMAR | frozenset(cue_words)
        #: words that are a whole cue alone ("id"): never a name, however written
        self.cues = words.STOP_WORDS | words.QUESTION_GRAMMAR | frozenset(cue_phrases)
        self.nouns = frozenset(nouns)  # cue words that may end a name ("Hunter disease")
        self.sequences = frozenset(cue_sequences)  # cues of several words ("go term")
        self.searchers = tuple(searchers)
        #: the labels a question's relationship cues can join (a feature of every candidate)
        self.reach = reach
        self._reach: frozenset[str] | None = None

    def link(self, text: str, *, limit: int = 10, read: Reader | None = None) -> list[Candidate]:
        """Candidates for ``text`` taken as one name (``biokg search``), best first.

        ``read``: how index searches run their queries (see :class:`Searcher`).
        """
        tokens = [self._spelled(t) for t in words.tokens(text)]
        found = _top_tier(self._named(text, tokens)) if tokens else []
        if not found:
            found = self._fuzzy(text)
        if not found:
            found = self._search(text, read)
        return sorted(found, key=lambda c: (-c.score, c.id))[:limit]

    def mentions(self, question: Question, *, read: Reader | None = None) -> list[Mention]:
        """Every entity mention in a question, left to right, each with its candidates and the
        question's tokens it covers.

        ``read``: how index searches run their queries (see :class:`Searcher`).
        """
        self._reach = self.reach(question) if self.reach is not None else None
        tokens = [self._spelled(t) for t in question.tokens]
        spans = self._whole_phrases(question, tokens, self._exact_spans(question, tokens))
        # a span whose candidates the scorer rejected names nothing in the graph; the kind
        # of answer asked for ("with what polymerase?") is no name, known or unknown
        kind: set[int] = set() if question.asked_kind is None else {question.asked_kind}
        linked = {i for s in spans if s.candidates for i in range(s.start, s.end)} | kind
        # a common word the scorer would not link alone ("chronic": HPO's clinical course)
        # modifies the name after it, and the name is searched without it
        modifiers = {
            s.start
            for s in spans
            if s.rejected and s.end - s.start == 1 and words.is_common(tokens[s.start].text)
        }
        spans += self._leftover_spans(question, tokens, linked, read, modifiers)
        rejected: dict[int, list[Candidate]] = {}  # position: the guesses judged too far
        for span in (s for s in spans if not s.candidates):
            for i in range(span.start, span.end):
                rejected[i] = _closest([*rejected.get(i, ()), *span.rejected])
        spans = _restatements_merged(tokens, [s for s in spans if s.candidates])
        mentions = [self._mention(question, tokens, span) for span in spans]
        covered = {i for s in spans for i in range(s.start, s.end)} | kind
        for i in covered:
            rejected.pop(i, None)
        mentions += self._unknown(question, tokens, covered, rejected)
        return sorted(mentions, key=lambda m: m.tokens or (0, 0))

    def _grammar(self, key: str) -> bool:
        """A stop or question-grammar word."""
        return key in words.STOP_WORDS or key in words.QUESTION_GRAMMAR

    def _ignorable_or_number(self, key: str) -> bool:
        return key.isdigit() or self._ignorable(key)

    def _ignorable(self, key: str) -> bool:
        """A stop, grammar or cue word (compared as written and by lemma): no name alone."""
        return key in self.ignored or words.lemma(key) in self.ignored

    def _predicate_noun(self, question: Question, tokens: list[_Token], i: int) -> bool:
        """A label noun after "a"/"an" in a yes/no question ("Is BRCA1 a kinase?", "X is an
        enzyme"): it names a class of things, the claim's object, not the kind asked for;
        the lexicon may hold the class by that name (GO's "kinase activity" as "kinase")."""
        return (
            question.polar
            and i > 0
            and tokens[i - 1].key in ("a", "an")
            and words.lemma(tokens[i].key) in self.nouns
        )

    def _mention(self, question: Question, tokens: list[_Token], span: _Span) -> Mention:
        best = _top_tier(span.candidates)
        others = [c for c in span.candidates if c not in best]
        # titles qualifying a named disease ("Bartter syndrome, type 3") are its forms
        qualified = [c.model_copy(update={"rule": "form"}) for c in others if c.rule == "base"]
        rest = [c for c in others if c.rule != "base"] + self._namesakes(best)
        rest = _best_per_node(c for c in rest if c.id not in {b.id for b in best})
        taken = {c.id for c in (*best, *rest)}
        forms = [c for c in _best_per_node([*qualified, *self._forms(best)]) if c.id not in taken]
        return Mention(
            text=question.span_text(span.start, span.end),
            candidates=best,
            alternatives=rest[:MAX_ALTERNATIVES] + forms[:MAX_FORMS],
            weak=span.weak,
            tokens=(span.start, span.end),
        )

    def _forms(self, candidates: list[Candidate]) -> list[Candidate]:
        """Numbered forms of a disease: "Bartter syndrome, type 3" and "Coffin-Siris syndrome
        1" for "Bartter syndrome" and "Coffin-Siris syndrome" (genes and modes of inheritance
        are often annotated to the forms only)."""
        out = []
        for c in candidates:
            if c.label != "Disease":
                continue
            key = mention_key(c.name)
            for found in self.lexicon.keys_starting(f"{key} "):
                if not _FORM.fullmatch(found[len(key) + 1 :]):
                    continue
                out += [
                    self._candidate(e.id, "form", e.text, RULE_SCORES[e.rule] * c.score)
                    for e in self.lexicon.by_key[found]
                    if self.lexicon.label(e.id) == "Disease"
                ]
        return _best_per_node(out)

    def _namesakes(self, candidates: list[Candidate]) -> list[Candidate]:
        """Other nodes named exactly like a candidate: "high blood pressure" is a synonym of
        Hypertension the HPO phenotype, while drugs are indicated for Hypertension the disease."""
        return [
            self._candidate(entry.id, "namesake", c.name, RULE_SCORES["name"] * c.score)
            for c in candidates
            for entry in self.lexicon.by_key.get(mention_key(c.name), ())
            if entry.rule == "name" and entry.id != c.id
        ]

    def _exact_spans(self, question: Question, tokens: list[_Token]) -> list[_Span]:
        """Spans naming nodes exactly, chosen for the whole question: strong before weak,
        longer before shorter, better matched before worse; never overlapping."""
        found: list[_Span] = []
        in_cues = self._in_cues(tokens)
        for start in range(len(tokens)):
            for end in range(min(len(tokens), start + MAX_SPAN_TOKENS), start, -1):
                span = tokens[start:end]
                if all(self._grammar(t.key) or not t.key for t in span):
                    continue
                if question.asked_kind is not None and start <= question.asked_kind < end:
                    continue  # "what polymerase": the kind of answer asked for
                if len(span) == 1 and start in in_cues:
                    continue  # "GO" of "GO terms": a word of a cue that is there
                if len(span) == 1 and _qualifies_a_type(tokens, start):
                    continue  # "II" of "syndrome type II" (a gene alias too): the type's number
                if len(span) == 1 and words.greek_qualifier(span[0].text):
                    continue  # "β1" of "TGF-β1": a qualifier, no name of its own
                # "Is X a kinase?": the noun names the class the claim is about, no cue
                if (
                    len(span) == 1
                    and self._ignorable(span[0].key)
                    and not self._predicate_noun(question, tokens, start)
                ):
                    # a word of a cue ("trade" of "trade name") written like a symbol is one
                    # ("TRADE"); a whole cue ("ID") is not; a lemma that is a stop word is the
                    # lemmatizer's reading of a symbol, no cue ("INS", insulin's, read "in")
                    token, lemma = span[0], words.lemma(span[0].key)
                    symbol = words.looks_like_symbol(token.text)
                    cue = token.key in self.cues or (
                        lemma in self.cues and lemma not in words.STOP_WORDS
                    )
                    if not symbol or cue:
                        continue
                if not _respects_quotes_and_brackets(tokens, start, end):
                    continue
                if _inside_an_eponym(question, tokens, start):
                    continue
                candidates = self._named(question.span_text(start, end), span)
                candidates = self._plausible(span, candidates)
                weak = self._weak(span, candidates)
                if candidates:  # kept when rejected: a whole name may still hold it
                    decided = self._decide(question, tokens, start, end, candidates)
                    rejected = () if decided else tuple(candidates)
                    found.append(_Span(start, end, decided, weak, rejected))
        found.sort(key=lambda s: (not s.candidates, s.weak, -(s.end - s.start), -_best(s), s.start))
        chosen: list[_Span] = []
        for span in found:
            if all(span.end <= s.start or span.start >= s.end for s in chosen):
                chosen.append(span)
        return chosen

    def _in_cues(self, tokens: list[_Token]) -> set[int]:
        """Positions of the words of multi-word cues that occur in the question."""
        forms = [(t.key, words.lemma(t.key)) for t in tokens]
        out: set[int] = set()
        for sequence in self.sequences:
            n = len(sequence)
            for start in range(len(tokens) - n + 1):
                if all(w in forms[start + i] for i, w in enumerate(sequence)):
                    out.update(range(start, start + n))
        return out

    def _whole_phrases(
        self, question: Question, tokens: list[_Token], spans: list[_Span]
    ) -> list[_Span]:
        """A name linked only in parts ("Facioscapulohumeral [Muscular Dystrophy] type 2") is
        tried whole, forgiving spelling and word order: a close whole name replaces the parts.

        Only runs of words without stop or grammar words are tried, and only when some content
        word of the run is left unlinked.
        """
        out = list(spans)
        for start, end in _phrase_runs(tokens):
            inside = [s for s in out if start <= s.start and s.end <= end]
            linked = {i for s in inside for i in range(s.start, s.end)}
            loose = [
                i
                for i in range(start, end)
                if i not in linked and not self._ignorable(tokens[i].key)
            ]
            if not inside or not loose:
                continue
            found = self._fuzzy(
                question.span_text(start, end), word_order=False, cutoff=WHOLE_NAME_CUTOFF
            )
            # a whole name must be new and hold the words the parts left loose: "dampens
            # [blood vessel … differentiation]" and "behind [Congenital disorder of
            # glycosylation, type Im]" add a word to a name, not a name; the parts stay
            parts = {c.id for s in inside for c in s.candidates}
            found = [c for c in found if c.id not in parts and _holds(c, tokens, loose)]
            if found:
                out = [s for s in out if s not in inside] + [_Span(start, end, found)]
        return out

    def _plausible(self, span: list[_Token], candidates: list[Candidate]) -> list[Candidate]:
        """Drop gene aliases written as a plain English word ("sting", "trade", "damage"):
        symbols and aliases name a gene when written like one ("STING"), or in lower case when
        the word is no everyday English ("apoe", "dmd", "mtor")."""
        if len(span) != 1 or words.looks_like_symbol(span[0].text):
            return candidates
        if not words.is_everyday(span[0].text):
            return candidates
        return [c for c in candidates if not (c.label == "Gene" and c.rule in _GENE_ALIAS_RULES)]

    def _weak(self, span: list[_Token], candidates: list[Candidate]) -> bool:
        """A single common English word, a short alias (``RA``, ``D4``: three characters or
        fewer, matched only as a synonym), a name made only of question words ("autosomal
        dominant": also how people ask about inheritance), or a name that begins or ends with a
        function word."""
        if any(c.rule in _NAME_RULES for c in candidates):
            return False
        if all(self._ignorable(t.key) for t in span):
            return True
        if len(span) == 1:
            written = span[0].text
            if len(written) <= 3 and all(c.rule == "synonym" for c in candidates):
                return True
            return words.is_common(written) and not words.looks_like_symbol(written)
        return span[0].key in _EDGE_WORDS or span[-1].key in _EDGE_WORDS

    def _decide(
        self,
        question: Question,
        tokens: list[_Token],
        start: int,
        end: int,
        candidates: list[Candidate],
    ) -> list[Candidate]:
        """The span's candidates if the scorer links it (see :mod:`.linking_score`), none when
        it names nothing in the graph: one decision per span, on its best candidate, so that the
        exact namesakes below it stay as the mention's alternatives.

        Guesses (respellings, index hits) and exact names of one content word are judged (with
        ``judge_exact_words`` off, only those followed in their phrase by an uncommon word the
        name lacks: "insulin trampoline" names no insulin); an exact name of two content words
        or more is trusted (scored and traced, never dropped: see
        docs/decisions/0018-scored-linking.md).
        """
        if not candidates:
            return []
        run = tokens[start:end]
        context, after = self._context(question, tokens, start, end)
        span = SpanText(
            written=tuple(t.text for t in run),
            keys=tuple(t.key for t in run),
            content=tuple(bool(t.key) and not self._ignorable_or_number(t.key) for t in run),
            context=context,
            after=after,
            reach=self._reach,
        )
        if not any(span.content):
            return candidates  # cue words only ("autosomal dominant"): the question's grammar
        linked = False
        named = self._rival_names(run) if any(c.rule == "fuzzy" for c in candidates) else set()
        for candidate in candidates:
            values = features(span, candidate, self.lexicon.word_counts.__getitem__)
            # the candidate's own name and its family ("Noonan syndrome 4" beside "Noonan
            # syndrome 1") are no rivals of it
            own = _family(mention_key(candidate.matched))
            rivals = len(named - {own}) if candidate.rule == "fuzzy" else 0
            probability = self.scorer.probability(values, rivals=rivals)
            trusted = candidate.rule not in GUESS_RULES and (
                sum(span.content) > 1 or not (self.judge_exact_words or span.after)
            )
            if self.trace is not None:
                self.trace.append(
                    Decision(span.text, start, end, candidate, values, probability, trusted, rivals)
                )
            linked = linked or trusted or probability >= self.scorer.threshold
        return candidates if linked else []

    def _context(
        self, question: Question, tokens: list[_Token], start: int, end: int
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The content words around the span in the phrase it stands in: the runs of words
        without a stop or grammar word that it overlaps, less the span, cue words and inflected
        words and common English (a verb beside a name, "-s", "-ed" or not, is the question's
        grammar, not the name's; so is the verb that ends "What does X dampen?"). None for a
        span of three content words or more: a name that long, named exactly, is no fragment of
        an unknown one. Second: those after the span."""
        if sum(1 for t in tokens[start:end] if not self._ignorable_or_number(t.key)) > 2:
            return (), ()
        near = [
            (i, w)
            for a, b in _word_runs(tokens)
            if a < end and start < b
            for i in range(a, b)
            if not start <= i < end and i != question.final_verb
            if tokens[i].key and not self._ignorable_or_number(tokens[i].key)
            for w in mention_key(tokens[i].text).split()
            if words.lemma(w) == w and not words.is_common(w)
        ]
        return tuple(w for _, w in near), tuple(w for i, w in near if i >= end)

    def _named(self, text: str, span: list[_Token]) -> list[Candidate]:
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
        candidates = self._exact(text, key=key)
        if not candidates and keys and (head := _singular(keys[-1])) != keys[-1]:
            # a plural head is the name's own ("protein kinases", "growth factors"): names are
            # singular, and an inflection the graph's names also use ("factors") is not
            # replaced by its lemma when the word is spelled (see _spelled)
            candidates = self._exact(text, key=" ".join([*keys[:-1], head]))
        if not candidates and " " in key and words.one_word(text):
            # its pieces joined meet an alias written with other dashes or none ("IL-1β" is
            # "IL1-BETA", "NF-κB" "NFkappaB"; the lexicon keys both so)
            candidates = self._exact(text, key=key.replace(" ", ""))
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
        self,
        question: Question,
        tokens: list[_Token],
        covered: set[int],
        read: Reader | None,
        modifiers: set[int],
    ) -> list[_Span]:
        """Runs of words that are neither linked nor stop or grammar words (nor only cue words):
        typos of names (fuzzy) and descriptions (the engine's indexes). A single word is
        searched only if it could be a name on its own: not common English, not an adjective
        or participle ("ciliary", "encoded"); a word written like a symbol is no typo of a
        gene."""
        out = []
        for start, end in self._free_runs(tokens, covered):
            while start < end and (
                self._ignorable_or_number(tokens[start].key)
                or (start in modifiers and start + 1 < end)
            ):
                start += 1  # "3 symptoms of", "chronic angina": no name yet
            while end > start and self._ignorable(tokens[end - 1].key):
                if words.lemma(tokens[end - 1].key) in self.nouns:
                    break  # "Hunter's disease": a noun may end a name
                end -= 1  # "pembrolizumab treats": a verb does not
            run = tokens[start:end]
            if all(self._ignorable_or_number(t.key) for t in run):
                continue  # "protein function": question words, no name
            if any(_CURIE.fullmatch(t.text) for t in run):
                continue  # an identifier not in the graph is unknown, not a phrase
            text = question.span_text(start, end)
            if any(t.corrected for t in run):  # "pannexins": searched as "pannexin"
                text = " ".join(t.key for t in run)
            if len(mention_key(text)) < 4:
                continue
            candidates: list[Candidate] = []
            # a lone word written like a symbol is no typo of a gene: a symbol or alias one
            # letter from a gene's name is another gene ("ARTEMIS" is not artemin)
            if any(not words.is_english(t.text) for t in run):
                candidates = self._fuzzy(text)
                if len(run) == 1 and words.looks_like_symbol(run[0].text):
                    candidates = [c for c in candidates if c.label != "Gene"]
            proposed = list(candidates)
            candidates = self._decide(question, tokens, start, end, candidates)
            if not candidates and (len(run) > 1 or words.could_be_a_name(run[0].text)):
                # a respelling the scorer rejected may still be a description of another
                # node; the index's hit on a node just judged as a respelling ("Dravex
                # syndrome": Dravet syndrome) is the same guess, and the judgement stands
                judged = {c.id for c in proposed}
                searched = [
                    c
                    for c in self._names_sharing_a_word(run, self._search(text, read))
                    if c.id not in judged
                ]
                proposed += searched
                candidates = self._decide(question, tokens, start, end, searched)
            if proposed and not candidates:  # rejected: not in the graph
                out.append(_Span(start, end, [], rejected=tuple(proposed)))
                continue
            doubtful = bool(candidates) and _doubtful(candidates)
            if doubtful and len(run) == 1 and words.looks_like_a_name(run[0].text):
                continue  # "Herceptin" near "visual perception": an unknown name, not a guess
            if doubtful and self._another_proper_name(run, candidates):
                continue  # "Eagle-Barrett syndrome" near "Cohen syndrome": another eponym
            if candidates:
                out.append(_Span(start, end, candidates, weak=doubtful))
        return out

    def _another_proper_name(self, run: list[_Token], candidates: list[Candidate]) -> bool:
        """Whether the run is written as a proper name (capitalised words besides cues) that
        no candidate's name holds whole: names carry no meaning, so a guess by meaning, by the
        cue word ("syndrome") or by half the name ("Barrett esophagus" for "Eagle-Barrett
        syndrome") names another entity."""
        proper = {
            words.stem(w)
            for t in run
            if t.text[:1].isupper() and not self._ignorable(t.key)
            for w in t.key.split()
        }
        return bool(proper) and not any(proper <= _name_words(c) for c in candidates)

    def _names_sharing_a_word(
        self, run: list[_Token], candidates: list[Candidate]
    ) -> list[Candidate]:
        """Full-text hits that share a word of the run other than a cue: "ARTEMIS gene" is no
        mention of "gene expression" (the cue noun "gene" may end a name, it names nothing)."""
        own = {words.stem(w) for t in run if not self._ignorable(t.key) for w in t.key.split()}
        return [c for c in candidates if c.rule != "fulltext" or own & _name_words(c)]

    def _free_runs(self, tokens: list[_Token], covered: set[int]) -> list[tuple[int, int]]:
        runs, start = [], None
        for i in range(len(tokens) + 1):
            free = (
                i < len(tokens)
                and i not in covered
                and not self._grammar(tokens[i].key)
                and not tokens[i].word.quoted
            )
            if free and start is None:
                start = i
            elif not free and start is not None:
                runs.append((start, i))
                start = None
        return runs

    def _unknown(
        self,
        question: Question,
        tokens: list[_Token],
        covered: set[int],
        rejected: dict[int, list[Candidate]],
    ) -> list[Mention]:
        """Names the graph does not know: a quoted phrase not linked whole, and words that are
        neither English nor in the lexicon nor a respelling of a lexicon word the scorer kept
        (``rejected``: positions of spans whose candidates it rejected, with those candidates,
        which the mention keeps as the closest names)."""
        out: list[Mention] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if i in covered:
                i += 1
                continue
            if token.word.quoted:
                end = i
                while end < len(tokens) and tokens[end].word.quoted and end not in covered:
                    end += 1
                out.append(Mention(text=question.span_text(i, end), candidates=[], tokens=(i, end)))
                i = end
                continue
            # a rejected word as written, not as respelled: a word the graph's names use
            # ("exosomal", "dismutase") is the graph's vocabulary, no unknown name
            written = mention_key(token.text) if i in rejected else token.key
            unknown = (
                not self._ignorable(token.key)
                and (not token.corrected or i in rejected)
                and len(token.key) >= 4
                and not any(w in self.lexicon.words for w in written.split())
                and words.looks_like_a_name(token.text)
            )
            if unknown:
                closest = rejected.get(i, [])
                out.append(
                    Mention(text=token.text, candidates=[], tokens=(i, i + 1), rejected=closest)
                )
            i += 1
        return out

    def _spelled(self, word: words.Token) -> _Token:
        """The token's key with unknown words respelled, and other readings of known words.

        An unknown word is read as its closest lexicon word, unless it is common English
        ("contain" is no typo of the gene alias "CONTRIN"), or written like a symbol and one
        letter from a word only genes use (another gene's). A known word may still be a typo
        of another one slip away ("hpi" for "hip", "fo" for "of", "mats" for "mast", "mael" for
        "male"), or a rare word close to a commoner one ("neurla" is a gene synonym, "neural" was
        meant).
        Those readings are kept as ``alts`` and used only when they complete a longer name.
        """
        original = mention_key(word.text).split()
        symbol = words.looks_like_symbol(word.text)
        counts = self.lexicon.word_counts
        key: list[str] = []
        readings: list[set[str]] = []
        respelled = False
        rivals: list[tuple[int, str]] = []
        for token in original:
            others = set()
            if not self._ignorable(token) and not token.isdigit():
                base = words.lemma(token)
                if token not in self.lexicon.words and base in self.lexicon.words:
                    # an inflection of the graph's word is that word, no slip ("myotonias")
                    key.append(base)
                    readings.append(set())
                    continue
                others = _one_slip(token) & self.lexicon.words
                if len(token) >= 4 and counts[token] <= RARE_WORD_COUNT:
                    closest, near = self._closest_word(token)
                    # a symbol one letter from a gene's word is another gene's ("ARTEMIS" is
                    # no typo of artemin); capitals are also how ChEMBL writes drug names
                    gene = symbol and self.lexicon.word_label(closest) == "Gene"
                    if token not in self.lexicon.words and not (words.is_common(token) or gene):
                        respelled = respelled or closest != token
                        rivals += [(len(key), other) for other in near]
                        token = closest
                    elif counts[closest] > counts[token] or token not in self.lexicon.words:
                        others.add(closest)  # common English ("contain") is no typo on its own
            key.append(token)
            readings.append(others - {token})
        alts = tuple(
            " ".join([*key[:i], other, *key[i + 1 :]])
            for i, others in enumerate(readings)
            for other in sorted(others)
        )
        others_read = tuple(" ".join([*key[:i], other, *key[i + 1 :]]) for i, other in rivals)
        return _Token(word, " ".join(key), corrected=respelled, alts=alts, rivals=others_read)

    def _closest_word(self, word: str) -> tuple[str, list[str]]:
        """The most similar other lexicon word, or ``word`` itself; on a tie the one reached by
        typing slips ("mitochondrium": mitochondrion, not mitochondrial), then the commoner.
        Second: the other words of the options as few edits away, inflections of it aside."""
        options = process.extract(
            word,
            self.lexicon.word_list,
            scorer=OSA.normalized_similarity,
            score_cutoff=SPELL_SIMILARITY,
            limit=4,
        )
        others = sorted(
            (o for o in options if o[0] != word),
            key=lambda o: (-o[1], slip_cost(word, o[0]), -self.lexicon.word_counts[o[0]], o[0]),
        )
        if not others:
            return word, []
        closest = others[0][0]
        edits = OSA.distance(word, closest)
        return closest, [
            o[0]
            for o in others[1:]
            if OSA.distance(word, o[0]) == edits and not _same_word(o[0], closest)
        ]

    def _rival_names(self, run: list[_Token]) -> set[tuple[str, ...]]:
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
        named = {_family(key) for key in readings if key in self.lexicon.by_key}
        return named - {_family(" ".join(keys))}

    def _exact(self, text: str, *, key: str | None = None) -> list[Candidate]:
        lexicon = self.lexicon
        node = lexicon.by_id.get(text.strip().casefold())
        if node is not None:
            return [self._candidate(node, "id", text, RULE_SCORES["id"])]
        return _best_per_node(
            self._candidate(entry.id, entry.rule, entry.text, RULE_SCORES[entry.rule])
            for entry in lexicon.by_key.get(key if key is not None else mention_key(text), ())
        )

    def _fuzzy(
        self, text: str, *, word_order: bool = True, cutoff: float = FUZZY_CUTOFF
    ) -> list[Candidate]:
        """Names spelt like ``text`` (edit similarity ≥ FUZZY_CUTOFF); ``word_order=False``
        also forgives words in another order ("Kaufman-McKusick" for "McKusick-Kaufman")."""
        key = mention_key(text)
        if len(key) < 4:
            return []
        scorer = fuzz.ratio if word_order else fuzz.token_sort_ratio
        hits = process.extract(
            key, self.lexicon.fuzzy_keys, scorer=scorer, score_cutoff=cutoff, limit=5
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
                self._candidate(node, searcher.rule, text, round(score, 4))
                for node, score in hits
                if node in self.lexicon.nodes
            ]
        return _top_tier(_best_per_node(found))

    def _candidate(self, node: str, rule: str, matched: str, score: float) -> Candidate:
        label, name = self.lexicon.nodes[node]
        return Candidate(id=node, label=label, name=name, score=score, rule=rule, matched=matched)


def _holds(candidate: Candidate, tokens: list[_Token], loose: list[int]) -> bool:
    """Whether the name matched holds most of the loose words, spelt alike ("bulbar",
    "Kaufman"; "serum" of "increased levels of serum alpha fetoprotein" may be missing, the
    one verb of "dampens <a GO term>" may not)."""
    named = mention_key(candidate.matched).split()
    asked = [word for i in loose for word in tokens[i].key.split()]
    held = [w for w in asked if any(fuzz.ratio(w, o) >= SPELL_SIMILARITY * 100 for o in named)]
    return 2 * len(held) > len(asked)


def _phrase_runs(tokens: list[_Token]) -> list[tuple[int, int]]:
    """Maximal runs of two or more words with no stop or grammar word, not crossing a
    parenthesis or a quote; then pairs of words or runs joined by one "of", as names join
    their parts ("increased levels of serum alpha fetoprotein": a phenotype, not the gene
    its last words name)."""
    bounds = _word_runs(tokens)
    runs = [(start, end) for start, end in bounds if end - start >= 2]
    joined = [
        (left[0], right[1])
        for left, right in pairwise(bounds)
        if right[0] == left[1] + 1
        and tokens[left[1]].key == "of"
        and _region(tokens[left[0]]) == _region(tokens[right[0]])
    ]
    return runs + joined


def _word_runs(tokens: list[_Token]) -> list[tuple[int, int]]:
    """Maximal runs of words that are no stop or grammar word, not crossing a parenthesis or a
    quote."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for i, token in enumerate(tokens):
        plain = not (token.key in words.STOP_WORDS or token.key in words.QUESTION_GRAMMAR)
        if start is not None and (not plain or _region(token) != _region(tokens[start])):
            runs.append((start, i))
            start = None
        if plain and start is None:
            start = i
    if start is not None:
        runs.append((start, len(tokens)))
    return runs


def _region(token: _Token) -> tuple[bool, bool]:
    return token.word.parenthesised, token.word.quoted


def _inside_an_eponym(question: Question, tokens: list[_Token], start: int) -> bool:
    """Whether a span would start inside a double-barrelled name: "Barrett syndrome" of
    "Eagle-Barrett syndrome", "Opitz syndrome" of "Smith-Lemli-Opitz syndrome" (capitalised
    pieces joined by a dash are one name; "anti-TNF" and "non-Hodgkin" are not such pieces)."""
    if start == 0:
        return False
    before, here = tokens[start - 1].word, tokens[start].word
    joined = before.end + 1 == here.start and question.text[before.end] in "-\u2013"
    return joined and before.text[:1].isupper() and here.text[:1].isupper()


def _qualifies_a_type(tokens: list[_Token], i: int) -> bool:
    """The token is a type's number or letter after its type word ("type II", "group B")."""
    return i > 0 and tokens[i - 1].key in words.TYPE_WORDS and words.designator(tokens[i].key)


def _respects_quotes_and_brackets(tokens: list[_Token], start: int, end: int) -> bool:
    """A span lies wholly inside or wholly outside a quoted phrase, takes a quoted phrase
    whole, and does not run from outside a parenthesis into it or out of one (a whole
    parenthesis inside a name is part of it: "Leri-Weill dyschondrostosis (LWD) - SHOX"; a name
    may end with one: "acetylcholinesterase (Cartwright blood group)")."""
    span = tokens[start:end]
    inside = [t.word.parenthesised for t in span]
    closed = end == len(tokens) or not tokens[end].word.parenthesised
    if len(set(inside)) > 1 and (inside[0] or (inside[-1] and not closed)):
        return False
    if not any(t.word.quoted for t in span):
        return True
    if not all(t.word.quoted for t in span):
        return False
    before = start == 0 or not tokens[start - 1].word.quoted
    after = end == len(tokens) or not tokens[end].word.quoted
    return before and after


def _restatements_merged(tokens: list[_Token], spans: list[_Span]) -> list[_Span]:
    """A parenthesised span right after a linked span restates it: kept inside that mention
    when it names the same node ("(PCK1)"), dropped when it names another ("(OPMD)", an alias
    of a gene, after the disease's name)."""
    by_start = sorted(spans, key=lambda s: s.start)
    kept: list[_Span] = []
    for span in by_start:
        previous = kept[-1] if kept else None
        restates = (
            previous is not None
            and tokens[span.start].word.parenthesised
            and not tokens[previous.end - 1].word.parenthesised
            and span.start - previous.end <= 1
        )
        if not restates:
            kept.append(span)
            continue
        shared = {c.id for c in previous.candidates} & {c.id for c in span.candidates}
        if shared:  # the two names agree: the node they share
            agreed = [c for c in previous.candidates if c.id in shared]
            kept[-1] = _Span(previous.start, span.end, agreed, previous.weak and span.weak)
    return kept


def _name_words(candidate: Candidate) -> set[str]:
    """The candidate's name, word by word, stemmed."""
    return {words.stem(w) for w in mention_key(candidate.name).split()}


def _doubtful(candidates: list[Candidate]) -> bool:
    """Index hits below :data:`CONFIDENT_SEARCH_SCORE`: a guess, not a name."""
    searched = all(c.rule in SEARCH_RULES for c in candidates)
    return searched and max(c.score for c in candidates) < CONFIDENT_SEARCH_SCORE


def _family(key: str) -> tuple[str, ...]:
    """A name key without its type numbers and letters."""
    return tuple(w for w in key.split() if not words.designator(w))


def _same_word(one: str, other: str) -> bool:
    """Inflections or derivations of one word ("mitochondria", "mitochondrial" beside
    "mitochondrion"): all but their last three letters alike, five at least."""
    shared = next(
        (i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
        min(len(one), len(other)),
    )
    return shared >= max(5, min(len(one), len(other)) - 3)


def _best(span: _Span) -> float:
    return max((c.score for c in span.candidates), default=0.0)


def _singular(word: str) -> str:
    """A plural noun's singular ("kinases", "analyses"), else the word itself: only a plural,
    so that "sneezing" stays a word of its own."""
    return words.lemma(word) if word.endswith("s") else word


def _one_slip(word: str) -> set[str]:
    """Every word one keyboard slip away: two neighbouring letters swapped, or one letter
    dropped, added or replaced."""
    cuts = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    slips = {a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1}
    slips |= {a + b[1:] for a, b in cuts if b}
    slips |= {a + c + b[1:] for a, b in cuts if b for c in ascii_lowercase}
    slips |= {a + c + b for a, b in cuts for c in ascii_lowercase}
    return slips - {word, ""}


def _closest(candidates: Iterable[Candidate], *, limit: int = 3) -> list[Candidate]:
    """The best few of the candidates the scorer rejected, one per node, best first."""
    return _best_per_node(candidates)[:limit]


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
