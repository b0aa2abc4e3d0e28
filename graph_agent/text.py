"""Word facts for reading questions: tokens, English commonness, lemmas and question grammar.

Entity names in biomedicine reuse ordinary words: HPO has a term called "Severe", a gene has the
alias "TRADE", a drug is called "LEAD". A word that is common in English (``wordfreq``'s Zipf
frequency ≥ :data:`COMMON_ZIPF`) names an entity on its own only weakly: the linker uses such a
mention when the question offers nothing more specific. Words that are the grammar of biomedical
questions rather than names ("mutations in", "loss-of-function variants", "patients with") are
listed in :data:`QUESTION_GRAMMAR`; they are never an entity on their own, only inside a longer
name. Lemmas (``simplemma``) let "caused", "causes" and "causing" read as one cue.
"""

from __future__ import annotations

import importlib.metadata
import re
import sqlite3
import threading
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from biokg.core.files import atomic_path, made_once
from biokg.core.names import name_key

#: Zipf frequency (log10 of uses per billion words) from which a word counts as common English:
#: "chronic" (4.2) is common, "polymerase" (3.0) is not.
COMMON_ZIPF = 4.0
#: From here a word is everyday English, met once in a million words or more: "sting" 3.8,
#: "ret" 3.2; gene symbols written in lower case are rarer ("apoe" 2.0).
EVERYDAY_ZIPF = 3.0

#: Function and question words: never linked on their own (English; short on purpose).
STOP_WORDS = frozenset(
    """
    a about all also an and any are as at be been by can could did do does for from has have
    how i in into is it its me of on or please show tell that the their them there these they
    this those to was were what when where which who whom whose why with would you list give
    find name names known many much more most other others each both between same shared
    common share path paths connect connected connects link links linked via through related
    relate my your our we us he she his her if than then so not no yes whether may might
    should must will shall any some one two three four five six seven eight nine ten
    """.split()
)

#: The grammar of biomedical questions: how people refer to genetic causes, patients and
#: evidence around a name. Never an entity on their own ("mutations" is no disease), always
#: allowed inside a longer exact name ("... due to single gene mutation").
QUESTION_GRAMMAR = frozenset(
    """
    mutation mutations mutated mutant mutants variant variants variation allele alleles
    allelic biallelic monoallelic heterozygous homozygous hemizygous compound de novo
    germline somatic truncating missense nonsense frameshift haploinsufficiency
    loss gain function of-function defect defects defective dysfunction dysfunctional
    deficiency deficient alteration alterations altered change changes patient patients
    individual individuals people person human humans mammal mammals case cases carrier
    carriers key main major predominantly mainly typically usually often commonly rare
    known reported described characteristic characteristics clinical typical
    summarize summarise describe explain suggest recommend effective effectively
    particularly specifically especially involved implicated responsible underlying
    basis genetic genetics molecular cause caused causes causing role roles
    """.split()
)

#: Multi-word question grammar: read before any cue, so that "loss-of-function" is no GO
#: "function" and "de novo" no name.
GRAMMAR_PHRASES = (
    "loss of function",
    "gain of function",
    "de novo",
    "repeat expansion",
    "truncating variant",
    "bi allelic",
    "mono allelic",
    "compound heterozygous",
    "also known as",
    "such as",
    "for example",
    "as well as",
    "rather than",
    "of the following",
)
#: Words that make a question an instruction rather than a yes/no question.
IMPERATIVES = frozenset(
    """
    list name give tell show describe summarize summarise explain provide suggest recommend
    find identify enumerate outline mention state report propose advise
    """.split()
)

_TOKEN = re.compile(r"[^\s/,;\-–—]+")
EDGE_PUNCTUATION = "?!.:;()[]{}\"“”‘’'"
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Token:
    """One word of a question as written, with where it stands."""

    text: str
    start: int
    end: int
    quoted: bool = False  # inside "double quotes": part of one name
    parenthesised: bool = False  # inside (...): often restates the name before it


