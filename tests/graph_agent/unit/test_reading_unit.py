"""What a question asks (intent) and how it is researched (plan), on the small lexicon.

The planner's choice of typed request is checked for each class of question; the questions
are written here for the class, with names from conftest.ROWS.
"""

from __future__ import annotations

import pytest

from biokg.graph_agent.intent import Intent, QuestionReader, identifier_names
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.models import Candidate, Mention
from biokg.graph_agent.paraphrase import frame
from biokg.graph_agent.planner import DeterministicPlanner
from biokg.graph_agent.question import Question
from biokg.graph_agent.requests import (
    Attribute,
    ChainWalk,
    ClaimCheck,
    Intersection,
    LabelText,
    Neighbours,
)
from biokg.schema import load_schema


def _intent(reader: QuestionReader, question: Question, mentions: list[Mention] = ()) -> Intent:
    """The intent of ``question`` with ``mentions`` linked: understood, then read."""
    return reader.intent(reader.understand(question), mentions)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which pathways include PTEN?", "look-up"),
        ("Does imatinib target ABL1?", "verification"),
        ("Is Noonan syndrome inherited?", "verification"),
        ("What are the brand names of imatinib?", "attribute"),
        ("How is KCNQ1 connected to long QT syndrome?", "path"),
        ("What do Loeys-Dietz syndrome and Noonan syndrome have in common?", "shared"),
        ("Which genes are not associated with Noonan syndrome?", "absence"),
        ("When was imatinib approved?", "not-held"),
        (
            "A toddler with short fingers and seizures but no fever: which diseases fit?",
            "diagnosis",
        ),
    ],
)
def test_the_reading_names_the_kind_of_request_before_linking(
    reader: QuestionReader, question: str, kind: str
) -> None:
    reading = reader.understand(Question.parse(question))
    assert reading.request == kind
    assert (reading.described is not None) == (kind == "diagnosis")


def test_the_reading_holds_each_cue_where_the_question_writes_it(reader: QuestionReader) -> None:
    reading = reader.understand(Question.parse("Which drugs are indicated for gout?"))
    spans = {(c.vocabulary, c.name): (c.start, c.end) for c in reading.cues}
    # "drugs" is token 1, "indicated" token 3
    assert spans[("label", "Drug")] == (1, 2)
    assert spans[("relation", "INDICATED_FOR")] == (3, 4)
    assert reading.reach is not None and {"Drug", "Disease"} <= reading.reach


