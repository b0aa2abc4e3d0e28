"""The lexicon's stored sorted lists: what typo-tolerant matching scans, read whole."""

from __future__ import annotations

import logging
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.lexicon_build import file_name, fill, frames, write_file

ROWS = [
    {"id": "CHEMBL.COMPOUND:CHEMBL192", "label": "Drug", "name": "Sildenafil",
     "brand_names": ["Viagra", "Revatio"]},
    {"id": "NCBIGene:2200", "label": "Gene", "name": "fibrillin 1", "symbol": "FBN1"},
    {"id": "DAILYMED:0b0b", "label": "Label", "name": "VIAGRA (sildenafil citrate) tablet"},
    {"id": "HP:0001166", "label": "Phenotype", "name": "Arachnodactyly",
     "synonyms": ["Spider fingers"]},
]  # fmt: skip


def _stored(tmp_path: Path) -> Lexicon:
    """The lexicon as the CLI opens it: a SQLite file written by ``fill``, read-only."""
    path = tmp_path / "lexicon.sqlite"
    with closing(sqlite3.connect(path)) as db:
        fill(db, *frames(ROWS))
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


def test_an_alias_written_as_one_dashed_word_is_keyed_joined_too() -> None:
    # "IL1-BETA" is also "il1beta" (a question's "IL-1β" joined); "beta-1" is not "beta1": a
    # Greek letter and a number qualify another word ("beta1-adrenergic"), they name nothing
    lexicon = Lexicon.from_rows(
        [
            {"id": "NCBIGene:3553", "label": "Gene", "name": "interleukin 1 beta",
             "synonyms": ["IL1-BETA"]},
            {"id": "NCBIGene:10678", "label": "Gene", "name": "B3GNT2", "synonyms": ["beta-1"]},
            {"id": "NCBIGene:7504", "label": "Gene", "name": "XK", "synonyms": ["N/A"]},
        ]
    )  # fmt: skip
    assert [e.id for e in lexicon.by_key["il1beta"]] == ["NCBIGene:3553"]
    assert "il1 beta" in lexicon.by_key and "beta 1" in lexicon.by_key
    assert "beta1" not in lexicon.by_key
    assert "n a" in lexicon.by_key and "na" not in lexicon.by_key  # a slash parts two words


def test_an_abbreviation_among_synonyms_is_an_exact_key_only() -> None:
    # "xkcd" is no typo of "XECD": an abbreviation is matched as written, never respelled
    lexicon = Lexicon.from_rows(
        [
            {"id": "ORPHA:293621", "label": "Disease",
             "name": "X-linked endothelial corneal dystrophy", "synonyms": ["XECD", "Xecd form"]},
            {"id": "NCBIGene:2200", "label": "Gene", "name": "fibrillin 1", "symbol": "FBN1"},
        ]
    )  # fmt: skip
    assert [e.id for e in lexicon.by_key["xecd"]] == ["ORPHA:293621"]
    assert "xecd" not in lexicon.fuzzy_keys
    assert "xecd form" in lexicon.fuzzy_keys and "xecd" in lexicon.word_list  # a name's word
    assert "fbn1" in lexicon.fuzzy_keys  # a gene's own symbol stays respellable


#: Real names (HPO 2025-01-16, GO 2022-07-01, NCBI Gene) for lexicons built one from another.
EARLIER = [
    {"id": "HP:0001166", "label": "Phenotype", "name": "Arachnodactyly",
     "synonyms": ["Spider fingers"]},
    {"id": "NCBIGene:2200", "label": "Gene", "name": "fibrillin 1", "symbol": "FBN1",
     "xrefs": ["HGNC:3603"]},
    {"id": "OMIM:604931", "label": "Disease", "name": "Cortisone reductase deficiency 1"},
    {"id": "GO:0005634", "label": "GOTerm", "name": "nucleus", "namespace": "cellular_component"},
    {"id": "GO:0004672", "label": "GOTerm", "name": "protein kinase activity",
     "namespace": "molecular_function"},
]  # fmt: skip
#: The next state: a name changed, a node gone, a node new whose name brings the word
#: "nuclear" (so the nucleus, a node unchanged, gains its adjective as a GO form)
LATER = [
    {**EARLIER[0], "synonyms": ["Spider fingers", "Long slender fingers"]},
    EARLIER[1],
    EARLIER[3],
    EARLIER[4],
    {"id": "GO:0005635", "label": "GOTerm", "name": "nuclear envelope",
     "namespace": "cellular_component"},
]  # fmt: skip


def _tables(path: Path) -> dict[str, list[tuple]]:
    """Every table of a lexicon file, its build record included, rows in stored order."""
    with closing(sqlite3.connect(path)) as db:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: db.execute(f"SELECT * FROM {n} ORDER BY rowid").fetchall() for n in names}


def test_a_lexicon_built_from_an_earlier_one_equals_a_full_build(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # the later state's file starts from the earlier one beside it, computing the names of the
    # changed and new nodes only; a full build of the same rows in a folder of its own is
    # the reference, table for table
    write_file(EARLIER, [], tmp_path / "from-earlier" / file_name("a"))
    with caplog.at_level(logging.INFO, logger="biokg.graph_agent.lexicon_build"):
        later = write_file(LATER, [], tmp_path / "from-earlier" / file_name("b"))
    assert "(3 of them keyed by the earlier lexicon)" in caplog.text
    full = write_file(LATER, [], tmp_path / "full" / file_name("b"))
    assert _tables(later) == _tables(full)
    lexicon = Lexicon(sqlite3.connect(later))
    assert {e.id for e in lexicon.by_key["long slender fingers"]} == {"HP:0001166"}
    assert "cortisone reductase deficiency" not in lexicon.by_key  # the node gone
    assert {e.id for e in lexicon.by_key["nuclear"]} == {"GO:0005634"}  # a form of the new word


def test_a_lexicon_of_the_same_rows_is_the_earlier_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    earlier = write_file(EARLIER, [], tmp_path / file_name("a"))
    with caplog.at_level(logging.INFO, logger="biokg.graph_agent.lexicon_build"):
        same = write_file(list(reversed(EARLIER)), [], tmp_path / file_name("b"))
    assert "reused" in caplog.text
    assert same.read_bytes() == earlier.read_bytes()
