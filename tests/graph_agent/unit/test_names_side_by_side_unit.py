"""Where a name ends, without an engine: a word that names a node on its own is another mention,
not an unnamed word of its neighbour's phrase ("Does <gene> bind <ligand>?"), while a word that
names nothing still marks its neighbour as part of an unknown name; a name's last letter "A" is
no article.

The rows are real names (GO 2022-07-01 molecular functions, NCBI Gene names and aliases).
"""

from __future__ import annotations

import pytest

from biokg.graph_agent.intent import QuestionReader
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.question import Question
from biokg.schema import load_schema

MF = "molecular_function"
ROWS = [
    {"id": "NCBIGene:2645", "label": "Gene", "name": "glucokinase", "symbol": "GCK",
     "synonyms": ["HK4", "MODY2"]},
    {"id": "NCBIGene:1756", "label": "Gene", "name": "dystrophin", "symbol": "DMD"},
    {"id": "NCBIGene:51761", "label": "Gene", "name": "ATPase phospholipid transporting 8A2",
     "symbol": "ATP8A2", "synonyms": ["ATP", "ATPIB"]},
    {"id": "GO:0005524", "label": "GOTerm", "name": "ATP binding", "namespace": MF},
    {"id": "GO:0003779", "label": "GOTerm", "name": "actin binding", "namespace": MF},
    {"id": "NCBIGene:3630", "label": "Gene", "name": "insulin", "symbol": "INS"},
    {"id": "NCBIGene:10144", "label": "Gene", "symbol": "FAM13A",
     "name": "family with sequence similarity 13 member A"},
    {"id": "NCBIGene:23196", "label": "Gene", "symbol": "FAM120A",
     "name": "family with sequence similarity 120A"},
    {"id": "NCBIGene:84498", "label": "Gene", "symbol": "FAM120B",
     "name": "family with sequence similarity 120B"},
    {"id": "NCBIGene:54954", "label": "Gene", "symbol": "FAM120C",
     "name": "family with sequence similarity 120C"},
]  # fmt: skip


@pytest.fixture(scope="module")
def linker() -> EntityLinker:
    return EntityLinker.reading_with(Lexicon.from_rows(ROWS), QuestionReader(load_schema()))


def _linked(linker: EntityLinker, text: str) -> list[set[str]]:
    return [{c.id for c in m.candidates} for m in linker.mentions(Question.parse(text))]


@pytest.mark.parametrize(
    ("question", "gene", "function"),
    [
        ("Does glucokinase bind ATP?", "NCBIGene:2645", "GO:0005524"),
        ("Does GCK bind ATP?", "NCBIGene:2645", "GO:0005524"),
        ("Does dystrophin bind actin?", "NCBIGene:1756", "GO:0003779"),
        ("Does dystrophin bind to actin?", "NCBIGene:1756", "GO:0003779"),
    ],
)
def test_a_gene_named_beside_what_it_binds_is_a_mention_of_its_own(
    linker: EntityLinker, question: str, gene: str, function: str
) -> None:
    # the binding function, not the gene whose alias is the ligand's abbreviation
    assert _linked(linker, question) == [{gene}, {function}]


def test_a_word_that_names_nothing_still_marks_an_unknown_name(linker: EntityLinker) -> None:
    # "trampoline" names no node: "insulin" qualifies it, as before
    assert _linked(linker, "What does insulin trampoline regulate?") == []


def test_a_name_ending_in_the_letter_a_is_linked_whole(linker: EntityLinker) -> None:
    # not the family of numbered members its first words also name
    question = "What is family with sequence similarity 13 member A annotated with?"
    assert _linked(linker, question) == [{"NCBIGene:10144"}]