def test_the_intent_reads_the_readings_matches_without_matching_again(
    reader: QuestionReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = Question.parse("Which genes are associated with the disease Noonan syndrome?")
    reading = reader.understand(question)
    monkeypatch.setattr(reader, "_starting", {})  # no phrase could be matched again
    bare = reader.intent(reading, ())
    named = reader.intent(reading, [_named("Noonan syndrome", "Disease")])
    assert bare.relations == named.relations == ("ASSOCIATED_WITH",)
    # the label noun before the linked name says what it is, and asks for nothing
    assert named.named_as == {"Noonan syndrome": "Disease"}
    assert named.target_labels == ("Gene",)


@pytest.mark.parametrize(
    ("question", "polar", "negated"),
    [
        ("Is Marfan syndrome inherited?", True, False),
        ("Can mutations in FBN1 cause Marfan syndrome?", True, False),
        ("Marfan syndrome is not associated with FBN1", True, True),  # a statement to check
        ("Can you suggest medicines for hypertension?", False, False),  # a polite request
        ("List the features of Marfan syndrome.", False, False),
        ("Which genes cause Marfan syndrome?", False, False),
        ("what is a drug to treat hypertension", False, False),  # no question mark
    ],
)
def test_yes_no_questions_and_statements_are_told_from_requests(
    reader: QuestionReader, question: str, polar: bool, negated: bool
) -> None:
    intent = _intent(reader, Question.parse(question))
    assert (intent.polar, intent.negated) == (polar, negated)


@pytest.mark.parametrize(
    ("question", "relation"),
    [
        ("What is caused by variants in FBN1?", "ASSOCIATED_WITH"),  # lemma: caused → cause
        ("Which disorders are characterized by arachnodactyly?", "HAS_PHENOTYPE"),
        ("What is the mode of inheritance of Marfan syndrome?", "HAS_MODE_OF_INHERITANCE"),
        ("Which receptors does sildenafil block?", "TARGETS"),
    ],
)
def test_relation_cues_are_read_by_lemma(
    reader: QuestionReader, question: str, relation: str
) -> None:
    assert relation in _intent(reader, Question.parse(question)).relations


def test_grammar_phrases_are_no_cues(reader: QuestionReader) -> None:
    # "loss-of-function" holds "function" (a GO cue): as a whole it is how the variant acts
    intent = _intent(reader, Question.parse("What is caused by loss-of-function variants in FBN1?"))
    assert intent.relations == ("ASSOCIATED_WITH",)
    assert intent.kinds == ()


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Where is FBN1 localized?", "cellular_component"),
        ("What is the function of FBN1?", "molecular_function"),
        ("Which processes is FBN1 involved in?", "biological_process"),
        ("What does the boxed warning of Viagra say?", "boxed_warning"),
        ("What are the side effects of Viagra?", "adverse_reactions"),
    ],
)
def test_kinds_of_answer_are_read_from_schema(
    reader: QuestionReader, question: str, kind: str
) -> None:
    assert kind in _intent(reader, Question.parse(question)).kinds


def test_inverse_phrases_keep_their_written_plural(reader: QuestionReader) -> None:
    # "kinds of" asks for subtypes, "a kind of" for the parent: lemmas would merge the two
    assert (
        "IS_A" in _intent(reader, Question.parse("What are the kinds of arachnodactyly?")).inverse
    )
    assert (
        "IS_A" not in _intent(reader, Question.parse("What is arachnodactyly a kind of?")).inverse
    )


@pytest.mark.parametrize(
    ("question", "attribute", "prefixes"),
    [
        ("What is the tradename of sildenafil?", "brand_names", ()),
        ("What is the active ingredient of Viagra?", "name", ()),
        ("What is the UNII of sildenafil?", "xrefs", ("UNII",)),
        ("What is the Disease Ontology identifier of Marfan syndrome?", "xrefs", ("DOID",)),
        ("Which genes does FBN1 interact with?", None, ()),
    ],
)
def test_attribute_questions_name_the_property(
    tmp_path, question: str, attribute: str | None, prefixes: tuple[str, ...]
) -> None:
    schema = load_schema()
    reader = QuestionReader(schema, prefix_names=identifier_names(schema, tmp_path))
    intent = _intent(reader, Question.parse(question))
    assert intent.attribute == attribute
    assert set(prefixes) <= set(intent.prefixes)


@pytest.mark.parametrize(
    "question",
    [
        "What is the GWAS p-value for FBN1?",
        "When was Viagra approved?",
        "Is sildenafil metabolized by the liver?",
        "How common is Marfan syndrome?",
    ],
)
def test_questions_about_data_no_source_holds_are_marked(
    reader: QuestionReader, question: str
) -> None:
    assert _intent(reader, Question.parse(question)).asks_not_held


