"""Mention detection on a small in-memory lexicon: which spans of a question are names.

Each question is written here for the rule it exercises; the lexicon is conftest.ROWS.
"""

from __future__ import annotations

import pytest

from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.models import Mention
from biokg.graph_agent.question import Question
from biokg.graph_agent.text import mention_key


def _strong(mentions: list[Mention]) -> dict[str, set[str]]:
    return {m.text: {c.id for c in m.candidates} for m in mentions if m.candidates and not m.weak}


def test_a_common_word_that_names_a_term_is_weak_beside_a_real_name(linker: EntityLinker) -> None:
    # "Severe" is an HPO term; in this question it is an adjective beside the disease's name
    mentions = linker.mentions(Question.parse("Which severe phenotypes does Marfan syndrome have?"))
    assert _strong(mentions) == {"Marfan syndrome": {"OMIM:154700", "ORPHA:558"}}
    [severe] = [m for m in mentions if m.text == "severe"]
    assert severe.weak and [c.id for c in severe.candidates] == ["HP:0012828"]


@pytest.mark.parametrize(
    ("question", "gene_linked"),
    [
        ("What is the trade name of Viagra?", False),  # a word: the brand-name cue
        ("What does TRADE bind?", True),  # written like a symbol: the alias
        ("What is the ID of sildenafil?", False),  # "ID" asks for an identifier
        ("What does trade bind?", False),  # everyday English, whatever the question
        ("What does apoe bind?", True),  # a symbol in lower case, no everyday word
    ],
    ids=["word", "symbol", "identifier-word", "everyday-word", "lower-case-symbol"],
)
def test_a_gene_alias_counts_when_written_like_a_symbol(
    linker: EntityLinker, question: str, gene_linked: bool
) -> None:
    linked = {c.id for m in linker.mentions(Question.parse(question)) for c in m.candidates}
    genes = {"NCBIGene:8717", "NCBIGene:3397", "NCBIGene:348"}
    assert bool(linked & genes) is gene_linked


def test_a_word_of_a_cue_that_is_there_is_no_name(linker: EntityLinker) -> None:
    # "GO" is an alias of HAO1, written like a symbol; here it is the "GO term" cue
    mentions = linker.mentions(Question.parse("What GO terms is FBN1 annotated with?"))
    assert _strong(mentions) == {"FBN1": {"NCBIGene:2200"}}
    assert "NCBIGene:54363" not in {c.id for m in mentions for c in m.candidates}


def test_a_common_word_naming_a_drug_is_no_subject(linker: EntityLinker) -> None:
    # LEAD is a drug (a UNII substance); here "lead" is a verb
    mentions = linker.mentions(Question.parse("Can lead poisoning cause hypertension?"))
    assert _strong(mentions) == {"hypertension": {"MESH:D006973", "HP:0000822"}}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # MFS1 is an alias of FBN1: in brackets after the disease it restates, it is dropped
        ("What causes Marfan syndrome (MFS1)?", {"Marfan syndrome": {"OMIM:154700", "ORPHA:558"}}),
        # in brackets after the gene's own name it is the same node: one mention
        ("What does fibrillin 1 (FBN1) bind?", {"fibrillin 1 (FBN1)": {"NCBIGene:2200"}}),
    ],
    ids=["other-node-dropped", "same-node-merged"],
)
def test_a_parenthesis_restates_the_name_before_it(
    linker: EntityLinker, question: str, expected: dict[str, set[str]]
) -> None:
    assert _strong(linker.mentions(Question.parse(question))) == expected


def test_a_name_may_end_with_a_parenthesis(linker: EntityLinker) -> None:
    mentions = linker.mentions(
        Question.parse("Which drugs act on atypical chemokine receptor 1 (Duffy blood group)?")
    )
    assert _strong(mentions) == {
        "atypical chemokine receptor 1 (Duffy blood group)": {"NCBIGene:2532"}
    }


@pytest.mark.parametrize("verb", ["governs", "shapes", "steers"])
def test_a_verb_before_a_name_stays_outside_it(linker: EntityLinker, verb: str) -> None:
    # the verb and the name are close enough as one phrase to a fuzzy whole-name match of
    # the same node; the name alone is the mention, the verb stays for the relationship
    mentions = linker.mentions(
        Question.parse(f"What {verb} blood vessel endothelial cell differentiation?")
    )
    assert _strong(mentions) == {"blood vessel endothelial cell differentiation": {"GO:0060837"}}
    [mention] = mentions
    assert mention.candidates[0].rule == "name"