_UNITS = ("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix")
#: Roman numerals 1 to 39, the type numbers names use ("collagen type XXVII", "type IIB").
_ROMAN = {"x" * tens + unit: 10 * tens + n for tens in range(4) for n, unit in enumerate(_UNITS)}
del _ROMAN[""]
#: Words a type's number or letter follows ("type II", "group B").
TYPE_WORDS = frozenset({"type", "types", "group", "class", "grade", "stage", "form"})
_NUMBERED = re.compile(
    rf"\b({'|'.join(sorted(TYPE_WORDS))})\s+(x{{0,3}}(?:i{{1,3}}|iv|vi{{0,3}}|ix)|x{{1,3}})([a-d]?)\b"
)


def numbered_form(words: Sequence[str]) -> bool:
    """Words that number one form of a named thing at the end of its name ("2B", "type IIA"):
    what is left is the name all the forms share."""
    *head, number = words or [""]
    number = number.lower()
    if number not in _ROMAN and number[-1:].isalpha():
        number = number[:-1]  # a form's letter
    typed = not head or (len(head) == 1 and head[0].lower() in TYPE_WORDS)
    return typed and (number in _ROMAN or (number.isdigit() and len(number) <= 2))


def designator(key: str) -> bool:
    """A type's number or letter ("2", "ii", "b"): a name's qualifier, no word of its own."""
    return key.isdigit() or len(key) == 1 or key in _ROMAN


def mention_key(text: str) -> str:
    """The lexicon key of a name: :func:`name_key` with possessives dropped, Greek letters
    spelt out, accents dropped and Roman type numbers written as digits: a name written with
    or without a possessive, a Greek letter spelt or not, accents or none, and a type number
    in Roman or Arabic digits has one key."""
    key = name_key(_unaccented(_GREEK.sub(_spelt_out, _POSSESSIVE.sub("", text))))
    return numbered(key)


def numbered(key: str) -> str:
    """A key with Roman type numbers written as digits ("type vii" → "type 7"): applied to a
    name's whole key, and to a span's key joined from its words' keys."""
    return _NUMBERED.sub(lambda m: f"{m[1]} {_ROMAN[m[2]]}{m[3]}", key)


def _unaccented(text: str) -> str:
    """Letters without their accents: an accented name meets the plain spelling people type;
    a name_key alone drops the letter."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


#: Greek letters (and the micro sign, written for mu): a name_key alone would drop them, so
#: that "TNF-α" met "TNF" and "5β-reductase" met "5α-reductase" (Gilda spells them out too)
_GREEK_LETTER = "[\u0370-\u03ff\u00b5]"
_GREEK = re.compile(_GREEK_LETTER)
_GREEK_QUALIFIER = re.compile(_GREEK_LETTER + "\\d*")


def _greek_name(letter: str) -> str:
    """A Greek letter's English name, as Unicode names it, but "mu" for the micro sign and
    "lambda" for Unicode's "LAMDA"."""
    name = unicodedata.name(letter, "").split()
    spelt = "mu" if name == ["MICRO", "SIGN"] else name[-1].lower() if name else ""
    return "lambda" if spelt == "lamda" else spelt


#: The Greek letters' names as keys spell them ("alpha" … "omega")
GREEK_NAMES = frozenset(_greek_name(chr(c)) for c in range(0x3B1, 0x3CA))


def _spelt_out(letter: re.Match[str]) -> str:
    return f" {_greek_name(letter[0])} "  # a word of its own


def greek_qualifier(written: str) -> bool:
    """A Greek letter on its own, or with a number ("β1" of "TGF-β1", "μ" of "μ-opioid"; "beta
    1" as a key): a qualifier of the word before or after it, no name."""
    if _GREEK_QUALIFIER.fullmatch(written):
        return True
    parts = written.split()
    return len(parts) == 2 and parts[0] in GREEK_NAMES and parts[1].isdigit()


def one_word(written: str) -> bool:
    """Written as one word, however dashed ("IL-1β", "IL1-BETA"; "N/A" and "IL 1" are two): a
    name whose pieces may be joined in its key ("il1beta")."""
    return not any(c.isspace() or c == "/" for c in written)


def stem(word: str) -> str:
    """A rough stem for comparing names word by word: plural -s dropped ("bones" is "bone")."""
    return word.removesuffix("s") if len(word) > 3 else word


def clean(text: str) -> str:
    """The question without control characters and with single spaces."""
    return " ".join(_CONTROL.sub(" ", text).split())


