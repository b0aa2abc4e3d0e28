"""Words as the lexicon knows them: an unknown word respelled as its closest lexicon word, and a
known word's other readings one keyboard slip away (used only inside a longer name)."""

from __future__ import annotations

from collections.abc import Callable
from string import ascii_lowercase

from rapidfuzz import process
from rapidfuzz.distance import OSA

from biokg.graph_agent import text as words
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking.features import slip_cost
from biokg.graph_agent.linking.spans import Token
from biokg.graph_agent.text import mention_key

#: A word is read as another lexicon word at this similarity (optimal string alignment: one
#: edit or swap in a four-letter word, two in an eight-letter one).
SPELL_SIMILARITY = 0.75
#: A known word this rare (uses in the lexicon) may still be a typo of a commoner word.
RARE_WORD_COUNT = 3


class Speller:
    """Reads question tokens against a lexicon's words; ``ignorable`` tells cue and grammar
    words, which are never respelled."""

    def __init__(self, lexicon: Lexicon, ignorable: Callable[[str], bool]) -> None:
        self.lexicon = lexicon
        self._ignorable = ignorable

    def spelled(self, word: words.Token) -> Token:
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
                    # a symbol one letter from a gene's word is another gene's, no typo of it;
                    # capitals are also how ChEMBL writes drug names
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
        return Token(word, " ".join(key), corrected=respelled, alts=alts, rivals=others_read)

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


def _same_word(one: str, other: str) -> bool:
    """Inflections or derivations of one word ("mitochondria", "mitochondrial" beside
    "mitochondrion"): all but their last three letters alike, five at least."""
    shared = next(
        (i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
        min(len(one), len(other)),
    )
    return shared >= max(5, min(len(one), len(other)) - 3)


def _one_slip(word: str) -> set[str]:
    """Every word one keyboard slip away: two neighbouring letters swapped, or one letter
    dropped, added or replaced."""
    cuts = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    slips = {a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1}
    slips |= {a + b[1:] for a, b in cuts if b}
    slips |= {a + c + b[1:] for a, b in cuts if b for c in ascii_lowercase}
    slips |= {a + c + b for a, b in cuts for c in ascii_lowercase}
    return slips - {word, ""}
