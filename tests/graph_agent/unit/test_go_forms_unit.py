"""Names GO's conventions imply (products, short processes, relational adjectives), plural heads
and numbered disease titles: from the name to the lexicon key to the mention.

The rows are real GO, OMIM and HPO names (GO 2022-07-01, HPO 2025-01-16); the GO namespaces
are the terms' own.
"""

from __future__ import annotations

import pytest

from biokg.graph_agent.go_forms import derived_names, relational_adjectives
from biokg.graph_agent.intent import QuestionReader
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.question import Question
from biokg.schema import load_schema

ROWS = [
    {"id": "GO:0004672", "label": "GOTerm", "name": "protein kinase activity",
     "namespace": "molecular_function"},
    {"id": "GO:0004713", "label": "GOTerm", "name": "protein tyrosine kinase activity",
     "synonyms": ["protein-tyrosine kinase activity"], "namespace": "molecular_function"},
    {"id": "GO:0008083", "label": "GOTerm", "name": "growth factor activity",
     "namespace": "molecular_function"},
    {"id": "GO:0040007", "label": "GOTerm", "name": "growth", "namespace": "biological_process"},
    # a name that uses the plural "factors": the word is the graph's, so it is not lemmatized
    {"id": "GO:0003045", "label": "GOTerm",
     "name": "regulation of systemic arterial blood pressure by physical factors",
     "namespace": "biological_process"},
    {"id": "GO:0003824", "label": "GOTerm", "name": "catalytic activity",
     "namespace": "molecular_function"},
    {"id": "GO:0008286", "label": "GOTerm", "name": "insulin receptor signaling pathway",
     "synonyms": ["insulin receptor signalling pathway"], "namespace": "biological_process"},
    {"id": "GO:0005634", "label": "GOTerm", "name": "nucleus", "synonyms": ["cell nucleus"],
     "namespace": "cellular_component"},
    # the adjective is a word of the graph's names ("nuclear envelope")
    {"id": "GO:0005635", "label": "GOTerm", "name": "nuclear envelope",
     "namespace": "cellular_component"},
    {"id": "GO:0006629", "label": "GOTerm", "name": "lipid metabolic process",
     "namespace": "biological_process"},
    {"id": "NCBIGene:4000", "label": "Gene", "name": "lamin A/C", "symbol": "LMNA"},
    # a function's synonym naming one gene's product: the product is the gene
    {"id": "GO:0004693", "label": "GOTerm",
     "name": "cyclin-dependent protein serine/threonine kinase activity",
     "synonyms": ["cyclin-dependent kinase 4 activity"], "namespace": "molecular_function"},
    {"id": "NCBIGene:1019", "label": "Gene", "name": "cyclin dependent kinase 4", "symbol": "CDK4"},
    {"id": "OMIM:604931", "label": "Disease", "name": "Cortisone reductase deficiency 1"},
    {"id": "OMIM:614662", "label": "Disease", "name": "Cortisone reductase deficiency 2"},
    {"id": "OMIM:235200", "label": "Disease", "name": "Hemochromatosis, type 1"},
    {"id": "OMIM:613313", "label": "Disease", "name": "Hemochromatosis type 4"},
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "namespace", "forms"),
    [
        # GO's "<product> activity": the product
        ("protein kinase activity", "molecular_function", ["protein kinase"]),
        # a protein kinase named by what it phosphorylates, without "protein"
        (
            "protein tyrosine kinase activity",
            "molecular_function",
            ["protein tyrosine kinase", "tyrosine kinase"],
        ),
        # an adjective before "activity" is no product
        ("catalytic activity", "molecular_function", []),
        # a qualified name has no short form
        ("catalytic activity, acting on a protein", "molecular_function", []),
        # a signalling pathway by its process, and by its ligand without the receptor
        (
            "insulin receptor signalling pathway",
            "biological_process",
            ["insulin receptor signalling", "insulin signalling"],
        ),
        ("Wnt signaling pathway", "biological_process", ["Wnt signaling"]),
        # a component's relational adjective, if the graph's names use it
        ("nucleus", "cellular_component", ["nuclear"]),
        # only components have one
        ("growth", "biological_process", []),
        ("lipid metabolic process", "biological_process", []),
    ],
    ids=[
        "product",
        "kinase-by-residue",
        "adjective-not-product",
        "qualified",
        "signalling",
        "signaling-no-receptor",
        "component-adjective",
        "process-no-adjective",
        "no-convention",
    ],
)
def test_derived_names(name: str, namespace: str, forms: list[str]) -> None:
    known = {"nuclear", "envelope"}.__contains__
    assert list(derived_names(name, namespace, known=known)) == forms


