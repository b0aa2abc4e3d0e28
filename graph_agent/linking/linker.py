"""The entity linker: spans of a question chosen for the whole question, each decided by the
scorer, and the names the graph does not know (see the package docstring)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from biokg.core.embedding.search import Reader
from biokg.graph_agent import text as words
from biokg.graph_agent.intent import QuestionReader, Reading
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking.candidates import (
    WHOLE_NAME_CUTOFF,
    CandidateFinder,
    Searcher,
    best_per_node,
    closest,
    doubtful,
    family,
    holds,
    name_words,
    top_tier,
)
from biokg.graph_agent.linking.features import (
    GUESS_RULES,
    LinkScorer,
    SpanText,
    default_scorer,
    features,
)
from biokg.graph_agent.linking.spans import (
    Span,
    Token,
    free_runs,
    inside_an_eponym,
    phrase_runs,
    qualifies_a_type,
    respects_quotes_and_brackets,
    restatements_merged,
    word_runs,
)
from biokg.graph_agent.linking.spelling import Speller
from biokg.graph_agent.models import Candidate, Mention
from biokg.graph_agent.question import Question
from biokg.graph_agent.text import mention_key

MAX_SPAN_TOKENS = 24
#: Lower-ranked exact matches kept beside a mention's candidates (see Mention.alternatives).
MAX_ALTERNATIVES = 5
#: Numbered forms of a disease kept as alternatives (a syndrome's type 1 to type 5, say).
MAX_FORMS = 20
_CURIE = re.compile(r"[A-Za-z][\w.]*:[\w.-]+")
#: Words that cannot begin or end a name of several words without making it doubtful
#: ("Caused by" in "often caused by infection").
_EDGE_WORDS = frozenset("a an the of in by for with to on at from and or as is are".split())
_NAME_RULES = frozenset({"id", "xref"})
_GENE_ALIAS_RULES = frozenset({"symbol", "synonym"})


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
        drug_nouns: Iterable[str] = (),
        searchers: Iterable[Searcher] = (),
        scorer: LinkScorer | None = None,
        judge_exact_words: bool = False,
    ) -> None:
        #: the shipped scorer unless given (``accept_all`` links every candidate proposed:
        #: benchmarks/fit_linking.py collects features so)
        self.scorer = scorer or default_scorer()
        #: whether an exact name of one content word is judged too (BIOKG_LINKING=scored) or
        #: only guesses are (respellings, index hits: ``guesses``), and a one-word name that
        #: qualifies an unknown word after it
        self.judge_exact_words = judge_exact_words
        #: when a list, every scored candidate is appended to it (for fitting the scorer)
        self.trace: list[Decision] | None = None
        self.ignored = words.STOP_WORDS | words.QUESTION_GRAMMAR | frozenset(cue_words)
        #: words that are a whole cue alone ("id"): never a name, however written
        self.cues = words.STOP_WORDS | words.QUESTION_GRAMMAR | frozenset(cue_phrases)
        self.nouns = frozenset(nouns)  # cue words that may end a name (an eponym's disease)
        #: the head nouns of kinds of drugs ("inhibitor", "medicine")
        self.drug_nouns = frozenset(drug_nouns)
        self.sequences = frozenset(cue_sequences)  # cues of several words ("go term")
        self.finder = CandidateFinder(lexicon, searchers)
        self.speller = Speller(lexicon, self._ignorable)
        #: the labels the question's relationship cues can join (a feature of every candidate):
        #: the reading's, for the question being linked
        self._reach: frozenset[str] | None = None

    @classmethod
    def reading_with(
        cls,
        lexicon: Lexicon,
        reader: QuestionReader,
        *,
        searchers: Iterable[Searcher] = (),
        judge_exact_words: bool = False,
    ) -> EntityLinker:
        """A linker whose cue words and label nouns are the reader's: every cue of schema/,
        so that what a question's cues say is never taken for a name."""
        return cls(
            lexicon,
            cue_words=reader.cue_words,
            cue_phrases=reader.cue_phrases,
            cue_sequences=reader.cue_sequences,
            nouns=reader.nouns,
            drug_nouns=reader.label_nouns("Drug"),
            searchers=searchers,
            judge_exact_words=judge_exact_words,
        )

    @property
    def lexicon(self) -> Lexicon:
        """The names the linker knows; replacing it (a build changed the graph) replaces them
        for every generator."""
        return self.finder.lexicon

    @lexicon.setter
    def lexicon(self, lexicon: Lexicon) -> None:
        self.finder.lexicon = self.speller.lexicon = lexicon

    @property
    def searchers(self) -> tuple[Searcher, ...]:
        """The engine's index searchers the linker falls back on (their models load lazily)."""
        return self.finder.searchers

    def link(self, text: str, *, limit: int = 10, read: Reader | None = None) -> list[Candidate]:
        """Candidates for ``text`` taken as one name (``biokg search``), best first.

        ``read``: how index searches run their queries (see :class:`Searcher`).
        """
        tokens = [self.speller.spelled(t) for t in words.tokens(text)]
        found = top_tier(self.finder.named(text, tokens)) if tokens else []
        if not found:
            found = self.finder.fuzzy(text)
        if not found:
            found = self.finder.search(text, read)
        return sorted(found, key=lambda c: (-c.score, c.id))[:limit]

    def mentions(
        self, question: Question, reading: Reading | None = None, *, read: Reader | None = None
    ) -> list[Mention]:
        """Every entity mention in a question, left to right, each with its candidates and the
        question's tokens it covers.

        ``reading``: the question's reading (:meth:`QuestionReader.understand`); without one
        no candidate is judged by whether the question's relationships reach its label (a
        phrase linked apart from a question: a described patient's feature). ``read``: how
        index searches run their queries (see :class:`Searcher`).
        """
        self._reach = reading.reach if reading is not None else None
        tokens = [self.speller.spelled(t) for t in question.tokens]
        spans = self._whole_phrases(question, tokens, self._exact_spans(question, tokens))
        # a span whose candidates the scorer rejected names nothing in the graph; the kind
        # of answer asked for ("by what enzyme?") is no name, known or unknown
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
                rejected[i] = closest([*rejected.get(i, ()), *span.rejected])
        spans = restatements_merged(tokens, [s for s in spans if s.candidates])
        spans = self._acted_on(question, tokens, spans)
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

    def _acted_on(self, question: Question, tokens: list[Token], spans: list[Span]) -> list[Span]:
        """In a yes/no question about a drug, a kind of drug named by what it acts on or is for
        ("a kinase inhibitor") claims the drug is related to that, so the words before the
        drug noun name the claim's object: linked alone when they name something, not as a
        whole name of another kind of node (GO's activity of that name is a protein's)."""
        first = min(spans, key=lambda s: s.start, default=None)
        drug_first = first is not None and {c.label for c in top_tier(first.candidates)} == {"Drug"}
        if not (question.polar and drug_first and self.drug_nouns):
            return spans
        out = []
        for span in spans:
            head = span.end - 1
            if (
                span is not first
                and span.end - span.start > 1
                and words.lemma(tokens[head].key) in self.drug_nouns
            ):
                acted = tokens[span.start : head]
                found = self.finder.named(question.span_text(span.start, head), acted)
                if found:
                    span = Span(span.start, head, found, weak=self._weak(acted, found))
            out.append(span)
        return out

    def _predicate_noun(self, question: Question, tokens: list[Token], i: int) -> bool:
        """A label noun after "a"/"an" in a yes/no question ("Is BRCA1 a kinase?", "X is an
        enzyme"): it names a class of things, the claim's object, not the kind asked for;
        the lexicon may hold the class by that name (GO's "kinase activity" as "kinase")."""
        return (
            question.polar
            and i > 0
            and tokens[i - 1].key in ("a", "an")
            and words.lemma(tokens[i].key) in self.nouns
        )

    def _mention(self, question: Question, tokens: list[Token], span: Span) -> Mention:
        best = top_tier(span.candidates)
        others = [c for c in span.candidates if c not in best]
        # titles qualifying a named disease (its numbered types) are its forms
        qualified = [c.model_copy(update={"rule": "form"}) for c in others if c.rule == "base"]
        rest = [c for c in others if c.rule != "base"] + self.finder.namesakes(best)
        rest = best_per_node(c for c in rest if c.id not in {b.id for b in best})
        taken = {c.id for c in (*best, *rest)}
        forms = [
            c for c in best_per_node([*qualified, *self.finder.forms(best)]) if c.id not in taken
        ]
        return Mention(
            text=question.span_text(span.start, span.end),
            candidates=best,
            alternatives=rest[:MAX_ALTERNATIVES] + forms[:MAX_FORMS],
            weak=span.weak,
            tokens=(span.start, span.end),
        )

    def _exact_spans(self, question: Question, tokens: list[Token]) -> list[Span]:
        """Spans naming nodes exactly, chosen for the whole question: strong before weak,
        longer before shorter, better matched before worse; never overlapping."""
        proposed: list[tuple[int, int, list[Candidate], bool]] = []
        found: list[Span] = []
        in_cues = self._in_cues(tokens)
        for start in range(len(tokens)):
            for end in range(min(len(tokens), start + MAX_SPAN_TOKENS), start, -1):
                span = tokens[start:end]
                if all(self._grammar(t.key) or not t.key for t in span):
                    continue
                if question.asked_kind is not None and start <= question.asked_kind < end:
                    continue  # "what enzyme": the kind of answer asked for
                if len(span) == 1 and start in in_cues:
                    continue  # "GO" of "GO terms": a word of a cue that is there
                if len(span) == 1 and qualifies_a_type(tokens, start):
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
                if not respects_quotes_and_brackets(tokens, start, end):
                    continue
                if inside_an_eponym(question, tokens, start):
                    continue
                candidates = self.finder.named(question.span_text(start, end), span)
                if candidates:  # kept when rejected: a whole name may still hold it
                    proposed.append((start, end, candidates, self._weak(span, candidates)))
        # a word that is a name of its own ("glucokinase" in "Does glucokinase bind ATP?")
        # stands beside a span as another mention, not as an unnamed word of the span's phrase
        names = frozenset(
            i
            for start, end, candidates, weak in proposed
            if not weak and any(c.rule not in GUESS_RULES for c in candidates)
            for i in range(start, end)
        )
        for start, end, candidates, weak in proposed:
            decided = self._decide(question, tokens, start, end, candidates, names)
            rejected = () if decided else tuple(candidates)
            found.append(Span(start, end, decided, weak, rejected))
        found.sort(
            key=lambda s: (not s.candidates, s.weak, -(s.end - s.start), _rank_of(s), s.start)
        )
        chosen: list[Span] = []
        for span in found:
            if all(span.end <= s.start or span.start >= s.end for s in chosen):
                chosen.append(span)
        return chosen

    def _in_cues(self, tokens: list[Token]) -> set[int]:
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
        self, question: Question, tokens: list[Token], spans: list[Span]
    ) -> list[Span]:
        """A name linked only in parts (an eponym, a disease in brackets, a type number) is
        tried whole, forgiving spelling and word order: a close whole name replaces the parts.

        Only runs of words without stop or grammar words are tried, and only when some content
        word of the run is left unlinked.
        """
        out = list(spans)
        for start, end in phrase_runs(tokens):
            inside = [s for s in out if start <= s.start and s.end <= end]
            linked = {i for s in inside for i in range(s.start, s.end)}
            loose = [
                i
                for i in range(start, end)
                if i not in linked and not self._ignorable(tokens[i].key)
            ]
            if not inside or not loose:
                continue
            found = self.finder.fuzzy(
                question.span_text(start, end), word_order=False, cutoff=WHOLE_NAME_CUTOFF
            )
            # a whole name must be new and hold the words the parts left loose: "dampens
            # [blood vessel … differentiation]" and "behind [Congenital disorder of
            # glycosylation, type Im]" add a word to a name, not a name; the parts stay
            parts = {c.id for s in inside for c in s.candidates}
            found = [c for c in found if c.id not in parts and holds(c, tokens, loose)]
            if found:
                out = [s for s in out if s not in inside] + [Span(start, end, found)]
        return out

    def _weak(self, span: list[Token], candidates: list[Candidate]) -> bool:
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
        # an article ends no phrase: a last "A" is a letter of the name ("<family> member A")
        last = span[-1].key
        return span[0].key in _EDGE_WORDS or (last in _EDGE_WORDS and last != "a")

    def _decide(
        self,
        question: Question,
        tokens: list[Token],
        start: int,
        end: int,
        candidates: list[Candidate],
        names: frozenset[int] = frozenset(),
    ) -> list[Candidate]:
        """The span's candidates if the scorer links it (see :mod:`.features`), none when
        it names nothing in the graph: one decision per span, on its best candidate, so that the
        exact namesakes below it stay as the mention's alternatives. Each candidate carries its
        probability (shown with the mention; it orders overlapping spans of one length).
        Within a span the tiers stay those of how the name matched (decision 0027: the
        scorer, fitted to decide, barely tells a node's own name from another's synonym).

        Guesses (respellings, index hits) and exact names of one content word are judged (with
        ``judge_exact_words`` off, only those followed in their phrase by an uncommon word the
        name lacks: "insulin trampoline" names no insulin); an exact name of two content words
        or more is trusted (scored and traced, never dropped: see
        docs/decisions/0018-scored-linking.md). ``names``: positions of words that name a
        node exactly on their own, which are no context of another span.
        """
        if not candidates:
            return []
        run = tokens[start:end]
        context, after = self._context(question, tokens, start, end, names)
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
        judged: list[Candidate] = []
        named = (
            self.finder.rival_names(run) if any(c.rule == "fuzzy" for c in candidates) else set()
        )
        for candidate in candidates:
            values = features(span, candidate, self.lexicon.word_counts.__getitem__)
            # the candidate's own name and its family (its other numbered types) are no rivals
            # of it
            own = family(mention_key(candidate.matched))
            rivals = len(named - {own}) if candidate.rule == "fuzzy" else 0
            probability = self.scorer.probability(values, rivals=rivals)
            # a gene alias written as an English word ("sting", "trade") is a guess, judged
            # alone: it links only when the scorer passes it, whatever else the span names
            alias_word = bool(values["gene_alias_as_word"])
            trusted = (
                candidate.rule not in GUESS_RULES
                and not alias_word
                and (sum(span.content) > 1 or not (self.judge_exact_words or span.after))
            )
            if self.trace is not None:
                self.trace.append(
                    Decision(span.text, start, end, candidate, values, probability, trusted, rivals)
                )
            passed = probability >= self.scorer.threshold
            linked = linked or trusted or passed
            if passed or not alias_word:
                judged.append(candidate.model_copy(update={"probability": round(probability, 4)}))
        return sorted(judged, key=_rank) if linked else []

    def _context(
        self, question: Question, tokens: list[Token], start: int, end: int, names: frozenset[int]
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The content words around the span in the phrase it stands in: the runs of words
        without a stop or grammar word that it overlaps, less the span, cue words and inflected
        words and common English (a verb beside a name, "-s", "-ed" or not, is the question's
        grammar, not the name's; so is the verb that ends "What does X dampen?"), and the
        words at ``names`` (another mention's). None for a span of three content words or
        more: a name that long, named exactly, is no fragment of an unknown one. Second: those
        after the span."""
        if sum(1 for t in tokens[start:end] if not self._ignorable_or_number(t.key)) > 2:
            return (), ()
        near = [
            (i, w)
            for a, b in word_runs(tokens)
            if a < end and start < b
            for i in range(a, b)
            if not start <= i < end and i != question.final_verb and i not in names
            if tokens[i].key and not self._ignorable_or_number(tokens[i].key)
            for w in mention_key(tokens[i].text).split()
            if words.lemma(w) == w and not words.is_common(w)
        ]
        return tuple(w for _, w in near), tuple(w for i, w in near if i >= end)

    def _leftover_spans(
        self,
        question: Question,
        tokens: list[Token],
        covered: set[int],
        read: Reader | None,
        modifiers: set[int],
    ) -> list[Span]:
        """Runs of words that are neither linked nor stop or grammar words (nor only cue words):
        typos of names (fuzzy) and descriptions (the engine's indexes). A single word is
        searched only if it could be a name on its own: not common English, not an adjective
        or participle ("ciliary", "encoded"); a word written like a symbol is no typo of a
        gene."""
        out = []
        for start, end in free_runs(tokens, covered):
            while start < end and (
                self._ignorable_or_number(tokens[start].key)
                or (start in modifiers and start + 1 < end)
            ):
                start += 1  # "five signs of", "<common word> <name>": no name yet
            while end > start and self._ignorable(tokens[end - 1].key):
                if words.lemma(tokens[end - 1].key) in self.nouns:
                    break  # "<Eponym>'s disease": a noun may end a name
                end -= 1  # "imatinib treats": a verb does not
            run = tokens[start:end]
            if all(self._ignorable_or_number(t.key) for t in run):
                continue  # "gene product": question words, no name
            if any(_CURIE.fullmatch(t.text) for t in run):
                continue  # an identifier not in the graph is unknown, not a phrase
            text = question.span_text(start, end)
            if any(t.corrected for t in run):  # "claudins": searched as "claudin"
                text = " ".join(t.key for t in run)
            if len(mention_key(text)) < 4:
                continue
            candidates: list[Candidate] = []
            # a lone word written like a symbol is no typo of a gene: a symbol or alias one
            # letter from a gene's name is another gene (an alias is not a ligand one edit away)
            if any(not words.is_english(t.text) for t in run):
                candidates = self.finder.fuzzy(text)
            proposed = list(candidates)
            candidates = self._decide(question, tokens, start, end, candidates)
            if not candidates and (len(run) > 1 or words.could_be_a_name(run[0].text)):
                # a respelling the scorer rejected may still be a description of another
                # node; the index's hit on a node just judged as a respelling ("Dravex
                # syndrome": Dravet syndrome) is the same guess, and the judgement stands
                judged = {c.id for c in proposed}
                searched = [
                    c
                    for c in self._names_sharing_a_word(run, self.finder.search(text, read))
                    if c.id not in judged
                ]
                proposed += searched
                candidates = self._decide(question, tokens, start, end, searched)
            if proposed and not candidates:  # rejected: not in the graph
                out.append(Span(start, end, [], rejected=tuple(proposed)))
                continue
            guessed = bool(candidates) and doubtful(candidates)
            if guessed and len(run) == 1 and words.looks_like_a_name(run[0].text):
                continue  # an unknown brand name near a GO term's words: unknown, not a guess
            if guessed and self._another_proper_name(run, candidates):
                continue  # an unknown "<A>-<B> syndrome" near "<C> syndrome": another eponym
            if candidates:
                out.append(Span(start, end, candidates, weak=guessed))
        return out

    def _another_proper_name(self, run: list[Token], candidates: list[Candidate]) -> bool:
        """Whether the run is written as a proper name (capitalised words besides cues) that
        no candidate's name holds whole: names carry no meaning, so a guess by meaning, by the
        cue word ("syndrome") or by half the name ("<B> esophagus" for "<A>-<B>
        syndrome") names another entity."""
        proper = {
            words.stem(w)
            for t in run
            if t.text[:1].isupper() and not self._ignorable(t.key)
            for w in t.key.split()
        }
        return bool(proper) and not any(proper <= name_words(c) for c in candidates)

    def _names_sharing_a_word(
        self, run: list[Token], candidates: list[Candidate]
    ) -> list[Candidate]:
        """Full-text hits that share a word of the run other than a cue: a symbol followed by
        the word gene is no mention of a GO term about gene expression (the cue noun may end a
        name, it names nothing)."""
        own = {words.stem(w) for t in run if not self._ignorable(t.key) for w in t.key.split()}
        return [c for c in candidates if c.rule != "fulltext" or own & name_words(c)]

    def _unknown(
        self,
        question: Question,
        tokens: list[Token],
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
            # (an adjective or an enzyme's head noun) is the graph's vocabulary, no unknown name
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


def _rank(candidate: Candidate) -> tuple[float, float, str]:
    """Most probable first (by the scorer), then by how the name matched, then by id."""
    return (-(candidate.probability or 0.0), -candidate.score, candidate.id)


def _rank_of(span: Span) -> tuple[float, float, str]:
    """A span's rank among overlapping spans of one length: its best candidate's."""
    return min((_rank(c) for c in span.candidates), default=(0.0, 0.0, ""))
