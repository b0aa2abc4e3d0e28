"""English word frequencies and lemmas read through the kept word table equal wordfreq's and
simplemma's own, and a question's process that has the table neither imports wordfreq for plain
words nor decodes simplemma's dictionary (~0.34 s and ~0.33 s of every ``biokg ask``)."""

from __future__ import annotations

import subprocess
import sys
from itertools import islice
from pathlib import Path

import simplemma
from wordfreq import iter_wordlist, zipf_frequency

from biokg.graph_agent import text

#: Plain words of every kind the linker asks about, words wordfreq does not know, and words
#: the table leaves to wordfreq (digits, hyphens, accents, apostrophes, punctuation), with
#: inflections simplemma's dictionary and its rules decide.
WORDS = [
    "the", "syndrome", "seizure", "marfan", "myopia", "lead", "sting", "dmd", "apoe",
    "sildenafox", "asdf", "qwerty", "choreography", "covid-19", "1999", "naïve", "don't", "x",
    "caused", "genes", "localized", "studies", "me", "sildenafoxes", "pannexins", "¡",
    "contraindicated", "ubiquitinates", "HSJ1", "mitochondria", "well-known",
]  # fmt: skip


def _simplemma(word: str) -> str:
    try:
        return simplemma.lemmatize(word.casefold(), lang="en").casefold()
    except ValueError:
        return word.casefold()


def test_the_kept_table_answers_as_wordfreq_and_simplemma_do(test_data_cache: Path) -> None:
    table = text.keep_word_table(test_data_cache / "models")
    assert table.is_file()
    text.zipf.cache_clear()
    text.lemma.cache_clear()
    assert {w: text.zipf(w) for w in WORDS} == {w: zipf_frequency(w, "en") for w in WORDS}
    # every 40th of wordfreq's English list (~8,000 words), and their plural-looking forms
    listed = list(islice(iter_wordlist("en"), 0, None, 40))
    words = [*WORDS, *listed, *(w + "s" for w in listed)]
    assert [text.lemma(w) for w in words] == [_simplemma(w) for w in words]
    assert text.zipf("syndrome") > 4 and text.zipf("sildenafox") == 0.0
    assert (text.lemma("caused"), text.lemma("Genes")) == ("cause", "gene")
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from biokg.graph_agent import text\n"
        "from simplemma.strategies.dictionaries.dictionary_factory import "
        "DEFAULT_DICTIONARY_FACTORY as shipped\n"
        f"text.keep_word_table(Path({str(test_data_cache / 'models')!r}))\n"
        "print(text.zipf('syndrome'), text.zipf('sildenafox'), text.lemma('studies'),\n"
        "      text.lemma('chembl'), 'wordfreq' in sys.modules,\n"
        "      shipped._get_dictionary.cache_info().currsize)\n"
    )
    answer = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert answer == [str(zipf_frequency("syndrome", "en")), "0.0", "study", "chembl", "False", "0"]
