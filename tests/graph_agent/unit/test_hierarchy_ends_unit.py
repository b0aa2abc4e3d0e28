"""Which end of a type joining a label to itself a question asks for (schema/ ``ends``,
``paraphrase.asked_end``): read from the words, since a sentence vector places "wider" beside
"narrower". No engine.

Wordings are written for these tests from the ontologies' own words for the two ends (OBO's
parent and child, SKOS's broader and narrower, ancestor and descendant) and from English's
words of height and containment; none is a wording of schema/ or of the eval's held-out file.
"""

from __future__ import annotations

import pytest

from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.paraphrase import RelationMatcher, asked_end
from biokg.graph_agent.planner import DeterministicPlanner
from biokg.graph_agent.question import Question
from biokg.graph_agent.requests import Neighbours
from biokg.schema import load_schema

SCHEMA = load_schema()


def _end(rel_type: str, text: str) -> bool | None:
    question = Question.parse(text)
    [place] = question.places(["x"])
    ends = SCHEMA.types[rel_type].ends
    assert ends is not None
    return asked_end(question, place, ends)


@pytest.mark.parametrize(
    ("text", "outgoing"),
    [
        # a word describing the answers' end, before the entity
        ("Name the ancestor terms of X.", True),
        ("List every descendant of X.", False),
        ("Which more generic concepts does X have?", True),
        # the entity described, after it; its possessive describes the answers
        ("Is X a subclass of anything?", True),
        ("What are X's descendants?", False),
        # words of height and containment, the entity before or after them
        ("What is X filed under?", True),
        ("Which concepts sit underneath X?", False),
        ("Beneath which heading is X listed?", True),
        ("Which terms does X subsume?", False),
        ("What encompasses X?", True),
        # a passive swaps the ends
        ("Which terms are encompassed by X?", False),
        ("What is X contained in?", True),
        # both signs agree
        ("Which finer terms lie beneath X?", False),
    ],
)
def test_the_asked_end_of_a_taxonomy_question(text: str, outgoing: bool) -> None:
    assert _end("IS_A", text) is outgoing


@pytest.mark.parametrize(
    ("text", "outgoing"),
    [
        ("Which enclosing structure houses X?", True),
        ("What subunits make up X?", False),
        ("What is X made up of?", False),
        ("Which constituents does X comprise?", False),
        ("What is X inside?", True),
    ],
)
def test_the_asked_end_of_a_parts_question(text: str, outgoing: bool) -> None:
    assert _end("PART_OF", text) is outgoing


@pytest.mark.parametrize(
    "text",
    [
        "What is known about X?",  # no sign
        "Which broader terms does X fall under or include?",  # signs that disagree
    ],
)
def test_no_sign_or_signs_that_disagree_decide_nothing(text: str) -> None:
    assert _end("IS_A", text) is None


def test_only_a_type_joining_a_label_to_itself_has_ends() -> None:
    assert {t for t, spec in SCHEMA.types.items() if spec.ends} == {"IS_A", "PART_OF"}
    for spec in SCHEMA.types.values():
        if spec.ends is not None:
            assert set(spec.from_labels) & set(spec.to_labels)


@pytest.mark.parametrize(
    ("question", "outgoing"),
    [
        # the sentence vector alone reads the first two the other way
        ("Which terms are filed beneath mitochondrion?", False),
        ("Which finer-grained terms come under mitochondrion?", False),
        ("What superordinate concept includes mitochondrion?", True),
    ],
)
def test_the_planner_asks_the_end_the_words_say(
    matcher: RelationMatcher,
    planner_with_matcher: DeterministicPlanner,
    linker: EntityLinker,
    question: str,
    outgoing: bool,
) -> None:
    parsed = Question.parse(question)
    plan = planner_with_matcher.plan(
        planner_with_matcher.reader.understand(parsed), linker.mentions(parsed)
    )
    first = next(r for r in plan.requests if isinstance(r, Neighbours))
    assert first.relations[0].type in ("IS_A", "PART_OF"), first
    assert first.relations[0].outgoing is outgoing