# -- plans ----------------------------------------------------------------------------------
def _plan(planner: DeterministicPlanner, linker: EntityLinker, question: str):
    return planner.plan(
        planner.reader.understand(Question.parse(question)),
        linker.mentions(Question.parse(question)),
        present={"Gene", "GOTerm"} | {"Disease", "Phenotype", "Drug", "Label", "LabelSection"},
    )


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("Marfan syndrome is an autosomal dominant disease", ClaimCheck),
        ("Is FBN1 associated with Marfan syndrome?", ClaimCheck),
        ("What is the tradename of sildenafil?", Attribute),
        ("What does the boxed warning of Viagra say?", LabelText),
        ("Which genes have both arachnodactyly and Marfan syndrome?", Intersection),
        ("What protein complex is altered in Marfan syndrome?", ChainWalk),
        ("What are the features of Marfan syndrome?", Neighbours),
    ],
    ids=[
        "statement",
        "yes-no",
        "attribute",
        "label-text",
        "conjunction",
        "schema-chain",
        "one-hop",
    ],
)
def test_each_class_of_question_gets_its_request(
    planner: DeterministicPlanner, linker: EntityLinker, question: str, first: type
) -> None:
    plan = _plan(planner, linker, question)
    assert plan.stop is None
    assert type(plan.requests[0]) is first


@pytest.mark.parametrize(
    ("question", "polar"),
    [
        ("genes for Marfan syndrome", False),  # asks for genes, claims nothing
        ("drugs for Marfan syndrome", False),
        ("FBN1 causes Marfan syndrome", True),  # a claim names two
        ("Marfan syndrome is an autosomal dominant disease", True),
        ("Genes for Marfan syndrome?", False),
    ],
)
def test_a_request_written_without_a_question_is_no_claim(
    planner: DeterministicPlanner, linker: EntityLinker, question: str, polar: bool
) -> None:
    plan = _plan(planner, linker, question)
    assert plan.intent.polar is polar
    assert (type(plan.requests[0]) is ClaimCheck) is polar


def test_the_kind_a_question_opens_with_is_reached_before_the_cued_relationship(
    planner: DeterministicPlanner, linker: EntityLinker
) -> None:
    # "part of" joins GO terms to GO terms; the genes asked for are the complex's annotated
    # genes, and the cued relationship answers only if they are none
    plan = _plan(planner, linker, "Which proteins are part of the protein complex?")
    assert plan.seeds == [["GO:0032991"]]
    first, then = plan.requests
    assert "ANNOTATED_WITH" in {r.type for r in first.relations}
    assert all(r.labels == ("Gene",) for r in first.relations)
    assert [r.type for r in then.relations] == ["PART_OF"]
    # a cued relationship that reaches the asked kind is asked alone
    [only] = _plan(planner, linker, "Which terms are part of the protein complex?").requests
    assert [r.type for r in only.relations] == ["PART_OF"]


def test_an_ontologys_terms_are_its_label_not_its_identifier_prefix(
    reader: QuestionReader,
) -> None:
    # "HPO terms" asks for phenotypes, as "GO terms" asks for GO terms; "the HPO id" for an id
    terms = _intent(
        reader,
        Question.parse("What HPO terms describe Marfan syndrome?"),
        [_named("Marfan syndrome")],
    )
    assert (terms.attribute, terms.target_labels) == (None, ("Phenotype",))
    ident = _intent(
        reader, Question.parse("What is the HPO id of Seizure?"), [_named("Seizure", "Phenotype")]
    )
    assert ident.attribute == "xrefs"


def test_a_question_asking_what_is_not_related_stops_instead_of_listing_what_is(
    planner: DeterministicPlanner, linker: EntityLinker
) -> None:
    plan = _plan(planner, linker, "Which genes are not associated with Marfan syndrome?")
    assert plan.stop is not None and "not which do not" in plan.stop
    assert plan.requests == []
    assert _plan(planner, linker, "Which genes are associated with Marfan syndrome?").stop is None


def test_a_schema_chain_goes_through_genes_to_go_terms(
    planner: DeterministicPlanner, linker: EntityLinker
) -> None:
    [walk] = _plan(planner, linker, "What protein complex is altered in Marfan syndrome?").requests
    assert (walk.chain.first, walk.chain.via, walk.chain.second) == (
        "ASSOCIATED_WITH",
        "Gene",
        "ANNOTATED_WITH",
    )
    assert walk.focus.kinds == ("cellular_component",)


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("What is the GWAS p-value for FBN1?", "association statistics"),
        ("When was Viagra approved?", "dates"),
        ("Is Zorbaxumab used for hypertension?", "Zorbaxumab"),  # an unknown side of a claim
        ("Which protein is targeted by Zorbaxumab?", "Zorbaxumab"),  # the only subject
    ],
)
def test_questions_the_graph_cannot_answer_end_planning_with_a_reason(
    planner: DeterministicPlanner, linker: EntityLinker, question: str, reason: str
) -> None:
    plan = _plan(planner, linker, question)
    assert plan.requests == []
    assert reason in plan.stop