def test_an_adjective_no_name_uses_is_not_derived() -> None:
    # "lysosomal" by the -ome ending; "lysosomic" (the -e ending) is no word of the graph's
    assert relational_adjectives("lysosome", known={"lysosomal"}.__contains__) == ["lysosomal"]
    assert relational_adjectives("lysosome", known=set().__contains__) == []


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon.from_rows(ROWS)


def test_derived_forms_are_exact_keys_of_their_own_rule(lexicon: Lexicon) -> None:
    entries = lexicon.by_key["protein kinase"]
    assert [(e.id, e.rule, e.text) for e in entries] == [
        ("GO:0004672", "derived", "protein kinase")
    ]
    assert {e.id for e in lexicon.by_key["nuclear"]} == {"GO:0005634"}
    # a form is no name to respell: neither typo-tolerant list holds it
    assert "protein kinase" not in lexicon.fuzzy_keys
    assert "tyrosine kinase" not in lexicon.fuzzy_keys


def test_a_product_that_names_a_gene_is_left_to_the_gene(lexicon: Lexicon) -> None:
    entries = lexicon.by_key["cyclin dependent kinase 4"]
    assert [(e.id, e.rule) for e in entries] == [("NCBIGene:1019", "name")]
    # the term's own product stays its form
    own = lexicon.by_key["cyclin dependent protein serine threonine kinase"]
    assert [(e.id, e.rule) for e in own] == [("GO:0004693", "derived")]


def test_a_numbered_title_is_keyed_by_its_family_name(lexicon: Lexicon) -> None:
    # "Cortisone reductase deficiency" names both forms; one word ("Hemochromatosis") does not
    family = lexicon.by_key["cortisone reductase deficiency"]
    assert {(e.id, e.rule) for e in family} == {("OMIM:604931", "base"), ("OMIM:614662", "base")}
    assert "hemochromatosis" not in lexicon.by_key


@pytest.fixture(scope="module")
def linker(lexicon: Lexicon) -> EntityLinker:
    return EntityLinker.reading_with(lexicon, QuestionReader(load_schema()))


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a plural head is the singular name: "growth factors" is no mention of growth
        ("Which genes encode growth factors?", {"GO:0008083"}),
        ("Which genes are protein kinases?", {"GO:0004672"}),
        ("Which genes code for tyrosine kinases?", {"GO:0004713"}),
        ("Is LMNA a nuclear protein?", {"NCBIGene:4000", "GO:0005634"}),
        ("Which genes take part in insulin signalling?", {"GO:0008286"}),
        (
            "What are the symptoms of Cortisone reductase deficiency?",
            {"OMIM:604931", "OMIM:614662"},
        ),
        # the same shapes around words no name uses name nothing
        ("Which genes encode quorble kinases?", set()),
        ("Which genes take part in blorf signaling?", set()),
    ],
    ids=[
        "plural-product",
        "product-of-cue-words",
        "kinase-by-residue",
        "adjective",
        "short-process",
        "numbered-family",
        "invented-product",
        "invented-process",
    ],
)
def test_mentions_of_go_forms(linker: EntityLinker, question: str, expected: set[str]) -> None:
    linked = {c.id for m in linker.mentions(Question.parse(question)) for c in m.candidates}
    assert linked == expected
