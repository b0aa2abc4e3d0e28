"""Phenotypic series pooling on a hand-built index (no graph engine).

    R (root)
    ├── A ── B
    └── C
"Foo syndrome 1": B 0.9, C 1/2. "Foo syndrome 2": B 3/4. "Foo syndrome 3": A 1/2 (PMID:1, its
only line). "Bar disease": C (OMIM:5). "Foo syndrome" (the series' unnumbered first entry): C.
Withholding PMID:1 leaves Foo syndrome 3 with no line; its series' other diseases keep theirs.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from biokg.graph_agent.diagnosis.index import build_index
from biokg.graph_agent.diagnosis.ranker import DiagnosisRanker
from biokg.graph_agent.diagnosis.scoring import LikelihoodRatio
from biokg.graph_agent.diagnosis.series import pool_series, series_members, series_name
from biokg.graph_agent.diagnosis.withhold import withhold

pytestmark = pytest.mark.unit

TERMS = pl.DataFrame({"id": ["R", "A", "B", "C"], "name": ["root", "a", "b", "c"]})
HIERARCHY = pl.DataFrame({"child": ["A", "B", "C"], "parent": ["R", "A", "R"]})
NAMES = [
    "Foo syndrome 1",
    "Foo syndrome 1",
    "Foo syndrome 2",
    "Foo syndrome 3",
    "Bar disease",
    "Foo syndrome",
]
ANNOTATIONS = pl.DataFrame(
    {
        "disease": ["D1", "D1", "D2", "D3", "D4", "D5"],
        "name": NAMES,
        "term": ["B", "C", "B", "A", "C", "C"],
        "frequency": ["HP:0040281", "1/2", "3/4", "1/2", None, "1/3"],
        "negated": [False] * 6,
        "edge": ["e1", "e2", "e3", "e4", "e5", "e6"],
        "source": ["infores:hpo-annotations"] * 6,
        "source_record": [f"phenotype.hpoa#L{i}" for i in range(1, 7)],
        "references": [["PMID:7"], ["PMID:8"], ["PMID:9"], ["PMID:1"], ["OMIM:5"], ["OMIM:6"]],
    }
)
TWINS = pl.DataFrame({"subject": [], "object": [], "edge": [], "source_record": []})


@pytest.fixture(scope="module")
def index():
    return build_index(TERMS, HIERARCHY, ANNOTATIONS, TWINS.cast(pl.String))


@pytest.mark.parametrize(
    ("name", "series"),
    [
        ("Lipodystrophy, familial partial, type 9", "lipodystrophy familial partial"),
        ("Seckel syndrome 11", "seckel syndrome"),
        ("Amelogenesis imperfecta, type IJ", "amelogenesis imperfecta"),
        (
            "Basal ganglia calcification, idiopathic, 9, autosomal recessive",
            "basal ganglia calcification idiopathic autosomal recessive",
        ),
        ("Rabin-Pappas syndrome", None),
        (None, None),
    ],
)
def test_a_series_is_the_name_without_its_number_or_type(name, series) -> None:
    assert series_name(name) == series


def test_the_diseases_of_one_series_are_members_of_one_another(index) -> None:
    members = series_members(index)
    d1, d2, d3, d4, d5 = (index.disease_index[d] for d in ("D1", "D2", "D3", "D4", "D5"))
    assert members[d3].tolist() == sorted([d1, d2, d5])
    assert members[d5].tolist() == sorted([d1, d2, d3])  # the unnumbered first entry
    assert d4 not in members


def test_a_disease_left_with_no_line_gets_its_series_pooled_profile(index) -> None:
    view = withhold(index, ["PMID:1"])
    d1, d2, d3, d5 = (index.disease_index[d] for d in ("D1", "D2", "D3", "D5"))
    assert view is not None and view.gone.tolist() == [d3]
    pooled = pool_series(index, view)
    assert pooled.gone.tolist() == [] and pooled.series[d3].tolist() == [d1, d2, d5]
    at = pooled.position(d3)
    b, c = index.term_index["B"], index.term_index["C"]
    rows = [index.F_rows[d].toarray().ravel() for d in (d1, d2, d5)]
    # each term's frequency the root of its mean over the series, the best-described prior
    assert pooled.F[at, b] == pytest.approx(np.sqrt(sum(f[b] for f in rows) / 3))
    assert pooled.F[at, c] == pytest.approx(np.sqrt(sum(f[c] for f in rows) / 3))
    assert pooled.direct[at, b] == 1 and pooled.direct[at, c] == 1
    assert pooled.cohort_patients[d3] == pytest.approx(max(2, 4, 3))
    assert {n.edge for n in pooled.kept[d3]} == {"e1", "e2", "e3", "e6"}
    # the statistics are the view's: a pooled profile is not an annotation
    assert np.array_equal(pooled.ic, view.ic) and np.array_equal(pooled.background, view.background)


def test_a_pooled_disease_is_ranked_and_cites_its_series_lines() -> None:
    index = build_index(TERMS, HIERARCHY, ANNOTATIONS, TWINS.cast(pl.String))
    ranker = DiagnosisRanker(index, LikelihoodRatio(calibration_terms=200))
    found = ranker.rank(["B", "C"], top=10, withhold=["PMID:1"])
    entries = {e.id: e for e in found.ranking}
    d3 = entries["D3"]
    assert d3.series is not None and [s["id"] for s in d3.series] == ["D1", "D2", "D5"]
    assert d3.allelic is None
    cited = {ev.edge for ev in d3.evidence if ev.edge}
    assert cited and cited <= {"e1", "e2", "e3", "e6"}
    for entry in found.ranking:
        total = entry.prior + sum(e.contribution for e in entry.evidence)
        assert total == pytest.approx(entry.score, abs=1e-3)
    # the same case without the field ranks D3 on its own line, without its series
    plain = {e.id: e for e in ranker.rank(["B", "C"], top=10).ranking}
    own = {ev.edge for ev in plain["D3"].evidence} - {None}
    assert plain["D3"].series is None and own <= {"e4"}
    # explained on request, the pooled disease gives the score it was ranked with
    explained = ranker.explain("D3", ["B", "C"], withhold=["PMID:1"])
    assert explained.score == pytest.approx(d3.score, abs=1e-3) and explained.series is not None