def tokens(text: str) -> list[Token]:
    """Words split at spaces, slashes, dashes, commas and semicolons; edge punctuation and a
    possessive 's removed ("Alport's" → "Alport", "BRCA1/BRCA2" and "RUNX1-associated" → two
    words each). Names keep matching across the pieces: lexicon keys treat dashes as spaces."""
    quoted, parenthesised = _regions(text)
    out = []
    for match in _TOKEN.finditer(text):
        word = _POSSESSIVE.sub("", match.group().strip(EDGE_PUNCTUATION)).strip(EDGE_PUNCTUATION)
        if not word:
            continue
        first = match.start() + match.group().index(word[0])
        out.append(Token(word, match.start(), match.end(), quoted[first], parenthesised[first]))
    return out


def _regions(text: str) -> tuple[list[bool], list[bool]]:
    """Per character: inside double quotes, inside parentheses."""
    quoted, parenthesised = [], []
    in_quote, depth = False, 0
    for i, char in enumerate(text):
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        if char == '"':
            in_quote = not in_quote
        elif char in "“‘" or (char == "'" and before.isspace() and after.isalnum()):
            in_quote = True
        elif char in "”’'" and in_quote and not after.isalnum():
            in_quote = False
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        quoted.append(in_quote)
        parenthesised.append(depth > 0)
    return quoted, parenthesised


#: A plain word: letters and single digits ("brca1", "c9orf"), which wordfreq reads as one token
#: and looks up as written (a run of digits it replaces by zeros and weighs by a number model).
_PLAIN_WORD = re.compile(r"(?:[a-z]|[0-9](?![0-9]))+")
_WORD_TABLE: sqlite3.Connection | None = None
_WORD_TABLE_LOCK = threading.Lock()


def keep_word_table(folder: Path) -> Path:
    """Answer :func:`zipf` and :func:`lemma` from a table of wordfreq's own English values (plain
    words) and of simplemma's own English dictionary under ``folder``, made there once per
    version of the two (~7 s). Importing wordfreq and reading its word list took ~0.34 s of
    every ``biokg ask`` process that met a word's commonness, and decoding simplemma's
    dictionary ~0.33 s of every one (the question reader lemmatises its vocabulary); a lookup in
    the table takes microseconds. simplemma's own rules still run over the kept dictionary, and
    words that are not plain (digits, hyphens, accents) still go to wordfreq."""
    global _WORD_TABLE
    versions = (importlib.metadata.version(name) for name in ("wordfreq", "simplemma"))
    path = folder / "words-en-wordfreq-{}-simplemma-{}.sqlite".format(*versions)
    made_once(path, path.is_file, _write_word_table)
    with _WORD_TABLE_LOCK:
        if _WORD_TABLE is None:
            uri = f"file:{path}?mode=ro&immutable=1"
            _WORD_TABLE = sqlite3.connect(uri, uri=True, check_same_thread=False)
    _lemmatizer.cache_clear()  # a lemmatizer made before reads the kept dictionary from now on
    return path


def _write_word_table(path: Path) -> None:
    from simplemma.strategies.dictionaries.dictionary_factory import DEFAULT_DICTIONARY_FACTORY
    from wordfreq import iter_wordlist, zipf_frequency

    words = (
        (word, zipf_frequency(word, "en"))
        for word in iter_wordlist("en")
        if _PLAIN_WORD.fullmatch(word)
    )
    dictionary = DEFAULT_DICTIONARY_FACTORY.get_dictionary("en")
    with atomic_path(path) as partial, closing(sqlite3.connect(partial)) as table:
        table.execute("CREATE TABLE zipf (word TEXT PRIMARY KEY, zipf REAL) WITHOUT ROWID")
        table.executemany("INSERT INTO zipf VALUES (?, ?)", words)
        table.execute("CREATE TABLE lemma (form TEXT PRIMARY KEY, lemma TEXT) WITHOUT ROWID")
        table.executemany("INSERT INTO lemma VALUES (?, ?)", dictionary.items())
        table.commit()


def _kept(query: str, *params: str) -> tuple | None:
    """The first row of ``query`` on the kept word table."""
    with _WORD_TABLE_LOCK:
        return _WORD_TABLE.execute(query, params).fetchone()  # type: ignore[union-attr]


