"""The scored linking decision: features of a (span, candidate) pair, the logistic scorer, and
the linker's use of it (no engine; the lexicon is conftest.ROWS)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.linking_score import (
    FEATURES,
    LinkScorer,
    SpanText,
    accept_all,
    default_scorer,
    features,
)
from biokg.graph_agent.models import Candidate


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


def test_the_linker_traces_every_scored_pair(linker: EntityLinker) -> None:
    linker.trace = []
    try:
        mentions = linker.mentions("What causes Marfan syndrome?")
        decisions = list(linker.trace)
    finally:
        linker.trace = None
    assert {c.id for m in mentions for c in m.candidates} == {"OMIM:154700", "ORPHA:558"}
    traced = {d.candidate.id: d for d in decisions if d.span == "Marfan syndrome"}
    assert set(traced) == {"OMIM:154700", "ORPHA:558"}
    assert all(d.probability >= linker.scorer.threshold for d in traced.values())


def test_exact_spans_are_scored_but_not_judged(linker: EntityLinker) -> None:
    # a scorer that rejects everything: exact names are still chosen by the rules (0018)
    scorer = linker.scorer
    linker.scorer = LinkScorer(weights={"bias": -5.0}, threshold=0.5)
    try:
        mentions = linker.mentions("What causes Marfan syndrome?")
    finally:
        linker.scorer = scorer
    assert {c.id for m in mentions for c in m.candidates} == {"OMIM:154700", "ORPHA:558"}