def test_a_quoted_phrase_is_one_name_or_an_unknown_one(linker: EntityLinker) -> None:
    mentions = linker.mentions(Question.parse('Which drugs treat "long spindly fingers"?'))
    assert [(m.text, m.candidates) for m in mentions] == [("long spindly fingers", [])]
    [quoted] = linker.mentions(Question.parse('Which genes cause "Marfan syndrome"?'))
    assert {c.id for c in quoted.candidates} == {"OMIM:154700", "ORPHA:558"}


def test_a_rare_name_the_graph_lacks_is_reported_unknown(linker: EntityLinker) -> None:
    mentions = linker.mentions(Question.parse("Which protein is targeted by Zorbaxumab?"))
    assert [(m.text, m.candidates) for m in mentions] == [("Zorbaxumab", [])]


def test_slashes_and_dashes_split_names_that_are_not_one(linker: EntityLinker) -> None:
    mentions = linker.mentions(
        Question.parse("Are FBN1/TRADD and MECOM-associated syndromes related?")
    )
    assert {"FBN1", "TRADD"} <= set(_strong(mentions))


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("Hunter's syndrome", "Hunter syndrome"),  # possessive
        ("multiple endocrine neoplasia type 2B", "Multiple endocrine neoplasia, type IIB"),
        ("5α-reductase deficiency", "5-alpha-reductase deficiency"),
        ("IFNγ receptor", "IFN-gamma receptor"),
        ("Behcet disease", "Behçet disease"),
        ("Meniere disease", "Ménière disease"),
    ],
    ids=[
        "possessive",
        "roman-type-number",
        "greek-letter",
        "greek-letter-in-a-word",
        "accent",
        "accents",
    ],
)
def test_name_keys_ignore_possessives_and_roman_type_numbers(written: str, stored: str) -> None:
    assert mention_key(written) == mention_key(stored)


@pytest.mark.parametrize("written", ["IL-1β", "IL1β", "IL-1beta", "il1-beta"])
def test_a_symbol_written_as_one_word_meets_its_alias_however_dashed(
    linker: EntityLinker, written: str
) -> None:
    [mention] = linker.mentions(Question.parse(f"Is {written} a cytokine?"))
    assert [c.id for c in mention.candidates] == ["NCBIGene:3553"]


def test_a_slash_parts_words_that_are_not_joined(linker: EntityLinker) -> None:
    # "IL/1" is two things, not a way of writing IL1; its joined key would name the gene
    mentions = linker.mentions(Question.parse("Is IL/1β a cytokine?"))
    assert not any(c.id == "NCBIGene:3553" for m in mentions for c in m.candidates)


def test_a_greek_letter_is_a_word_of_the_key_not_dropped() -> None:
    # a key without it made "5β-reductase" the namesake of "5α-reductase", "TNF-α" of "TNF"
    assert mention_key("5β-reductase") != mention_key("5α-reductase")
    assert mention_key("TNF-α") == "tnf alpha" and mention_key("µ-opioid") == "mu opioid"


def test_a_disease_keeps_its_numbered_forms_as_alternatives(linker: EntityLinker) -> None:
    [mention] = linker.mentions(Question.parse("Which gene is mutated in Bartter syndrome?"))
    assert [c.id for c in mention.candidates] == ["ORPHA:112"]
    forms = {c.id for c in mention.alternatives if c.rule == "form"}
    assert forms == {"OMIM:607364", "OMIM:602522"}  # type 3 and type 4A, not the parent


@pytest.mark.parametrize(
    "written",
    ["spinal and bulbar muscular atrophy", "spinal-bulbar muscular atrophy"],
    ids=["head", "head-respelt"],
)
def test_a_qualified_title_is_named_by_its_head(linker: EntityLinker, written: str) -> None:
    # OMIM titles put qualifiers after a comma; people name the disease without them, and a
    # phenotype spelt almost like the head ("Spinal muscular atrophy") is not what they mean
    mentions = linker.mentions(Question.parse(f"What is the cause of {written}?"))
    assert _strong(mentions) == {written: {"OMIM:313200"}}


def test_a_one_word_head_does_not_name_its_qualified_titles(linker: EntityLinker) -> None:
    mentions = linker.mentions(Question.parse("Which genes cause deafness?"))
    assert "OMIM:220290" not in {c.id for m in mentions for c in m.candidates}


def test_an_inverted_of_title_is_named_whole(linker: EntityLinker) -> None:
    # OMIM's "Radial heads, posterior dislocation of": "Radial heads" is no disease
    question = "What is the mode of inheritance of Radial heads, posterior dislocation of?"
    mentions = linker.mentions(Question.parse(question))
    named = [m for m in mentions if "OMIM:178300" in {c.id for c in m.candidates}]
    assert [m.text for m in named] == ["Radial heads, posterior dislocation of"]


