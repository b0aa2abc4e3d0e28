"""The lexicon's stored sorted lists: what typo-tolerant matching scans, read whole."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from biokg.graph_agent.lexicon import Lexicon, _fill, _frames

ROWS = [
    {"id": "CHEMBL.COMPOUND:CHEMBL192", "label": "Drug", "name": "Sildenafil",
     "brand_names": ["Viagra", "Revatio"]},
    {"id": "NCBIGene:2200", "label": "Gene", "name": "fibrillin 1", "symbol": "FBN1"},
    {"id": "DAILYMED:0b0b", "label": "Label", "name": "VIAGRA (sildenafil citrate) tablet"},
    {"id": "HP:0001166", "label": "Phenotype", "name": "Arachnodactyly",
     "synonyms": ["Spider fingers"]},
]  # fmt: skip


def _stored(tmp_path: Path) -> Lexicon:
    """The lexicon as the CLI opens it: a SQLite file written by ``_fill``, read-only."""
    path = tmp_path / "lexicon.sqlite"
    with closing(sqlite3.connect(path)) as db:
        _fill(db, *_frames(ROWS))
    return Lexicon(sqlite3.connect(f"file:{path}?mode=ro", uri=True))


def test_fuzzy_keys_are_sorted_names_without_documents_titles(tmp_path: Path) -> None:
    keys = _stored(tmp_path).fuzzy_keys
    assert keys == sorted(set(keys))
    assert {"sildenafil", "viagra", "revatio", "fibrillin 1", "arachnodactyly"} <= set(keys)
    assert "fbn1" in keys  # symbols are names too
    assert not any("tablet" in key for key in keys)  # the label's title: exact key only


def test_documents_titles_stay_exact_keys(tmp_path: Path) -> None:
    lexicon = _stored(tmp_path)
    title = [e for e in lexicon.by_key["viagra sildenafil citrate tablet"] if e.rule == "title"]
    assert [e.id for e in title] == ["DAILYMED:0b0b"]


def test_word_list_is_every_word_of_four_letters_or_more(tmp_path: Path) -> None:
    words = _stored(tmp_path).word_list
    assert words == sorted(set(words))
    assert {"spider", "fingers", "fibrillin", "tablet"} <= set(words)
    assert all(len(w) >= 4 for w in words)
    assert "fbn1" in words and "1" not in words


def test_a_lexicon_without_names_has_empty_lists() -> None:
    lexicon = Lexicon.from_rows([{"id": "HP:0000001", "label": "Phenotype", "name": None}])
    assert lexicon.fuzzy_keys == []
    assert lexicon.word_list == []