@cache
def zipf(word: str) -> float:
    """English Zipf frequency of ``word`` (0 for a word wordfreq does not know), from the kept
    table where :func:`keep_word_table` opened one, else from wordfreq itself."""
    if _WORD_TABLE is not None and _PLAIN_WORD.fullmatch(word):
        row = _kept("SELECT zipf FROM zipf WHERE word = ?", word)
        return row[0] if row else 0.0
    from wordfreq import zipf_frequency  # loaded on first use: ~0.34 s

    return zipf_frequency(word, "en")


def is_common(word: str) -> bool:
    """Whether ``word`` is common English (see :data:`COMMON_ZIPF`)."""
    return zipf(word.casefold()) >= COMMON_ZIPF


def is_everyday(word: str) -> bool:
    """Whether ``word`` is everyday English (see :data:`EVERYDAY_ZIPF`)."""
    return zipf(word.casefold()) >= EVERYDAY_ZIPF


def is_english(word: str) -> bool:
    """Whether ``word`` is an English word at all (not a name, typo or symbol)."""
    return zipf(word.casefold()) >= 1.5


def looks_like_a_name(word: str) -> bool:
    """Not an English word, or a capitalised rare one (a new drug's name, a brand name)."""
    frequency = zipf(word.casefold())
    return frequency < 1.5 or (word[:1].isupper() and frequency < 3.0)


#: Endings of words that modify rather than name: adjectives (catalytic, structural, cellular,
#: regulatory, secretory), participles and adverbs. Also how a GO activity's name that is an
#: adjective alone is told from a product's (:mod:`.go_forms`).
MODIFIER_ENDINGS = tuple("ic ical al ar ary ory ive ous ible able ing ed ly".split())


def could_be_a_name(word: str) -> bool:
    """A single word that may name an entity by itself: not common English, and not shaped like
    an adjective, adverb or participle ("ciliary", "syndromic", "encoded"), unless it is no
    English word at all (a rare disease's or an organelle's Latin name)."""
    if not is_english(word):
        return True
    folded = word.casefold()
    return not is_common(word) and not folded.endswith(MODIFIER_ENDINGS)


@cache
def lemma(word: str) -> str:
    """The dictionary form of an English word ("caused" → "cause", "genes" → "gene"), in lower
    case as every key here (simplemma gives "I" for "me", a stop word only as "i")."""
    folded = word.casefold()
    try:
        return _lemmatizer().lemmatize(folded, lang="en").casefold()
    except ValueError:  # nothing left once simplemma strips punctuation ("¡", found by fuzzing)
        return folded


@cache
def _lemmatizer():  # -> simplemma.Lemmatizer (imported on first use)
    """simplemma's default lemmatizer, over the kept table's copy of its dictionary where
    :func:`keep_word_table` opened one (the same entries, read a key at a time)."""
    from simplemma import Lemmatizer
    from simplemma.strategies import DefaultStrategy

    factory = _KeptDictionary() if _WORD_TABLE is not None else None
    return Lemmatizer(lemmatization_strategy=DefaultStrategy(dictionary_factory=factory))


class _KeptDictionary:
    """simplemma's ``DictionaryFactory`` for its English dictionary as kept in the word table."""

    def get_dictionary(self, lang: str) -> Mapping[str, str]:
        if lang != "en":
            raise ValueError(f"the kept word table holds English only, not {lang!r}")
        return _KeptLemmas()


class _KeptLemmas(Mapping[str, str]):
    def __getitem__(self, form: str) -> str:
        if row := _kept("SELECT lemma FROM lemma WHERE form = ?", form):
            return row[0]
        raise KeyError(form)

    def __iter__(self) -> Iterator[str]:
        with _WORD_TABLE_LOCK:
            forms = _WORD_TABLE.execute("SELECT form FROM lemma").fetchall()  # type: ignore[union-attr]
        return (form for (form,) in forms)

    def __len__(self) -> int:
        return _kept("SELECT count(*) FROM lemma")[0]  # type: ignore[index]


def looks_like_symbol(text: str) -> bool:
    """Written like a gene symbol or an abbreviation: upper case or digits, no lower-case word
    ("TP53", "ABCA1", "rad51"), at least two characters."""
    if len(text) < 2 or not any(c.isalnum() for c in text):
        return False
    has_digit = any(c.isdigit() for c in text)
    letters = [c for c in text if c.isalpha()]
    return has_digit or (bool(letters) and all(c.isupper() for c in letters))