def test_a_weak_mention_is_the_subject_only_when_alone(
    planner: DeterministicPlanner, linker: EntityLinker
) -> None:
    plan = _plan(planner, linker, "Which severe phenotypes does Marfan syndrome have?")
    assert plan.seeds[0] == ["OMIM:154700", "ORPHA:558"]
    plan = _plan(planner, linker, "Which diseases are severe?")
    assert plan.seeds == [["HP:0012828"]]


@pytest.mark.parametrize(
    ("question", "hops"),
    [
        ("What are the parents of the parts of mitochondrion?", ("PART_OF", "IS_A")),
        ("What are the parts of the parents of mitochondrion?", ("IS_A", "PART_OF")),
    ],
)
def test_of_nested_phrases_the_one_nearest_the_name_is_the_first_hop(
    planner: DeterministicPlanner, linker: EntityLinker, question: str, hops: tuple[str, str]
) -> None:
    walk = _plan(planner, linker, question).requests[0]
    assert isinstance(walk, ChainWalk)
    assert (walk.chain.first, walk.chain.second) == hops


def test_a_chain_keeps_only_the_kinds_of_its_own_ends(
    planner: DeterministicPlanner, linker: EntityLinker
) -> None:
    # "side effects" is also the label section "adverse reactions": no kind of phenotype
    plan = _plan(planner, linker, "Which terms are parents of the side effects of Viagra?")
    walk = plan.requests[0]
    assert "adverse_reactions" in plan.intent.kinds
    assert isinstance(walk, ChainWalk) and walk.focus.kinds == ()
    assert (walk.chain.first, walk.chain.via, walk.chain.second) == (
        "HAS_SIDE_EFFECT",
        "Phenotype",
        "IS_A",
    )


def test_a_named_end_no_cued_type_reaches_at_once_is_reached_through_an_unnamed_middle(
    planner: DeterministicPlanner, linker: EntityLinker
) -> None:
    # no relationship joins a drug to a phenotype; its off-label uses are diseases that have some
    question = "Which clinical features are associated with the off-label uses of Viagra?"
    walk = _plan(planner, linker, question).requests[0]
    assert isinstance(walk, ChainWalk)
    assert (walk.chain.first, walk.chain.via, walk.chain.second) == (
        "OFF_LABEL_USE_FOR",
        "Disease",
        "HAS_PHENOTYPE",
    )


def test_a_name_that_is_also_a_whole_cue_is_the_subject_last(
    planner: DeterministicPlanner, linker: EntityLinker
) -> None:
    # both names are weak: one is the relationship's own phrase, one ends in "of"
    question = "What is the mode of inheritance of Disorganization, mouse, homolog of?"
    plan = _plan(planner, linker, question)
    assert plan.seeds[0] == ["OMIM:223200"]
    assert plan.intent.relations == ("HAS_MODE_OF_INHERITANCE",)


@pytest.mark.parametrize(
    ("question", "answer_label"),
    [
        ("Which diseases is FBN1 associated with?", "Disease"),
        ("What are the phenotypes of the diseases associated with FBN1?", "Phenotype"),
        ("How are the diseases associated with FBN1 inherited?", None),
        ("Which terms are parents of mitochondrion?", None),  # "terms" names no label
    ],
)
def test_a_which_or_what_question_names_the_kind_of_its_answers(
    reader: QuestionReader, question: str, answer_label: str | None
) -> None:
    named = [_named("FBN1", "Gene"), _named("mitochondrion", "GOTerm")]
    assert _intent(reader, Question.parse(question), named).answer_label == answer_label


