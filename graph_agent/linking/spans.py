"""Where a name may stand in a question: its tokens as the linker reads them, the spans it
proposes, and the runs, brackets, quotes and restatements that bound a name."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from biokg.graph_agent import text as words
from biokg.graph_agent.models import Candidate
from biokg.graph_agent.question import Question


@dataclass(frozen=True)
class Token:
    """A question token with its lexicon key: unknown words respelled (``corrected``)."""

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
class Span:
    """Tokens ``start``..``end`` and the candidates they name."""

    start: int
    end: int
    candidates: list[Candidate]
    weak: bool = False
    rejected: tuple[Candidate, ...] = ()  # what the scorer judged too far (no candidates)


def free_runs(tokens: list[Token], covered: set[int]) -> list[tuple[int, int]]:
    """Maximal runs of tokens not yet covered, no stop or grammar word, none quoted."""
    runs, start = [], None
    for i in range(len(tokens) + 1):
        free = (
            i < len(tokens)
            and i not in covered
            and not _grammar(tokens[i].key)
            and not tokens[i].word.quoted
        )
        if free and start is None:
            start = i
        elif not free and start is not None:
            runs.append((start, i))
            start = None
    return runs


def phrase_runs(tokens: list[Token]) -> list[tuple[int, int]]:
    """Maximal runs of two or more words with no stop or grammar word, not crossing a
    parenthesis or a quote; then pairs of words or runs joined by one "of", as names join
    their parts ("increased levels of serum creatine kinase": a phenotype, not the gene
    its last words name)."""
    bounds = word_runs(tokens)
    runs = [(start, end) for start, end in bounds if end - start >= 2]
    joined = [
        (left[0], right[1])
        for left, right in pairwise(bounds)
        if right[0] == left[1] + 1
        and tokens[left[1]].key == "of"
        and _region(tokens[left[0]]) == _region(tokens[right[0]])
    ]
    return runs + joined


def word_runs(tokens: list[Token]) -> list[tuple[int, int]]:
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


def _region(token: Token) -> tuple[bool, bool]:
    return token.word.parenthesised, token.word.quoted


def inside_an_eponym(question: Question, tokens: list[Token], start: int) -> bool:
    """Whether a span would start inside a double-barrelled name: "Lemli-Opitz syndrome" or
    "Opitz syndrome" of "Smith-Lemli-Opitz syndrome" (capitalised pieces joined by a dash are
    one name; a prefix such as anti- or non- is no such piece)."""
    if start == 0:
        return False
    before, here = tokens[start - 1].word, tokens[start].word
    joined = before.end + 1 == here.start and question.text[before.end] in "-\u2013"
    return joined and before.text[:1].isupper() and here.text[:1].isupper()


def qualifies_a_type(tokens: list[Token], i: int) -> bool:
    """The token is a type's number or letter after its type word ("type II", "group B")."""
    return i > 0 and tokens[i - 1].key in words.TYPE_WORDS and words.designator(tokens[i].key)


def respects_quotes_and_brackets(tokens: list[Token], start: int, end: int) -> bool:
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


def restatements_merged(tokens: list[Token], spans: list[Span]) -> list[Span]:
    """A parenthesised span right after a linked span restates it: kept inside that mention
    when it names the same node (a gene's symbol after its name), dropped when it names another
    (a gene's symbol after a disease's name)."""
    by_start = sorted(spans, key=lambda s: s.start)
    kept: list[Span] = []
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
            kept[-1] = Span(previous.start, span.end, agreed, previous.weak and span.weak)
    return kept


def _grammar(key: str) -> bool:
    """A stop or question-grammar word."""
    return key in words.STOP_WORDS or key in words.QUESTION_GRAMMAR
