"""The paraphrase matcher on its own: schema/ and the real sentence model, no graph engine.

The questions here are written for these tests: none is a wording of schema/ (``questions``,
``paraphrases``, ``not_held_questions``) or of the eval's held-out file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.models import Candidate, Mention
from biokg.graph_agent.paraphrase import MAX_TIED, RelationMatcher
from biokg.graph_agent.planner import DeterministicPlanner
from biokg.graph_agent.question import Question
from biokg.graph_agent.requests import Neighbours
from biokg.schema import load_schema


def _read(matcher: RelationMatcher, frame: str, label: str) -> list[tuple[str, bool | None]]:
    return [(r.type, r.outgoing) for r in matcher.match(frame, {label})]


@pytest.mark.parametrize(
    ("frame", "label", "expected"),
    [
        ("What do physicians prescribe for X?", "Disease", ("INDICATED_FOR", False)),
        ("Which enzymes does X block?", "Drug", ("TARGETS", True)),
        ("What do patients with X complain of?", "Disease", ("HAS_PHENOTYPE", True)),
    ],
)
def test_a_relationship_in_other_words_is_read_first(
    matcher: RelationMatcher, frame: str, label: str, expected: tuple[str, bool]
) -> None:
    assert _read(matcher, frame, label)[0] == expected


@pytest.mark.parametrize(
    ("frame", "label"),
    [
        ("Which firm manufactures X?", "Drug"),
        ("Who came up with the name X?", "GOTerm"),
        ("How many people carry X?", "Disease"),
    ],
)
def test_what_no_relationship_holds_is_read_as_none(
    matcher: RelationMatcher, frame: str, label: str
) -> None:
    assert matcher.match(frame, {label}) == ()


def test_the_entitys_role_gives_the_direction(matcher: RelationMatcher) -> None:
    # one verb, the entity once its subject and once its object
    assert _read(matcher, "What does X lower?", "GOTerm")[0] == ("NEGATIVELY_REGULATES", True)
    assert _read(matcher, "Which processes lower X?", "GOTerm")[0] == (
        "NEGATIVELY_REGULATES",
        False,
    )


def test_near_ties_are_all_tried_best_first(matcher: RelationMatcher) -> None:
    frame, labels = "What does X attenuate?", {"GOTerm"}
    tried = matcher.match(frame, labels)
    closeness = {}
    for score, relation in matcher.scores(frame, labels):
        closeness.setdefault(relation.type, score)
    assert 1 < len(tried) <= MAX_TIED
    assert len({r.type for r in tried}) == len(tried)
    scores = [closeness[r.type] for r in tried]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] - scores[-1] <= matcher.min_margin
    assert tried[0].type == "NEGATIVELY_REGULATES" and tried[0].outgoing is True


def test_a_question_naming_only_the_kind_of_answer_tries_the_closest_type_first(
    planner_with_matcher: DeterministicPlanner, linker: EntityLinker
) -> None:
    # "drugs" of a disease: indications, contraindications and off-label uses all reach Drug
    question = "Which drugs would be risky for a person who has Hypertension?"
    plan = planner_with_matcher.plan(
        planner_with_matcher.reader.understand(Question.parse(question)),
        linker.mentions(Question.parse(question)),
    )
    tried = [r.relations for r in plan.requests if isinstance(r, Neighbours)]
    assert tried[0][0].type == "CONTRAINDICATED_FOR"
    assert len(tried) > 1 and all(len({rel.type for rel in group}) == 1 for group in tried)


def test_a_type_within_one_label_is_tried_the_other_way_last(
    planner_with_matcher: DeterministicPlanner, linker: EntityLinker
) -> None:
    # IS_A joins GO terms to GO terms: the direction read from the words is a guess, so the
    # other way comes last, saying what was asked and what it gives instead
    question = "Which terms is mitochondrion filed under?"
    planner = planner_with_matcher
    requests = planner.plan(
        planner.reader.understand(Question.parse(question)),
        linker.mentions(Question.parse(question)),
    ).requests
    first, last = requests[0], requests[-1]
    assert isinstance(first, Neighbours) and isinstance(last, Neighbours)
    [guessed], [other] = first.relations, last.relations
    assert other.type == guessed.type and other.outgoing is (not guessed.outgoing)
    assert first.caveat is None
    assert last.caveat is not None and "mitochondrion" in last.caveat
    # a type between two labels has one direction from the entity: nothing is added
    question = "What do physicians prescribe for Hypertension?"
    requests = planner.plan(
        planner.reader.understand(Question.parse(question)),
        linker.mentions(Question.parse(question)),
    ).requests
    assert all(r.caveat is None for r in requests if isinstance(r, Neighbours))


def test_an_index_guess_of_plain_words_is_no_entity_beside_a_weak_name(
    planner: DeterministicPlanner,
) -> None:
    # both weak: a name ending in "of", and a full-text hit for two ordinary words
    named = Mention(
        text="Disorganization, mouse, homolog of",
        candidates=[_candidate("OMIM:223200", "Disease", "name", 0.97)],
        weak=True,
    )
    guessed = Mention(
        text="families pass",
        candidates=[_candidate("NCBIGene:132228", "Gene", "fulltext", 0.13)],
        weak=True,
    )
    question = "How do families pass Disorganization, mouse, homolog of on?"
    assert planner.plan(
        planner.reader.understand(Question.parse(question)), [guessed, named]
    ).seeds == [["OMIM:223200"]]
    # a guess for a rare word may be the subject: it stays
    rare = Mention(
        text="progeria",
        candidates=[_candidate("OMIM:176670", "Disease", "fulltext", 0.24)],
        weak=True,
    )
    question = "Does progeria follow Disorganization, mouse, homolog of?"
    assert planner.plan(
        planner.reader.understand(Question.parse(question)), [rare, named]
    ).seeds == [
        ["OMIM:176670"],
        ["OMIM:223200"],
    ]


def _candidate(node: str, label: str, rule: str, score: float) -> Candidate:
    return Candidate(id=node, label=label, name=node, score=score, rule=rule, matched=node)


def test_a_type_answered_by_another_source_is_followed_by_it(matcher: RelationMatcher) -> None:
    # label side effects and FAERS reports answer one question: whichever is read first, the
    # other comes next, before a type that only sounds alike
    tried = _read(matcher, "What health troubles did people develop while on X?", "Drug")
    types = [t for t, _ in tried]
    first = types.index(
        next(t for t in types if t in {"HAS_SIDE_EFFECT", "REPORTED_ADVERSE_EVENT"})
    )
    assert set(types[first : first + 2]) == {"HAS_SIDE_EFFECT", "REPORTED_ADVERSE_EVENT"}
    assert len(set(tried)) == len(tried)


def test_a_cue_that_cannot_touch_the_subject_gives_way_to_the_words_meaning(
    planner_with_matcher: DeterministicPlanner, linker: EntityLinker
) -> None:
    # "cause" cues gene-disease associations; Arachnodactyly is a phenotype, which no such
    # edge touches: what the question means of a phenotype is read from its words
    question = "What is the underlying cause of arachnodactyly?"
    plan = planner_with_matcher.plan(
        planner_with_matcher.reader.understand(Question.parse(question)),
        linker.mentions(Question.parse(question)),
    )
    assert "ASSOCIATED_WITH" in plan.intent.relations  # precondition: the cue is read
    tried = [rel for r in plan.requests if isinstance(r, Neighbours) for rel in r.relations]
    assert tried and tried[0].type == "HAS_PHENOTYPE" and tried[0].outgoing is False


class _Counting:
    """The sentence model, counting the texts it is asked to embed."""

    def __init__(self, embedder: OnnxEmbedder) -> None:
        self.embedder = embedder
        self.model_id = embedder.model_id
        self.texts = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return self.embedder.embed(texts)


def test_the_wordings_vectors_are_kept_for_the_next_process(
    sentence_embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    frame = "What do physicians prescribe for X?"
    first, second = _Counting(sentence_embedder), _Counting(sentence_embedder)
    prepared = RelationMatcher(load_schema(), first, cache_dir=tmp_path)
    assert prepared.prepare() == first.texts > 100  # every wording embedded, and kept
    made = prepared.scores(frame, {"Disease"})
    assert len(list((tmp_path / "paraphrase").glob("wordings-*.npy"))) == 1
    read = RelationMatcher(load_schema(), second, cache_dir=tmp_path).scores(frame, {"Disease"})
    assert second.texts == 1  # only the question
    assert read == made
    assert read == RelationMatcher(load_schema(), sentence_embedder).scores(frame, {"Disease"})
