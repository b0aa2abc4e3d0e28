"""English word frequencies from the kept table equal wordfreq's own, and a question's process
that has the table does not import wordfreq for plain words (the ~0.34 s it cost every
``biokg ask``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from wordfreq import zipf_frequency

from biokg.graph_agent import text

#: Plain words of every kind the linker asks about, words wordfreq does not know, and words
#: the table leaves to wordfreq (digits, hyphens, accents, apostrophes).
WORDS = [
    "the", "syndrome", "seizure", "marfan", "myopia", "lead", "sting", "dmd", "apoe",
    "sildenafox", "asdf", "qwerty", "choreography", "covid-19", "1999", "naïve", "don't", "x",
]  # fmt: skip


def test_the_kept_table_answers_as_wordfreq_does(test_data_cache: Path) -> None:
    table = text.keep_word_frequencies(test_data_cache / "models")
    assert table.is_file()
    text.zipf.cache_clear()
    assert {w: text.zipf(w) for w in WORDS} == {w: zipf_frequency(w, "en") for w in WORDS}
    assert text.zipf("syndrome") > 4 and text.zipf("sildenafox") == 0.0
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from biokg.graph_agent import text\n"
        f"text.keep_word_frequencies(Path({str(test_data_cache / 'models')!r}))\n"
        "print(text.zipf('syndrome'), text.zipf('sildenafox'), 'wordfreq' in sys.modules)\n"
    )
    answer = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert answer == [str(zipf_frequency("syndrome", "en")), "0.0", "False"]
