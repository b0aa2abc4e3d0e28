"""The diagnosis scorers on a five-term hierarchy built by hand (no graph engine).

    R (root)
    ├── A ── B
    └── C
D1 has B (very frequent, 0.9), D2 has C, D3 has A (1/2); D1 and D2' are bridged twins.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from biokg.graph_agent.diagnosis.index import build_index
from biokg.graph_agent.diagnosis.ranker import DiagnosisRanker
from biokg.graph_agent.diagnosis.scoring import (
    CALIBRATION_TERMS,
    EXACT_BONUS,
    PRIOR_WEIGHT,
    ExactIC,
    LikelihoodRatio,
    ResnikBMA,
    random_terms,
)

pytestmark = pytest.mark.unit

TERMS = pl.DataFrame({"id": ["R", "A", "B", "C"], "name": ["root", "a", "b", "c"]})
HIERARCHY = pl.DataFrame({"child": ["A", "B", "C"], "parent": ["R", "A", "R"]})
ANNOTATIONS = pl.DataFrame(
    {
        "disease": ["D1", "D2", "D3", "D4"],
        "name": ["one", "two", "three", "four"],
        "term": ["B", "C", "A", "C"],
        "frequency": ["HP:0040281", None, "1/2", "0/3"],
        "negated": [False, False, False, False],
        "edge": ["e1", "e2", "e3", "e4"],
        "source": ["infores:hpo-annotations"] * 4,
        "source_record": ["phenotype.hpoa#L1", "#L2", "#L3", "#L4"],
        "references": [["PMID:1"], ["OMIM:2"], ["PMID:1", "PMID:3"], ["PMID:4"]],
    }
)
TWINS = pl.DataFrame(
    {"subject": ["D2"], "object": ["X9"], "edge": ["s1"], "source_record": ["sssom:1"]}
)


@pytest.fixture(scope="module")
def index():
    return build_index(TERMS, HIERARCHY, ANNOTATIONS, TWINS)


def test_closures_and_propagated_frequencies(index) -> None:
    t = index.term_index
    assert sorted(index.terms[i] for i in index.closures[t["B"]]) == ["A", "B", "R"]
    d1 = index.disease_index["D1"]
    # D1's B at 0.9 propagates to A and R; D3's A (1/2) does not reach B
    assert index.F[d1, t["A"]] == pytest.approx(0.9)
    assert index.F[index.disease_index["D3"], t["B"]] == 0
    # D4's 0/3 is an absent feature, not an annotation
    assert index.profiles[index.disease_index["D4"]] == []
    assert index.absent[index.disease_index["D4"]][0].edge == "e4"


def test_terms_in_an_is_a_cycle_are_ancestors_of_one_another(caplog) -> None:
    # B is_a A is_a B (a source stating two terms kinds of each other): the walk ends, and
    # each of them, and B's child E, reaches both and the root
    cyclic = pl.DataFrame({"child": ["A", "B", "A", "C", "E"], "parent": ["R", "A", "B", "R", "B"]})
    terms = pl.DataFrame({"id": ["R", "A", "B", "C", "E"], "name": ["r", "a", "b", "c", "e"]})
    built = build_index(terms, cyclic, ANNOTATIONS, TWINS)
    t = built.term_index
    closure = {x: sorted(built.terms[i] for i in built.closures[t[x]]) for x in ("A", "B", "E")}
    assert closure == {"A": ["A", "B", "R"], "B": ["A", "B", "R"], "E": ["A", "B", "E", "R"]}
    assert sorted(built.terms[i] for i in built.closures[t["C"]]) == ["C", "R"]
    assert "2 terms in IS_A cycles" in caplog.text


def test_information_content_counts_diseases_at_or_below(index) -> None:
    # A: D1 (through B) and D3 of the 4 diseases; C: D2 only (D4's C is absent)
    assert index.ic[index.term_index["A"]] == pytest.approx(-math.log(2 / 4))
    assert index.ic[index.term_index["C"]] == pytest.approx(-math.log(1 / 4))


def test_a_child_term_meets_its_parents_annotation_with_the_parents_ic(index) -> None:
    ranking = DiagnosisRanker(index, ResnikBMA()).rank(["B"], top=4).ranking
    d3 = next(e for e in ranking if e.id == "D3")
    (evidence,) = d3.evidence
    assert (evidence.ancestor, evidence.disease_term, evidence.edge) == ("A", "A", "e3")
    assert evidence.contribution == pytest.approx(index.ic[index.term_index["A"]], abs=1e-4)


def test_exact_ic_counts_exact_annotations_only(index) -> None:
    scores = ExactIC().score(index, [index.term_index["A"]], [])
    assert scores[index.disease_index["D3"]] == pytest.approx(math.log(2))
    assert scores[index.disease_index["D1"]] == 0  # D1 has B, below A: not exact


def test_an_excluded_term_lowers_the_disease_that_has_it(index) -> None:
    ranker = DiagnosisRanker(index, LikelihoodRatio())
    before = {e.id: e.score for e in ranker.rank(["R"], top=4).ranking}
    after = {e.id: e for e in ranker.rank(["R"], ["B"], top=4).ranking}
    # D1 has B (0.9), D3 does not: the gap between them grows by the weight of the exclusion
    assert after["D1"].score - after["D3"].score < before["D1"] - before["D3"]
    (against_d1,) = [e for e in after["D1"].evidence if e.excluded]
    (against_d3,) = [e for e in after["D3"].evidence if e.excluded]
    assert against_d1.edge == "e1" and against_d3.edge is None
    assert against_d1.contribution < against_d3.contribution


def test_twins_are_one_entry_listing_every_id(index) -> None:
    ranking = DiagnosisRanker(index, LikelihoodRatio()).rank(["C"], top=10).ranking
    entry = next(e for e in ranking if "D2" in e.ids)
    assert entry.ids == ["D2", "X9"]
    assert entry.bridge[0]["edge"] == "s1"
    assert sum("D2" in e.ids for e in ranking) == 1


@pytest.mark.parametrize("term", ["R", "A", "B", "C"])
def test_likelihood_ratio_fast_path_equals_its_candidates(index, term) -> None:
    scorer = LikelihoodRatio()
    q = index.term_index[term]
    generic = super(LikelihoodRatio, scorer).term_values(index, q)
    assert scorer.term_values(index, q) == pytest.approx(generic)


def test_the_evidence_adds_up_to_the_score(index) -> None:
    ranking = DiagnosisRanker(index, LikelihoodRatio()).rank(["B", "C"], ["A"], top=4).ranking
    for entry in ranking:
        total = entry.prior + sum(e.contribution for e in entry.evidence)
        assert total == pytest.approx(entry.score, abs=1e-3)


def test_an_exact_annotation_adds_the_terms_information_content(index) -> None:
    q = index.term_index["A"]
    without = LikelihoodRatio(exact_bonus=0)
    gain = LikelihoodRatio().term_values(index, q) - without.term_values(index, q)
    # D3 is annotated with A itself; D1 only with B below it (implied): no bonus
    assert gain[index.disease_index["D3"]] == pytest.approx(EXACT_BONUS * index.ic[q])
    assert gain[index.disease_index["D1"]] == pytest.approx(0)


def test_the_prior_counts_the_patients_of_published_cohorts(index) -> None:
    # D3's 1/2 and D4's 0/3 (an absent feature, still assessed): 2 and 3 patients
    patients = {d: index.cohort_patients[index.disease_index[d]] for d in ("D1", "D2", "D3", "D4")}
    assert patients == {"D1": 0, "D2": 0, "D3": 2, "D4": 3}
    observed = [index.term_index["R"]]
    without = LikelihoodRatio(prior_weight=0)
    gain = LikelihoodRatio().score(index, observed, []) - without.score(index, observed, [])
    assert gain == pytest.approx(PRIOR_WEIGHT * np.log1p(index.cohort_patients))
    assert gain[index.disease_index["D3"]] > gain[index.disease_index["D1"]] == 0


def test_calibration_is_one_fixed_draw_per_count_and_seed(index) -> None:
    first = LikelihoodRatio(calibration_terms=40, calibration_seed=1).expected(index)
    again = LikelihoodRatio(calibration_terms=40, calibration_seed=1).expected(index)
    assert again[0] is first[0]  # cached on the index: paid once per load
    other = LikelihoodRatio(calibration_terms=40, calibration_seed=2).expected(index)
    more = LikelihoodRatio(calibration_terms=400, calibration_seed=1).expected(index)
    assert other[0] is not first[0] and more[0] is not first[0]  # each setting its own draw
    assert random_terms(index, 40, seed=1) == random_terms(index, 40, seed=1)
    assert LikelihoodRatio().calibration_terms == CALIBRATION_TERMS
    before = set(index.derived)
    LikelihoodRatio(calibration_terms=40, calibration_seed=5).prepare(index)  # as service does
    assert len({k for k in set(index.derived) - before if k.startswith("expected:")}) == 1


def test_a_calibration_is_kept_with_the_cached_rows_for_the_next_process(tmp_path) -> None:
    made = build_index(TERMS, HIERARCHY, ANNOTATIONS, TWINS)
    made.folder = tmp_path
    first = LikelihoodRatio(calibration_terms=40).expected(made)
    [kept] = tmp_path.glob("derived-*.npz")
    # another process of the same load: a fresh index over the same folder reads it back
    fresh = build_index(TERMS, HIERARCHY, ANNOTATIONS, TWINS)
    fresh.folder = tmp_path
    [key] = [k for k in made.derived if k.startswith("expected:")]
    read = fresh.stored(key, lambda: pytest.fail("computed again instead of read"))
    assert np.array_equal(read["seen"], first[0]) and np.array_equal(read["absent"], first[1])
    # other settings are another file
    LikelihoodRatio(calibration_terms=41).expected(fresh)
    assert len(list(tmp_path.glob("derived-*.npz"))) == 2 and kept.is_file()
