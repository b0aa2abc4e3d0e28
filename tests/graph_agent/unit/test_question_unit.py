"""The question parsed once: offsets, keys, lemmas and grammar, and the later stages reading
the parse instead of the string."""

from __future__ import annotations

import pytest

from biokg.graph_agent import question as question_module
from biokg.graph_agent import text
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.models import Mention
from biokg.graph_agent.planner import DeterministicPlanner
from biokg.graph_agent.question import Question


def test_words_keep_their_offsets_keys_and_lemmas() -> None:
    q = Question.parse("  Which genes cause\tCrohn's disease type II?")
    assert q.text == "Which genes cause Crohn's disease type II?"
    assert [t.text for t in q.tokens] == [
        "Which",
        "genes",
        "cause",
        "Crohn",
        "disease",
        "type",
        "II",
    ]
    assert [q.text[t.start : t.end] for t in q.tokens][3] == "Crohn's"
    assert q.lemmas[:3] == ("which", "gene", "cause")
    assert q.keys[3:] == ("crohn", "disease", "type", "ii")
    assert not q.polar and not q.negated


@pytest.mark.parametrize(
    ("written", "polar", "negated"),
    [
        ("Does FBN1 cause Marfan syndrome?", True, False),
        ("FBN1 is not associated with Marfan syndrome", True, True),  # a statement to check
        ("Could you list drugs without a boxed warning?", False, False),  # a polite request
        ("I'd like to know the symptoms of Marfan syndrome.", False, False),  # first person
        ("We need genes not linked to myopia", False, False),
        ("", False, False),
    ],
)
def test_the_grammar_is_read_with_the_words(written: str, polar: bool, negated: bool) -> None:
    q = Question.parse(written)
    assert (q.polar, q.negated) == (polar, negated)


@pytest.mark.parametrize(
    ("written", "kind"),
    [
        ("APEX1 repairs DNA with what endonuclease?", "endonuclease"),
        ("Which enzyme does ABCA1 encode?", "enzyme"),  # before the question's auxiliary
        ("What insulin products treat diabetes?", None),  # the kind is "products"
        ("What BRCA1 variants are known?", None),
        ("What does BRCA1 do?", None),
        ("Is FBN1 a gene?", None),
    ],
)
def test_the_kind_a_question_names_its_answers_by(written: str, kind: str | None) -> None:
    q = Question.parse(written)
    assert (None if q.asked_kind is None else q.tokens[q.asked_kind].text) == kind


@pytest.mark.parametrize(
    ("written", "verb"),
    [
        ("What does negative regulation of rRNA processing dampen?", "dampen"),
        ("Which genes does insulin regulate?", "regulate"),
        ("What does BRCA1 do?", "do"),
        ("What does Viagra?", None),  # nothing between "does" and the last word
        ("Which diseases does Viagra treat in children?", None),  # the verb ends no question
        ("Does insulin trampoline cause diabetes?", None),  # yes/no: the verb follows the name
        ("What causes Marfan syndrome?", None),
        ("What does BRCA1 regulate in BRCA2?", None),
    ],
)
def test_the_verb_that_ends_a_question_asked_with_do(written: str, verb: str | None) -> None:
    q = Question.parse(written)
    assert (None if q.final_verb is None else q.tokens[q.final_verb].text) == verb


@pytest.mark.parametrize(
    ("written", "absence"),
    [
        ("Which genes are not associated with cystic fibrosis?", True),
        ("What does FBN1 never cause?", True),
        ("Which drugs should not be given with warfarin?", False),  # advice: label text
        ("Is FBN1 not associated with Marfan syndrome?", False),  # a yes/no question
        ("Which genes are associated with cystic fibrosis?", False),
    ],
)
def test_a_question_asking_for_what_is_not_related(written: str, absence: bool) -> None:
    assert Question.parse(written).asks_absence is absence


def test_a_span_keeps_the_parenthesis_that_closes_its_name() -> None:
    q = Question.parse('What is "acetylcholinesterase (Cartwright blood group)"?')
    assert q.span_text(2, 6) == "acetylcholinesterase (Cartwright blood group)"
    assert q.span_text(3, 4) == "Cartwright"


def test_a_name_is_found_wherever_it_is_written_again() -> None:
    q = Question.parse("Is Marfan syndrome, or marfan-syndrome, a kind of MARFAN SYNDROME?")
    assert q.places(["marfan", "syndrome"]) == [(1, 3), (4, 6), (9, 11)]
    assert q.places([]) == []


def test_the_subject_is_framed_where_it_stands() -> None:
    q = Question.parse("What do patients with Marfan syndrome have?")
    linked = Mention(text="Marfan syndrome", candidates=[], tokens=(4, 6))
    assert q.framed(linked, "X") == "What do patients with X have?"
    named_apart = Mention(text="marfan SYNDROME", candidates=[])  # no token range: by its words
    assert q.framed(named_apart, "X") == "What do patients with X have?"
    absent = Mention(text="Hypertension", candidates=[])
    assert q.framed(absent, "X") == q.text


@pytest.mark.parametrize(
    "written",
    [
        "Which severe phenotypes does Marfan syndrome have?",
        'Which genes cause "Marfan syndrome"?',
        "Are FBN1/TRADD and MECOM-associated syndromes related?",
        "Which protein is targeted by Zorbaxumab?",
    ],
)
def test_each_mention_covers_the_tokens_its_text_stands_on(
    linker: EntityLinker, written: str
) -> None:
    q = Question.parse(written)
    mentions = linker.mentions(q)
    assert mentions
    assert [m.tokens[0] for m in mentions] == sorted(m.tokens[0] for m in mentions)
    for m in mentions:
        assert m.tokens is not None
        assert q.span_text(*m.tokens) == m.text


def test_understanding_linking_reading_and_planning_read_the_parse_not_the_string(
    linker: EntityLinker, planner: DeterministicPlanner, monkeypatch: pytest.MonkeyPatch
) -> None:
    q = Question.parse("Which genes are associated with Marfan syndrome and Hypertension?")

    def forbidden(*_: object) -> None:
        raise AssertionError("the question was split again")

    monkeypatch.setattr(text, "tokens", forbidden)
    monkeypatch.setattr(question_module, "tokens", forbidden)
    monkeypatch.setattr(Question, "parse", forbidden)
    reading = planner.reader.understand(q)
    mentions = linker.mentions(q, reading)
    intent = planner.intent(reading, mentions)
    plan = planner.plan(reading, mentions, intent=intent)
    assert plan.intent is intent
    assert plan.seeds and plan.requests


@pytest.mark.parametrize(
    ("words", "numbered"),
    [
        # how OMIM and Orphanet number a disease's forms at the end of its name
        ("2", True),
        ("2B", True),
        ("IV", True),
        ("type 4", True),
        ("type IIA", True),
        ("group 2", True),
        # a letter or a long number names no form; a type word alone is no number
        ("A", False),
        ("123", False),
        ("type", False),
        ("syndrome 2", False),
    ],
)
def test_a_forms_number_is_read_once_for_linking_and_the_lexicon(
    words: str, numbered: bool
) -> None:
    assert text.numbered_form(words.split()) is numbered
