"""Leave-publication-out on a hand-built index: a case's view without the lines citing a
reference equals an index built from the rows without those lines (no graph engine).

    R (root)
    ├── A ── B
    └── C
D1: B 0.9 (PMID:1), C 2/5 (PMID:9). D2: C (OMIM:2). D3: A 1/2 (PMID:1, PMID:3).
D4: C 0/3, absent (PMID:4). D5: B 3/4 (PMID:7), A 1/6 (PMID:1).
Withholding PMID:1 leaves D1 with C, D5 with B, and D3 with nothing.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from biokg.graph_agent.diagnosis.index import build_index
from biokg.graph_agent.diagnosis.ranker import DiagnosisRanker
from biokg.graph_agent.diagnosis.scoring import ExactIC, LikelihoodRatio, ResnikBMA
from biokg.graph_agent.diagnosis.withhold import withhold

pytestmark = pytest.mark.unit

TERMS = pl.DataFrame({"id": ["R", "A", "B", "C"], "name": ["root", "a", "b", "c"]})
HIERARCHY = pl.DataFrame({"child": ["A", "B", "C"], "parent": ["R", "A", "R"]})
ANNOTATIONS = pl.DataFrame(
    {
        "disease": ["D1", "D1", "D2", "D3", "D4", "D5", "D5"],
        "name": ["one", "one", "two", "three", "four", "five", "five"],
        "term": ["B", "C", "C", "A", "C", "B", "A"],
        "frequency": ["HP:0040281", "2/5", None, "1/2", "0/3", "3/4", "1/6"],
        "negated": [False] * 7,
        "edge": ["e1", "e2", "e3", "e4", "e5", "e6", "e7"],
        "source": ["infores:hpo-annotations"] * 7,
        "source_record": [f"phenotype.hpoa#L{i}" for i in range(1, 8)],
        "references": [
            ["PMID:1"],
            ["PMID:9"],
            ["OMIM:2"],
            ["PMID:1", "PMID:3"],
            ["PMID:4"],
            ["PMID:7"],
            ["PMID:1"],
        ],
    }
)
TWINS = pl.DataFrame(
    {"subject": ["D2"], "object": ["X9"], "edge": ["s1"], "source_record": ["sssom:1"]}
)
WITHOUT_PMID_1 = ANNOTATIONS.filter(~pl.col("references").list.contains("PMID:1"))


@pytest.fixture(scope="module")
def index():
    return build_index(TERMS, HIERARCHY, ANNOTATIONS, TWINS)


@pytest.fixture(scope="module")
def rebuilt():
    """The index as if PMID:1 had never been published."""
    return build_index(TERMS, HIERARCHY, WITHOUT_PMID_1, TWINS)


def test_the_view_leaves_out_exactly_the_lines_citing_the_reference(index) -> None:
    view = withhold(index, ["PMID:1"])
    assert view is not None and view.edges == {"e1", "e4", "e7"}
    changed = {index.diseases[d] for d in view.rows}
    assert changed == {"D1", "D3", "D5"}
    assert [index.diseases[d] for d in view.gone] == ["D3"]
    kept = {index.diseases[d]: [n.edge for n in notes] for d, notes in view.kept.items()}
    assert kept == {"D1": ["e2"], "D3": [], "D5": ["e6"]}
    # a reference no line cites changes nothing: the case ranks against the whole index
    assert withhold(index, ["PMID:404"]) is None


def test_statistics_equal_an_index_built_without_the_lines(index, rebuilt) -> None:
    view = withhold(index, ["PMID:1"])
    assert np.allclose(view.ic, rebuilt.ic) and np.allclose(view.background, rebuilt.background)
    for disease in rebuilt.diseases:
        # D5: 3/4 and 1/6 made 4 + 6 cohort patients; without 1/6, 4
        before = view.cohort_patients[index.disease_index[disease]]
        assert before == rebuilt.cohort_patients[rebuilt.disease_index[disease]], disease
    assert view.cohort_patients[index.disease_index["D5"]] == 4
    assert index.cohort_patients[index.disease_index["D5"]] == 10


@pytest.mark.parametrize(
    "scorer",
    [LikelihoodRatio(calibrate=False), ExactIC(), ResnikBMA()],
    ids=["likelihood-ratio", "exact-ic", "resnik-bma"],
)
@pytest.mark.parametrize(
    ("observed", "excluded"),
    [(["B"], []), (["A", "C"], ["B"]), (["R"], ["C"])],
    ids=["B", "A+C-not-B", "R-not-C"],
)
def test_scores_equal_an_index_built_without_the_lines(
    index, rebuilt, scorer, observed, excluded
) -> None:
    view = withhold(index, ["PMID:1"])
    seen = [index.term_index[t] for t in observed]
    absent = [index.term_index[t] for t in excluded]
    scores = scorer.score(index, seen, absent, view)
    expected = scorer.score(rebuilt, seen, absent)
    for disease in index.diseases:
        got = scores[index.disease_index[disease]]
        if disease in rebuilt.disease_index:
            assert got == pytest.approx(expected[rebuilt.disease_index[disease]]), disease
        else:
            assert got == -np.inf  # D3 has no line left: not a candidate


def test_the_calibration_of_changed_diseases_is_recomputed_exactly(index) -> None:
    scorer = LikelihoodRatio(calibration_terms=200)
    view = withhold(index, ["PMID:1"])
    seen, absent = scorer.expected(index, view)
    exact_seen, exact_absent = scorer.exact_expected(index, view)
    assert np.allclose(seen[view.rows], exact_seen[view.rows])
    assert np.allclose(absent[view.rows], exact_absent[view.rows])
    whole, _ = scorer.expected(index)
    d1 = index.disease_index["D1"]
    assert seen[d1] != whole[d1]  # D1 lost B: its expectation moved


def test_a_withheld_ranking_cites_only_kept_lines_and_adds_up(index) -> None:
    ranker = DiagnosisRanker(index, LikelihoodRatio(calibration_terms=200))
    found = ranker.rank(["B", "C"], ["A"], top=10, withhold=["PMID:1"])
    assert found.withheld == ["PMID:1"] and found.withheld_lines == 3
    ids = [e.id for e in found.ranking]
    assert "D3" not in ids and len(ids) == len(set(ids))
    edges = {ev.edge for e in found.ranking for ev in e.evidence if ev.edge}
    assert edges and not edges & {"e1", "e4", "e7"}
    for entry in found.ranking:
        total = entry.prior + sum(e.contribution for e in entry.evidence)
        assert total == pytest.approx(entry.score, abs=1e-3)
    # the same case without the field ranks D1 on its B (e1)
    plain = ranker.rank(["B", "C"], ["A"], top=10)
    d1 = next(e for e in plain.ranking if e.id == "D1")
    assert "e1" in {ev.edge for ev in d1.evidence} and plain.withheld == []


#: D3 and D1 are diseases of one gene (allelic); D2 has another.
GENES = pl.DataFrame(
    {
        "disease": ["D1", "D3", "D2"],
        "gene": ["NCBIGene:1", "NCBIGene:1", "NCBIGene:2"],
        "symbol": ["G1", "G1", "G2"],
        "edge": ["g1", "g3", "g2"],
        "source": ["infores:hpo-annotations"] * 3,
        "source_record": ["genes_to_phenotype.txt#L1", "#L3", "#L2"],
    }
)


def test_a_disease_left_with_no_line_ranks_through_its_allelic_disease() -> None:
    index = build_index(TERMS, HIERARCHY, ANNOTATIONS, TWINS, GENES)
    ranker = DiagnosisRanker(index, LikelihoodRatio(calibration_terms=200))
    found = ranker.rank(["A", "C"], top=10, withhold=["PMID:1"])
    entries = {e.id: e for e in found.ranking}
    d3, d1 = entries["D3"], entries["D1"]
    # D3 lost its only line: it takes D1's score (they share G1) less the penalty
    assert d3.allelic is not None and d3.allelic["id"] == "D1"
    assert d3.allelic["symbol"] == "G1"
    assert {g["edge"] for g in d3.allelic["edges"]} == {"g1", "g3"}
    assert d3.score == pytest.approx(d1.score + d3.allelic["penalty"], abs=1e-3)
    assert d3.rank == d1.rank + 1
    total = d3.prior + d3.allelic["penalty"] + sum(e.contribution for e in d3.evidence)
    assert total == pytest.approx(d3.score, abs=1e-3)
    assert [g["edge"] for g in d3.genes] == ["g3"]
    # without the withheld reference D3 is ranked on its own lines
    plain = {e.id: e for e in ranker.rank(["A", "C"], top=10).ranking}
    assert plain["D3"].allelic is None and plain["D1"].genes[0]["symbol"] == "G1"