def test_a_word_written_like_a_symbol_is_not_respelled(linker: EntityLinker) -> None:
    # ARTEMIS (an alias of DCLRE1C, not in this lexicon) is one letter from "artemin"
    mentions = linker.mentions(
        Question.parse("Does ARTEMIS cause severe combined immunodeficiency?")
    )
    assert "NCBIGene:9048" not in {c.id for m in mentions for c in m.candidates}
    [mention] = linker.mentions(
        Question.parse("Which genes does artemn bind?")
    )  # a typo of a name is still one
    assert [c.id for c in mention.candidates] == ["NCBIGene:9048"]


def test_a_symbol_the_lemmatizer_reads_as_a_stop_word_is_still_a_symbol(
    linker: EntityLinker,
) -> None:
    # simplemma reads "ins" as "in"; written "INS" it is insulin's symbol, "in" is no name
    [mention] = linker.mentions(Question.parse("Which GO terms are annotated to INS?"))
    assert [c.id for c in mention.candidates] == ["NCBIGene:3630"]
    assert linker.mentions(Question.parse("Which genes are expressed in the pancreas?")) == []


def test_a_long_name_in_capitals_is_still_respelled(linker: EntityLinker) -> None:
    # ChEMBL writes names in capitals; a typo of one is a typo, not an unknown symbol
    [mention] = linker.mentions(Question.parse("What is SILDENAFLI used for?"))
    assert [c.id for c in mention.candidates] == ["CHEMBL.COMPOUND:CHEMBL192"]


def test_a_double_barrelled_name_is_not_named_by_its_second_half(linker: EntityLinker) -> None:
    # "Barrett syndrome" is a synonym of Barrett esophagus; Eagle-Barrett is prune belly
    mentions = linker.mentions(Question.parse("What is the triad of the Eagle-Barrett syndrome?"))
    assert "HP:0100580" not in {c.id for m in mentions for c in m.candidates}
    [mention] = linker.mentions(Question.parse("Is reflux a feature of Barrett syndrome?"))[-1:]
    assert [c.id for c in mention.candidates] == ["HP:0100580"]


def test_a_name_joined_by_of_is_tried_whole(linker: EntityLinker) -> None:
    # the last words name the gene AFP; the whole phrase is a phenotype
    question = "Which tumours show increased levels of serum alpha fetoprotein?"
    assert _strong(linker.mentions(Question.parse(question))) == {
        "increased levels of serum alpha fetoprotein": {"HP:0006254"}
    }
    assert _strong(linker.mentions(Question.parse("What does alpha fetoprotein bind?"))) == {
        "alpha fetoprotein": {"NCBIGene:174"}
    }


def test_a_whole_phrase_must_hold_the_words_the_parts_left_loose(linker: EntityLinker) -> None:
    # the exact GO name and a verb after it: the whole phrase is as close to the tensidol A
    # term, but holds no "dampen"; the exact name stays the mention
    question = "What does negative regulation of tensidol B biosynthetic process dampen?"
    assert _strong(linker.mentions(Question.parse(question))) == {
        "negative regulation of tensidol B biosynthetic process": {"GO:1900711"}
    }


def test_a_types_number_is_no_gene_alias(linker: EntityLinker) -> None:
    # "II" is an alias of GCNT2; after "type" it is the number of a type the graph lacks
    typed = linker.mentions(
        Question.parse("What phenotypes does Hollow nail syndrome type II have?")
    )
    assert not {c.id for m in typed for c in m.candidates}
    [alone] = linker.mentions(Question.parse("Which pathways involve II?"))
    assert [c.id for c in alone.candidates] == ["NCBIGene:2651"]


def test_a_respelt_word_is_read_as_the_word_its_slips_lead_to() -> None:
    # "mitochondrium" is two edits from mitochondrion, mitochondria and mitochondrial; only the
    # first is reached by slips (a vowel for a vowel, a key for its neighbour), though the
    # last is the commonest word of the names
    rows = [
        {"id": "GO:0005739", "label": "GOTerm", "name": "mitochondrion"},
        {"id": "HP:0001427", "label": "Phenotype", "name": "Mitochondrial inheritance",
         "synonyms": ["Mitochondrial"]},
        {"id": "GO:0005743", "label": "GOTerm", "name": "mitochondrial inner membrane"},
        {"id": "GO:0005759", "label": "GOTerm", "name": "mitochondrial matrix"},
        {"id": "NCBIGene:5498", "label": "Gene", "name": "protoporphyrinogen oxidase",
         "symbol": "PPOX"},
    ]  # fmt: skip
    linker = EntityLinker(Lexicon.from_rows(rows))
    found = {m.text: [c.id for c in m.candidates] for m in linker.mentions(
        Question.parse("Is PPOX localized to the mitochondrium?")
    )}  # fmt: skip
    assert found == {"PPOX": ["NCBIGene:5498"], "mitochondrium": ["GO:0005739"]}
