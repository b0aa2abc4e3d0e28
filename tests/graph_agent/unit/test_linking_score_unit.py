"""The scored linking decision: features of a (span, candidate) pair, the logistic scorer, and
the linker's use of it (no engine; the lexicon is conftest.ROWS)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from biokg.core.settings import Settings
from biokg.errors import ConfigError
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.linking.features import (
    FEATURES,
    LinkScorer,
    SpanText,
    accept_all,
    default_scorer,
    features,
)
from biokg.graph_agent.models import Candidate
from biokg.graph_agent.question import Question


def rejecting_everything(
    linker: EntityLinker, *, judge_exact_words: bool = True
) -> AbstractContextManager[None]:
    """The linker with a scorer that rejects every span it judges (exact one-word names too,
    unless ``judge_exact_words`` is off, as BIOKG_LINKING=guesses), restored afterwards."""
    never = LinkScorer(weights={"bias": -5.0}, threshold=0.5)
    return judged_by(linker, never, judge_exact_words=judge_exact_words)


@contextmanager
def judged_by(
    linker: EntityLinker, scorer: LinkScorer, *, judge_exact_words: bool = True
) -> Iterator[None]:
    """The linker with another scorer, restored afterwards."""
    saved = linker.scorer, linker.judge_exact_words
    linker.scorer = scorer
    linker.judge_exact_words = judge_exact_words
    try:
        yield
    finally:
        linker.scorer, linker.judge_exact_words = saved


def _span(*written: str, context: tuple[str, ...] = ()) -> SpanText:
    keys = tuple(w.casefold() for w in written)
    return SpanText(written, keys, tuple(True for _ in written), context)


def _candidate(rule: str, matched: str, *, label: str = "Disease", score: float = 0.97):
    return Candidate(id="X:1", label=label, name=matched, score=score, rule=rule, matched=matched)


def _known(word: str) -> bool:
    return word in {"marfan", "syndrome", "seizure"}


def test_an_exact_name_covers_its_span_and_has_no_edits() -> None:
    values = features(_span("Marfan", "syndrome"), _candidate("name", "Marfan syndrome"), _known)
    assert set(values) == set(FEATURES)
    assert values["exact"] == 1.0 and values["respelled"] == 0.0
    assert values["edits"] == 0.0
    assert values["span_covered"] == 1.0 and values["name_covered"] == 1.0
    assert values["phrase_share"] == 1.0 and values["context_rare"] == 0.0


def test_a_respelling_counts_its_edits() -> None:
    # two replaced letters from the drug's name: half of the cap of four, and the word is not
    # covered by the name (one slip would be)
    values = features(_span("Sildenafox"), _candidate("fuzzy", "SILDENAFIL", label="Drug"), _known)
    assert values["respelled"] == 1.0
    assert values["edits"] == pytest.approx(0.5)
    assert values["span_covered"] == 0.0 and values["unmatched_foreign"] == 1.0
    typo = features(_span("sildenafill"), _candidate("fuzzy", "SILDENAFIL", label="Drug"), _known)
    assert typo["edits"] == pytest.approx(0.25) and typo["span_covered"] == 1.0


@pytest.mark.parametrize(
    ("written", "name", "slip"),
    [
        ("Marfam syndrome", "Marfan syndrome", 0.0),  # a key next to the right one
        ("warfrin", "warfarin", 0.0),  # a letter left out
        ("sildenafill", "sildenafil", 0.0),  # a letter doubled
        ("losatran", "losartan", 0.0),  # two letters swapped
        ("ibuprofin", "ibuprofen", 0.0),  # a vowel for a vowel
        ("Microcefaly", "Microcephaly", 0.0),  # spelt as it sounds
        ("Nail dystropy", "Nail dystrophy", 0.0),  # the "h" of "ph" left out
        ("Microcefali", "Microcephaly", 0.0),  # spelt as it sounds, then a vowel for a vowel
        ("autophagie", "autophagy", 0.0),  # two slips
        ("actin filaments", "actin filament", 0.0),  # a plural
        ("Marfax syndrome", "Marfan syndrome", 1.0),  # x is nowhere near n
        ("Sertralinex", "sertraline", 1.0),  # a letter added beside no neighbour
        ("Alportis syndrome", "Alport syndrome", 1.0),  # "is" is no plural
        ("Simvastatox", "simvastatin", 1.0),  # a vowel for a vowel, then an x
        ("Turnqx syndrome", "Turner syndrome", 1.0),  # two letters no slip gives: one is enough
        ("progeria", "Hutchinson-Gilford progeria syndrome", 0.0),  # words left out: no slip
        ("Huntingtol disease", "Juvenile Huntington disease", 1.0),  # judged on "Huntington"
        ("Marfan", "Marfanoid", 1.0),  # three letters left out: more than a respelling holds
    ],
)
def test_a_respelling_is_judged_by_the_edits_people_make_when_they_mean_a_name(
    written: str, name: str, slip: float
) -> None:
    values = features(_span(*written.split()), _candidate("fuzzy", name), _known)
    assert values["slip"] == slip


def test_an_index_hit_that_leaves_an_unknown_word_unnamed() -> None:
    hit = Candidate(
        id="X:1", label="Disease", name="Marfan syndrome", score=0.5, rule="vector",
        matched="Marfan lullaby",
    )  # fmt: skip
    values = features(_span("Marfan", "lullaby"), hit, _known)
    assert values["vector"] == 1.0 and values["search_score"] == 0.5
    assert values["span_covered"] == 0.5
    assert values["unmatched_foreign"] == 1.0  # no name of the graph uses the word
    assert values["edits"] == 1.0  # measured against the node's name, capped


def test_a_name_inside_a_longer_phrase_of_rare_words() -> None:
    span = _span("seizure", context=("tartan",))
    values = features(span, _candidate("name", "Seizure", label="Phenotype"), _known)
    assert values["phrase_share"] == 0.5
    assert values["context_foreign"] == 1.0
    assert 0.5 < values["context_rare"] < 1.0  # a word, but an uncommon one
    assert values["exact_in_context"] == values["context_rare"]


@pytest.mark.parametrize(
    ("written", "symbol", "as_word"),
    [("STING", 1.0, 0.0), ("sting", 0.0, 1.0)],
)
def test_a_gene_alias_agrees_with_the_spans_shape(written: str, symbol: float, as_word: float):
    alias = _candidate("synonym", "STING", label="Gene", score=0.92)
    values = features(_span(written), alias, _known)
    assert values["symbol_agrees"] == symbol
    assert values["gene_alias_as_word"] == as_word


def test_the_scorer_is_a_logistic_model_over_named_weights() -> None:
    scorer = LinkScorer(weights={"bias": -1.0, "exact": 2.0}, threshold=0.5)
    assert scorer.probability({"bias": 1.0, "exact": 1.0}) == pytest.approx(1 / (1 + math.e**-1))
    assert scorer.probability({"bias": 1.0, "exact": 0.0}) < scorer.threshold
    assert accept_all().probability({"bias": 1.0}) >= accept_all().threshold


def test_the_scorer_round_trips_through_its_json(tmp_path: Path) -> None:
    scorer = LinkScorer(weights={"bias": -0.25, "edits": -3.0}, threshold=0.4)
    path = tmp_path / "weights.json"
    path.write_text(scorer.to_json(pairs=3), encoding="utf-8")
    again = LinkScorer.load(path)
    assert again.threshold == 0.4 and again.weights["edits"] == -3.0
    assert json.loads(path.read_text())["pairs"] == 3
    assert set(again.weights) == set(FEATURES)


def test_the_shipped_weights_keep_a_clean_name_and_drop_an_invented_respelling() -> None:
    scorer = default_scorer()
    name = features(_span("Marfan", "syndrome"), _candidate("name", "Marfan syndrome"), _known)
    drug = _candidate("fuzzy", "SILDENAFIL", label="Drug")
    invented = features(_span("Sildenafox"), drug, _known)
    typo = features(_span("sildenafill"), drug, _known)
    assert scorer.probability(typo) > scorer.probability(invented)
    assert scorer.probability(name) >= scorer.threshold  # exact features weigh nothing today
    # one edit from the name either way; only the typo is one people make
    typed = features(_span("Marfam", "syndrome"), _candidate("fuzzy", "Marfan syndrome"), _known)
    made_up = features(_span("Marfax", "syndrome"), _candidate("fuzzy", "Marfan syndrome"), _known)
    assert scorer.probability(typed) >= scorer.threshold > scorer.probability(made_up)


def test_the_shipped_weights_drop_a_drug_name_one_letter_off_that_no_slip_explains() -> None:
    # the question asks what a drug targets: the label is reached, which weighs for the guess
    scorer, losartan = default_scorer(), _candidate("fuzzy", "LOSARTAN", label="Drug")
    reached = frozenset({"Drug", "Gene"})
    asked = {
        written: scorer.probability(
            features(replace(_span(written), reach=reached), losartan, _known)
        )
        for written in ("losatran", "Losartam", "Losartax")
    }
    assert asked["losatran"] >= scorer.threshold  # two letters swapped
    assert asked["Losartam"] >= scorer.threshold  # the key beside n
    assert asked["Losartax"] < scorer.threshold  # x for n: another name


def test_the_linker_traces_every_scored_pair(linker: EntityLinker) -> None:
    linker.trace = []
    try:
        mentions = linker.mentions(Question.parse("What causes Marfan syndrome?"))
        decisions = list(linker.trace)
    finally:
        linker.trace = None
    assert {c.id for m in mentions for c in m.candidates} == {"OMIM:154700", "ORPHA:558"}
    traced = {d.candidate.id: d for d in decisions if d.span == "Marfan syndrome"}
    assert set(traced) == {"OMIM:154700", "ORPHA:558"}
    assert all(d.probability >= linker.scorer.threshold for d in traced.values())


def test_an_exact_name_of_two_words_is_trusted_one_word_is_judged(linker: EntityLinker) -> None:
    # a scorer that rejects everything: the name of three content words stays (trusted,
    # 0018), the lone word "hypertension" is judged and dropped, and so is "Marfan syndrome"
    # ("syndrome" is a label noun: one content word)
    question = "Does skeletal muscle atrophy or Marfan syndrome cause hypertension?"
    with rejecting_everything(linker):  # as BIOKG_LINKING=scored: one-word names judged
        mentions = linker.mentions(Question.parse(question))
    assert {c.id for m in mentions for c in m.candidates} == {"HP:0003202"}
    again = {c.id for m in linker.mentions(Question.parse(question)) for c in m.candidates}
    assert {"HP:0003202", "OMIM:154700", "MESH:D006973", "HP:0000822"} <= again


def test_the_shipped_scorer_rejects_a_name_qualifying_an_unknown_word(linker: EntityLinker):
    # "Arachnodactyly" names a phenotype; followed by a word no name of the graph uses, the
    # phrase names something else
    assert linker.scorer == default_scorer()
    linked = {c.id for m in linker.mentions(Question.parse("Arachnodactyly")) for c in m.candidates}
    odd = linker.mentions(Question.parse("What causes arachnodactyly zorblatt?"))
    assert linked == {"HP:0001166"}
    assert not {c.id for m in odd for c in m.candidates}


def test_a_name_before_an_uncommon_word_of_its_phrase_is_not_the_phrases_head() -> None:
    # "insulin trampoline": the phrase's head is the word after the name
    before = features(
        _span("insulin", context=("trampoline",)), _candidate("name", "insulin"), _known
    )
    after = SpanText(("insulin",), ("insulin",), (True,), ("trampoline",), ("trampoline",))
    qualified = features(after, _candidate("name", "insulin", label="Gene"), _known)
    assert before["head_after"] == 0.0  # the rare word stands before the name: a qualifier
    assert qualified["head_after"] > 0.5


def test_the_questions_relationship_reaches_a_label_or_not() -> None:
    reach = frozenset({"Drug", "Disease"})
    span = SpanText(("myelin",), ("myelin",), (True,), reach=reach)
    term = features(span, _candidate("fulltext", "myelin sheath", label="GOTerm"), _known)
    disease = features(span, _candidate("fulltext", "myelin disease"), _known)
    assert (term["label_unreached"], term["label_reached"]) == (1.0, 0.0)
    assert (disease["label_unreached"], disease["label_reached"]) == (0.0, 1.0)
    silent = features(_span("myelin"), _candidate("fulltext", "myelin sheath"), _known)
    assert silent["label_unreached"] == silent["label_reached"] == 0.0  # no cue: no evidence


def test_a_word_many_names_use_is_generic() -> None:
    def uses(word: str) -> int:
        return {"dystrophy": 900, "progeria": 4, "retinal": 300}.get(word, 0)

    hit = _candidate("fulltext", "Retinal dystrophy")
    generic = features(_span("dystrophy"), hit, uses)
    specific = features(_span("progeria"), _candidate("fulltext", "progeria syndrome"), uses)
    assert generic["matched_generic"] > specific["matched_generic"] > 0.0
    assert generic["matched_generic"] == pytest.approx(math.log10(901) / 4)


def test_reachable_labels_come_from_the_cued_relationships(reader) -> None:
    labels = reader.understand(Question.parse("What drugs are used for Myelin marmalade?")).reach
    assert labels is not None and {"Drug", "Disease"} <= labels and "GOTerm" not in labels
    assert reader.understand(Question.parse("Tell me about Marfan syndrome")).reach is None


def test_a_rejected_respelling_is_reported_not_in_the_graph(linker: EntityLinker) -> None:
    # "Sildenafox" is respelled to the drug's name; a scorer that rejects every guess leaves it
    # an unknown name, not a link
    with rejecting_everything(linker):
        mentions = linker.mentions(Question.parse("Which disorders list Sildenafox as a feature?"))
    assert [(m.text, m.candidates) for m in mentions] == [("Sildenafox", [])]
    with judged_by(linker, accept_all()):  # every candidate the generators propose
        accepted = linker.mentions(Question.parse("Which disorders list Sildenafox as a feature?"))
    assert [c.id for m in accepted for c in m.candidates] == ["CHEMBL.COMPOUND:CHEMBL192"]


def test_the_linker_passes_the_questions_reach_to_the_features(
    linker: EntityLinker, reader
) -> None:
    question = Question.parse("What drugs are used for Marfan syndrome?")
    linker.trace = []
    try:
        linker.mentions(question, reader.understand(question))
        decisions = list(linker.trace)
    finally:
        linker.trace = None
    [first, *_] = [d for d in decisions if d.span == "Marfan syndrome"]
    assert first.features["label_reached"] == 1.0


def test_a_rejected_word_the_graphs_names_use_is_no_unknown_name(linker: EntityLinker) -> None:
    # a scorer that rejects every judged span: "arachnodactyly" and "FBN1" are words of the
    # graph's names (its vocabulary: the planner must not stop on them as names the graph
    # lacks), "Sildenafox" is a word no name uses
    with rejecting_everything(linker):
        known = linker.mentions(Question.parse("Does FBN1 cause arachnodactyly?"))
        invented = linker.mentions(Question.parse("Does Sildenafox cause arachnodactyly?"))
    assert known == []
    assert [(m.text, m.candidates) for m in invented] == [("Sildenafox", [])]


def test_judging_guesses_only_trusts_every_exact_name(linker: EntityLinker) -> None:
    # BIOKG_LINKING=guesses: the same rejecting scorer drops the respelling "Sildenafox" but no
    # longer the exact one-word names "FBN1" and "arachnodactyly"
    with rejecting_everything(linker, judge_exact_words=False):
        known = linker.mentions(Question.parse("Does FBN1 cause arachnodactyly?"))
        invented = linker.mentions(Question.parse("Does Sildenafox cause arachnodactyly?"))
    assert [(m.text, [c.id for c in m.candidates]) for m in known] == [
        ("FBN1", ["NCBIGene:2200"]),
        ("arachnodactyly", ["HP:0001166"]),
    ]
    assert [(m.text, [c.id for c in m.candidates]) for m in invented] == [
        ("Sildenafox", []),
        ("arachnodactyly", ["HP:0001166"]),
    ]
    # the rejected respelling is kept as the unknown name's closest name, never as a candidate
    assert [[c.id for c in m.rejected] for m in invented] == [["CHEMBL.COMPOUND:CHEMBL192"], []]


def test_judging_guesses_also_judges_a_one_word_name_that_qualifies_an_unknown_word(
    linker: EntityLinker,
) -> None:
    # BIOKG_LINKING=guesses: an exact one-word name followed in its phrase by a word no name
    # uses is not the phrase's head ("insulin trampoline"): judged, and the rejecting scorer
    # drops it; the same name as the phrase's head, after the unknown word, stays trusted
    with rejecting_everything(linker, judge_exact_words=False):
        qualifying = linker.mentions(Question.parse("What causes arachnodactyly zorblatt?"))
        head = linker.mentions(Question.parse("What causes zorblatt arachnodactyly?"))
        # the verb that ends a question asked with "do" is no word of the name's phrase
        verb = linker.mentions(Question.parse("What does FBN1 dampen?"))
    assert not {c.id for m in qualifying for c in m.candidates}
    assert {c.id for m in head for c in m.candidates} == {"HP:0001166"}
    assert {c.id for m in verb for c in m.candidates} == {"NCBIGene:2200"}


def test_an_inflection_of_a_name_is_the_name_and_no_guess(linker: EntityLinker) -> None:
    # "hypertensions" is the name's plural (its lemma), linked as the name even by a linker
    # that judges every guess with a scorer rejecting them all; a misspelling still is a guess
    with rejecting_everything(linker, judge_exact_words=False):
        plural = linker.mentions(Question.parse("Which genes cause hypertensions?"))
        typo = linker.mentions(Question.parse("Which genes cause hypertensoin?"))
    assert [(m.text, sorted(c.id for c in m.candidates)) for m in plural] == [
        ("hypertensions", ["HP:0000822", "MESH:D006973"])
    ]
    assert {c.rule for m in plural for c in m.candidates} == {"name"}
    assert [(m.text, m.candidates) for m in typo] == [("hypertensoin", [])]


def test_a_name_in_another_word_order_or_without_its_type_number_is_spelt_alike() -> None:
    # "Kaufman-McKusick syndrome" for "McKusick-Kaufman syndrome"; "tuberous sclerosis" for
    # the numbered types that are the graph's only nodes of it
    swapped = features(
        _span("Kaufman", "McKusick", "syndrome"),
        _candidate("vector", "McKusick-Kaufman syndrome", score=0.79),
        _known,
    )
    assert swapped["edits"] == 0.0
    assert swapped["span_covered"] == swapped["name_covered"] == 1.0
    typed = features(
        _span("tuberous", "sclerosis"), _candidate("vector", "Tuberous sclerosis-1"), _known
    )
    assert typed["edits"] == 0.0 and typed["name_covered"] == 1.0
    other = features(
        _span("tuberous", "sclerosis"), _candidate("vector", "Tuberous xanthoma"), _known
    )
    assert other["edits"] > 0.5 and other["name_covered"] == 0.5


def test_the_linking_setting_names_its_values(tmp_path: Path) -> None:
    home = {"BIOKG_HOME": str(tmp_path)}
    assert Settings.from_env(home).linking == "guesses"
    assert Settings.from_env({**home, "BIOKG_LINKING": "Scored"}).linking == "scored"
    with pytest.raises(ConfigError, match="BIOKG_LINKING='rules': expected one of guesses"):
        Settings.from_env({**home, "BIOKG_LINKING": "rules"})  # retired (decision 0027)
    with pytest.raises(ConfigError, match="BIOKG_LINKING='fuzzy': expected one of guesses"):
        Settings.from_env({**home, "BIOKG_LINKING": "fuzzy"})


def test_a_respellings_probability_is_shared_with_the_names_as_near() -> None:
    scorer = LinkScorer(weights={"bias": 0.0}, threshold=0.4)
    assert scorer.probability({"bias": 1.0}) == pytest.approx(0.5)
    assert scorer.probability({"bias": 1.0}, rivals=2) == pytest.approx(0.5 / 3)


def _dense_linker(*brands: str) -> EntityLinker:
    """A linker over a few drug brands made as the release-size generator makes names
    (pseudo-words of syllables: benchmarks/release_common.py), where absent names lie a slip
    from several."""
    rows = [
        {"id": f"X:{i}", "label": "Drug", "name": "a tablet", "synonyms": [brand]}
        for i, brand in enumerate(brands)
    ]
    return EntityLinker(Lexicon.from_rows(rows))


def _respellings(linker: EntityLinker, question: str) -> list:
    linker.trace = []
    try:
        linker.mentions(Question.parse(question))
        # a respelling rejected as a name is judged again as a left-over word: once each
        judged = {(d.start, d.end, d.candidate.id): d for d in reversed(linker.trace)}
        return [d for d in reversed(judged.values()) if d.candidate.rule == "fuzzy"]
    finally:
        linker.trace = None


def test_an_absent_name_a_slip_from_several_names_is_one_of_them_at_most() -> None:
    # "Xipere" is one letter from "Sipere" and from "Fipere": two readings alike, the
    # probability of either is halved; with one of them only it is not
    question = "What is the active ingredient of Xipere?"
    [crowded] = _respellings(_dense_linker("Sipere", "Fipere"), question)
    [alone] = _respellings(_dense_linker("Sipere", "Lorasamine"), question)
    assert (crowded.rivals, alone.rivals) == (1, 0)
    assert crowded.probability == pytest.approx(alone.probability / 2)


def test_a_rival_word_that_makes_no_name_is_no_rival() -> None:
    # "fipere" is a word of a name, not a name: "Xipere" read as it names nothing
    linker = _dense_linker("Sipere", "Fipere Forte")
    [decision] = _respellings(linker, "What is the active ingredient of Xipere?")
    assert decision.rivals == 0
