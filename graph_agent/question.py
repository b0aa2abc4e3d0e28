"""A question parsed once: every later stage reads this, none splits the string again.

Parsing is plain and deterministic, with no graph and no model: the words with their character
offsets (:func:`.text.tokens`), each word's lexicon key and lemma, and the question's grammar
(a yes/no question or a statement to check, and whether it is negated). Linking gives every
mention the token range it covers (``Mention.tokens``); reading sets those ranges aside, and
planning writes the subject as "X" by its offsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from biokg.graph_agent.models import Mention
from biokg.graph_agent.text import (
    EDGE_PUNCTUATION,
    IMPERATIVES,
    STOP_WORDS,
    Token,
    clean,
    lemma,
    mention_key,
    tokens,
)

#: First-person openers: "I'd like to know …", "We need …" ask, they claim nothing.
FIRST_PERSON = frozenset({"i", "i'd", "i'm", "i've", "we", "we'd", "we're", "my", "our"})
#: Words that open or carry a question asking for entities rather than a yes or no.
WH_WORDS = frozenset(
    "what which who whom whose where when why how list name give tell show".split()
)
#: Lemmas of the verbs that open a yes/no question ("Is …", "Can …", "Does …").
AUXILIARIES = frozenset("be do can could have will would should may might must shall".split())
NEGATIONS = frozenset({"not", "n't", "no", "never", "neither", "nor", "without"})
#: Auxiliaries of advice and ability: "should not be given" names a contraindication, "can not"
#: an inability; neither asks for what the graph records as absent.
_MODALS = frozenset("can could may might must shall should will would".split())
#: Words that ask for a kind of thing the word after them names ("by what enzyme?").
DETERMINERS = frozenset({"what", "which"})


@dataclass(frozen=True)
class Question:
    """One question as parsed: its words (``tokens``), their lexicon keys (``keys``: several
    words for a few, "type II" reads "type 2") and lemmas, and its grammar."""

    text: str
    tokens: tuple[Token, ...]
    keys: tuple[str, ...]
    lemmas: tuple[str, ...]
    #: a yes/no question ("Is X …?", "Can X cause Y?") or a statement to check ("X treats Y")
    polar: bool
    #: a yes/no question or statement with a negation word anywhere ("X is not associated
    #: with Y"); the reader decides whether it is the claim's or a linked name's
    negated: bool
    #: the position of the word a which/what question names its answers by, when that word
    #: stands alone ("… by what enzyme?", "Which enzyme does X encode?"): the kind of
    #: the answer, which the answers' names share, not a name the question asks about
    asked_kind: int | None = None
    #: the position of the verb that ends a wh-question asked with "do" ("What does X
    #: dampen?"): the question's verb, no word of the name before it
    final_verb: int | None = None
    #: a question asking for entities that are *not* in a relationship ("Which genes are not
    #: associated with X?"): the graph records relationships, not their absence
    asks_absence: bool = False

    @classmethod
    def parse(cls, text: str) -> Question:
        """The question with control characters and repeated spaces removed, parsed."""
        text = clean(text)
        found = tuple(tokens(text))
        lemmas = tuple(lemma(t.text) for t in found)
        polar = _polar(lemmas, text)
        wh = next((i for i, w in enumerate(lemmas) if w in WH_WORDS), None)
        return cls(
            text=text,
            tokens=found,
            keys=tuple(mention_key(t.text) for t in found),
            lemmas=lemmas,
            polar=polar,
            negated=polar and any(w in NEGATIONS for w in lemmas),
            asked_kind=_asked_kind(found, lemmas),
            final_verb=None if polar or wh is None else _final_verb(found, lemmas, wh),
            asks_absence=not polar and wh is not None and _asks_absence(lemmas, wh),
        )

    def span_text(self, start: int, end: int) -> str:
        """The question's own text from token ``start`` to token ``end`` (exclusive), with the
        parenthesis that closes a name ("acetylcholinesterase (Cartwright blood group)")."""
        last = self.tokens[end - 1].end
        written = self.text[self.tokens[start].start : last]
        text = written.strip(EDGE_PUNCTUATION)
        after = written[written.index(text) + len(text) :] + self.text[last : last + 1]
        if text.count("(") > text.count(")") and after.lstrip().startswith(")"):
            text += ")"
        return text

    def key_words(self, start: int, end: int) -> list[str]:
        """The lexicon-key words of tokens ``start`` to ``end`` (exclusive)."""
        return [w for key in self.keys[start:end] for w in key.split()]

    def places(self, words: Sequence[str]) -> list[tuple[int, int]]:
        """(first token, end token) of every place whose key words are ``words``: where a
        name stands, and where it is written again."""
        words = list(words)
        if not words:
            return []
        out = []
        for start in range(len(self.tokens)):
            joined, end = [], start
            while end < len(self.tokens) and len(joined) < len(words):
                joined += self.keys[end].split()
                end += 1
            if joined == words:
                out.append((start, end))
        return out

    def mention_words(self, mention: Mention) -> list[str]:
        """The mention's words as this question's keys spell them: from the tokens it covers,
        or from its text when it was named apart from the question (a test's, the LLM's)."""
        if mention.tokens is not None:
            return self.key_words(*mention.tokens)
        return mention_key(mention.text).split()

    def framed(
        self, mention: Mention, placeholder: str, leave_out: Sequence[tuple[int, int]] = ()
    ) -> str:
        """The question with the mention's name written as ``placeholder`` (where it first
        stands; not when its words are not in the question), and without the words of the
        token ranges ``leave_out`` (with the spaces after them)."""
        edits: list[tuple[int, int, str]] = []
        found = self.places(self.mention_words(mention))
        if found:
            start, end = found[0]
            name = self.span_text(start, end)
            begin = self.text.index(name, self.tokens[start].start)
            edits.append((begin, begin + len(name), placeholder))
        for start, end in leave_out:
            stop = self.tokens[end - 1].end
            stop += len(self.text[stop:]) - len(self.text[stop:].lstrip(" "))
            edits.append((self.tokens[start].start, stop, ""))
        text = self.text
        for begin, stop, written in sorted(edits, reverse=True):
            text = text[:begin] + written + text[stop:]
        return text


def _polar(lemmas: Sequence[str], text: str) -> bool:
    content = [w for w in lemmas if w]
    if not content:
        return False
    if content[0] in AUXILIARIES and not _request(content):
        return True
    if any(w in WH_WORDS or w in IMPERATIVES for w in content) or content[0] in FIRST_PERSON:
        return False
    return not text.rstrip().endswith("?")


def _asked_kind(found: Sequence[Token], lemmas: Sequence[str]) -> int | None:
    """A lower-case word right after "what" or "which" that ends the question or comes before
    its auxiliary: the whole noun phrase the determiner opens ("What insulin products …" is
    none: the kind is "products", the word before it a name)."""
    for i in range(1, len(found)):
        after = lemmas[i + 1] if i + 1 < len(found) else None
        if (
            lemmas[i - 1] in DETERMINERS
            and found[i].text.islower()
            and (after is None or after in AUXILIARIES)
        ):
            return i
    return None


def _final_verb(found: Sequence[Token], lemmas: Sequence[str], wh: int) -> int | None:
    """The last word of a question whose wh-word (at ``wh``) is followed by a form of "do" with
    words between it and that last word, when written in lower case and not after a preposition
    ("… treat in children?"): "What does X dampen?", "Which genes does X regulate?"."""
    last = len(found) - 1
    if not found[last].text.isalpha() or not found[last].text.islower():
        return None
    if lemmas[last - 1] in STOP_WORDS:
        return None
    if any(lemmas[i] == "do" for i in range(wh + 1, last - 1)):
        return last
    return None


def _asks_absence(lemmas: Sequence[str], wh: int) -> bool:
    """A wh-word, then "not" or "never" after a verb that is no modal ("Which genes are not
    associated with X?", "What does X never cause?"; not "Which drugs should not be given
    with X?")."""
    return any(
        w in ("not", "n't", "never") and lemmas[i - 1] not in _MODALS
        for i, w in enumerate(lemmas)
        if i > wh + 1
    )


def _request(lemmas: list[str]) -> bool:
    """ "Can you suggest …", "Could you list …": a polite instruction, not a yes/no question."""
    return len(lemmas) > 2 and lemmas[1] == "you" and any(w in IMPERATIVES for w in lemmas[2:4])