def test_a_subject_named_like_a_cue_cues_nothing_beside_another_cue(
    planner: DeterministicPlanner, linker: EntityLinker
) -> None:
    plan = _plan(planner, linker, "Which terms are more specific kinds of Mode of inheritance?")
    assert plan.seeds == [["HP:0000005"]]
    assert plan.intent.relations == ("IS_A",)
    # alone, its words still ask for the relationship they name
    plan = _plan(planner, linker, "Which diseases are autosomal dominant?")
    assert plan.intent.relations == ("HAS_MODE_OF_INHERITANCE",)


@pytest.mark.parametrize(
    ("question", "span", "named_as"),
    [
        ("Which drugs bind the FBN1 protein?", "FBN1", "Gene"),  # says what FBN1 is
        ("What are the Hypertension symptoms?", "Hypertension", None),  # asks for symptoms
    ],
    ids=["singular-names-the-kind", "plural-is-the-head"],
)
def test_a_noun_after_a_name_names_its_kind_only_when_singular(
    reader: QuestionReader, question: str, span: str, named_as: str | None
) -> None:
    labels = {"FBN1": ("Gene",), "Hypertension": ("Disease", "Phenotype")}
    intent = _intent(reader, Question.parse(question), [_named(span, *labels[span])])
    assert intent.named_as.get(span) == named_as


def test_a_noun_beside_a_name_is_no_word_the_question_asks_about(
    reader: QuestionReader,
) -> None:
    question = Question.parse("What does the gene FBN1 do?")
    intent = _intent(reader, question, [_named("FBN1", "Gene")])
    assert intent.named_as == {"FBN1": "Gene"}
    assert intent.words == ()
    assert intent.appositives == ((3, 4),)
    # the paraphrase compares the question without it
    mention = _named("FBN1", "Gene")
    assert frame(question, mention, intent.appositives) == "What does the X do?"
    assert frame(question, mention) == "What does the gene X do?"


def test_a_noun_beside_a_weak_subject_makes_it_firm(planner: DeterministicPlanner) -> None:
    # "INS" (insulin's symbol) is an English word, so its mention is weak: "gene" beside it
    # says what it is, and is no label the question asks for
    weak = _named("INS", "Gene").model_copy(update={"weak": True})
    intent = planner.intent(
        planner.reader.understand(Question.parse("What does the INS gene do?")), [weak]
    )
    assert intent.named_as == {"INS": "Gene"}
    assert intent.target_labels == ()


def test_a_label_noun_inside_a_relationship_phrase_names_the_answers_kind(
    reader: QuestionReader,
) -> None:
    # "medication for" cues indications, and its noun says drugs are the answer
    intent = _intent(
        reader, Question.parse("Could you name any medications for managing hypertension?")
    )
    assert "INDICATED_FOR" in intent.relations
    assert intent.target_labels[:1] == ("Drug",)


@pytest.mark.parametrize(
    "question", ["Tell me about Marfan syndrome", "Could you tell me about FBN1?"]
)
def test_pronouns_are_no_words_an_overview_must_match(
    planner: DeterministicPlanner, linker: EntityLinker, question: str
) -> None:
    # simplemma lemmatises "me" to "I": compared in lower case it is a stop word, not a word
    # the neighbours must contain (which left every overview empty)
    plan = _plan(planner, linker, question)
    assert plan.intent.words == ()
    [survey] = plan.requests
    assert survey.relations == () and survey.focus.words == ()


def _named(name: str, *labels: str) -> Mention:
    """A name linked apart from the question, to nodes of ``labels``."""
    candidates = [
        Candidate(id=f"{label}:1", label=label, name=name, score=1.0, rule="name", matched=name)
        for label in labels
    ]
    return Mention(text=name, candidates=candidates)
