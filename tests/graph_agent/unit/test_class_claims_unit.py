"""Claims about classes, without an engine: a drug's kind named by what it acts on, a claim
checked from the side its relationship starts at, and a plain-word gene alias that is GO's name
for a class of products.

The rows are real names (GO 2022-07-01, HPO 2025-01-16, ChEMBL, NCBI Gene aliases).
"""

from __future__ import annotations

import pytest

from biokg.graph_agent.intent import QuestionReader
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.planner import DeterministicPlanner
from biokg.graph_agent.question import Question
from biokg.graph_agent.requests import ClaimCheck
from biokg.schema import load_schema

MF = "molecular_function"
ROWS = [
    {"id": "CHEMBL.COMPOUND:CHEMBL941", "label": "Drug", "name": "IMATINIB"},
    {"id": "CHEMBL.COMPOUND:CHEMBL25", "label": "Drug", "name": "ASPIRIN"},
    {"id": "DAILYMED:a1b2c3", "label": "Label", "name": "Aspirin"},
    {"id": "GO:0016491", "label": "GOTerm", "name": "oxidoreductase activity", "namespace": MF},
    {"id": "GO:0051354", "label": "GOTerm", "namespace": "biological_process",
     "name": "negative regulation of oxidoreductase activity",
     "synonyms": ["oxidoreductase inhibitor"]},
    {"id": "GO:0016301", "label": "GOTerm", "name": "kinase activity", "namespace": MF},
    {
        "id": "GO:0019210",
        "label": "GOTerm",
        "name": "kinase inhibitor activity",
        "namespace": MF,
    },
    {"id": "GO:0004386", "label": "GOTerm", "name": "helicase activity", "namespace": MF},
    {
        "id": "NCBIGene:164045",
        "label": "Gene",
        "name": "helicase, lymphoid specific",
        "symbol": "HELLS",
        "synonyms": ["helicase", "LSH", "PASG"],
    },
    {"id": "GO:0008233", "label": "GOTerm", "name": "peptidase activity", "namespace": MF,
     "synonyms": ["protease activity"]},
    {"id": "NCBIGene:100616101", "label": "Gene", "name": "endogenous retrovirus group K member 9",
     "symbol": "ERVK-9", "synonyms": ["Protease"]},
    {"id": "GO:0005183", "label": "GOTerm", "namespace": MF,
     "name": "gonadotropin hormone-releasing hormone activity", "synonyms": ["GnRH activity"]},
    {"id": "NCBIGene:2796", "label": "Gene", "name": "gonadotropin releasing hormone 1",
     "symbol": "GNRH1", "synonyms": ["GNRH", "LHRH"]},
    {"id": "NCBIGene:1027", "label": "Gene", "name": "cyclin dependent kinase inhibitor 1B",
     "symbol": "CDKN1B"},
    {"id": "HP:0001250", "label": "Phenotype", "name": "Seizure"},
    {"id": "ORPHA:33069", "label": "Disease", "name": "Dravet syndrome"},
]  # fmt: skip


@pytest.fixture(scope="module")
def reader() -> QuestionReader:
    return QuestionReader(load_schema())


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon.from_rows(ROWS)


@pytest.fixture(scope="module")
def linker(lexicon: Lexicon, reader: QuestionReader) -> EntityLinker:
    return EntityLinker.reading_with(lexicon, reader)


def _linked(linker: EntityLinker, text: str) -> list[set[str]]:
    return [{c.id for c in m.candidates} for m in linker.mentions(Question.parse(text))]


def test_the_drug_nouns_are_the_heads_of_schema_drug_nouns(reader: QuestionReader) -> None:
    nouns = reader.label_nouns("Drug")
    assert {"inhibitor", "agonist", "drug", "molecule"} <= nouns
    assert "kinase" not in nouns and "small" not in nouns


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a drug's kind: the words before the noun name what it acts on
        ("Is imatinib a kinase inhibitor?", [{"CHEMBL.COMPOUND:CHEMBL941"}, {"GO:0016301"}]),
        # the drug's name is also a label's title, and the longer span is chosen first
        ("Is aspirin an oxidoreductase inhibitor?", [{"CHEMBL.COMPOUND:CHEMBL25"}, {"GO:0016491"}]),
        # a gene's: GO's activity of the whole phrase, the gene product's own
        ("Is CDKN1B a kinase inhibitor?", [{"NCBIGene:1027"}, {"GO:0019210"}]),
        # not a yes/no question: the whole name stands
        ("Which genes have kinase inhibitor activity?", [{"GO:0019210"}]),
    ],
    ids=["drug-kind", "drug-also-a-title", "gene-activity", "not-polar"],
)
def test_a_drug_kind_names_what_it_acts_on(
    linker: EntityLinker, question: str, expected: list[set[str]]
) -> None:
    assert _linked(linker, question) == expected


def test_a_plain_word_alias_that_names_a_class_is_the_class(lexicon: Lexicon) -> None:
    assert [(e.id, e.rule) for e in lexicon.by_key["helicase"]] == [("GO:0004386", "derived")]
    assert [(e.id, e.rule) for e in lexicon.by_key["protease"]] == [("GO:0008233", "derived")]
    # the gene keeps its other aliases, and an abbreviation stays a name
    assert [e.id for e in lexicon.by_key["lsh"]] == ["NCBIGene:164045"]
    assert "NCBIGene:2796" in {e.id for e in lexicon.by_key["gnrh"]}


def test_a_claim_is_checked_from_where_its_relationship_starts(
    reader: QuestionReader, linker: EntityLinker
) -> None:
    planner = DeterministicPlanner(load_schema(), reader=reader)
    question = Question.parse("Is seizure a feature of Dravet syndrome?")
    plan = planner.plan(reader.understand(question), linker.mentions(question))
    [claim] = [r for r in plan.requests if isinstance(r, ClaimCheck)]
    assert claim.subjects == ("ORPHA:33069",) and claim.objects == ("HP:0001250",)
    # the other way round it is already so
    question = Question.parse("Does Dravet syndrome present with seizure?")
    plan = planner.plan(reader.understand(question), linker.mentions(question))
    [claim] = [r for r in plan.requests if isinstance(r, ClaimCheck)]
    assert claim.subjects == ("ORPHA:33069",) and claim.objects == ("HP:0001250",)
