"""Leave-publication-out ranking on the session graph (the full offline HPO release, bridged by
MONDO), read through the real driver.

PMID:23033978 is cited by annotation lines of nine OMIM diseases in HPO 2025-01-16 (the widest
spread of one publication in the release), by 90 HAS_PHENOTYPE lines of seven of them (86
phenotype lines, 3 of clinical course, 1 of another aspect; the inheritance lines are other
edges): some of those lines cite other references too, one is an excluded feature (``0/1``).
OMIM:618522 is one of the seven.

Every phenotype line of OMIM:614814 (Adams-Oliver syndrome 3) cites PMID:22883147, and no other
disease's line does: withholding it leaves that disease with no line. Its phenotypic series is
the other Adams-Oliver syndromes.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.graph_agent.diagnosis.index import PhenotypeIndex
from biokg.graph_agent.diagnosis.load import phenotype_index
from biokg.graph_agent.diagnosis.ranker import DiagnosisRanker
from biokg.graph_agent.diagnosis.withhold import withhold

REFERENCE = "PMID:23033978"
DISEASE = "OMIM:618522"
SERIES_REFERENCE = "PMID:22883147"
SERIES_DISEASE = "OMIM:614814"


@pytest.fixture(scope="module")
def index(agent_graph: GraphStore, settings: Settings) -> PhenotypeIndex:
    return phenotype_index(agent_graph, settings.cache_dir)


@pytest.fixture(scope="module")
def citing(agent_graph: GraphStore) -> dict[str, str]:
    """Edge id → disease of every HAS_PHENOTYPE line that cites REFERENCE, read from the graph."""
    rows = agent_graph.read(
        "MATCH (d:Disease)-[r:HAS_PHENOTYPE]->(:Phenotype) WHERE $ref IN r.references "
        "RETURN r.id AS edge, d.id AS disease",
        {"ref": REFERENCE},
    )
    return {row["edge"]: row["disease"] for row in rows}


@pytest.fixture(scope="module")
def case(index: PhenotypeIndex, citing: dict[str, str]) -> list[str]:
    """The terms of DISEASE's lines that cite REFERENCE (a patient of that publication)."""
    d = index.disease_index[DISEASE]
    return sorted({index.terms[n.term] for n in index.profiles[d] if n.edge in citing})[:8]


def test_a_withheld_reference_leaves_out_exactly_the_lines_citing_it(
    index: PhenotypeIndex, citing: dict[str, str]
) -> None:
    assert len(set(citing.values())) == 7 and len(citing) == 90
    view = withhold(index, [REFERENCE])
    assert view is not None and view.edges == set(citing)
    assert {index.diseases[d] for d in view.rows} == {
        index.diseases[index.disease_index[d]] for d in citing.values()
    }
    for d in view.rows.tolist():
        every = {n.edge for n in index.profiles[d]}
        # each changed disease keeps every present line but the citing ones
        assert {n.edge for n in view.kept[d]} == every - set(citing)
    # a disease the publication was not curated into is untouched
    assert index.disease_index["OMIM:154700"] not in view.rows


def test_in_a_batch_only_the_case_that_withholds_is_ranked_without_the_lines(
    index: PhenotypeIndex,
    citing: dict[str, str],
    case: list[str],
    settings: Settings,
    tmp_path: Path,
) -> None:
    cases = tmp_path / "cases.jsonl"
    lines = [
        {"id": "withheld", "observed": case, "withhold_references": [REFERENCE]},
        {"id": "plain", "observed": case},
        {"id": "uncited", "observed": case, "withhold_references": ["PMID:1"]},
    ]
    cases.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "rankings.jsonl"
    result = CliRunner().invoke(
        app,
        ["diagnose", "--cases", str(cases), "--out", str(out), "--top", "10"],
        env=settings_env(settings),
    )
    assert result.exit_code == 0, result.output
    withheld, plain, uncited = (json.loads(line) for line in out.read_text().splitlines())
    assert withheld["withheld"] == [REFERENCE] and withheld["withheld_lines"] == len(citing)
    cited = {e["edge"] for entry in withheld["ranking"] for e in entry["evidence"] if e["edge"]}
    assert cited and not cited & set(citing)
    # the case after it, and one whose reference no line cites, rank as without the field
    alone = asdict(DiagnosisRanker(index).rank(case, top=10))
    assert {k: v for k, v in plain.items() if k != "id"} == alone
    assert uncited["withheld"] == ["PMID:1"] and uncited["withheld_lines"] == 0
    assert {k: v for k, v in uncited.items() if k not in ("id", "withheld")} == {
        k: v for k, v in alone.items() if k != "withheld"
    }
    # without the field the publication's own lines are what ranks its disease
    [entry] = [e for e in plain["ranking"] if DISEASE in e["ids"]]
    assert entry["rank"] <= 3 and {e["edge"] for e in entry["evidence"]} & set(citing)


def test_every_edge_a_withheld_ranking_cites_is_in_the_graph(
    index: PhenotypeIndex, agent_graph: GraphStore, case: list[str], citing: dict[str, str]
) -> None:
    ranking = DiagnosisRanker(index).rank(case, ["HP:0001250"], top=10, withhold=[REFERENCE])
    cited = {
        (ev.disease, ev.disease_term, ev.edge, ev.source_record)
        for e in ranking.ranking
        for ev in e.evidence
        if ev.edge
    }
    assert len(cited) >= 10
    ids = [i for entry in ranking.ranking for i in entry.ids]
    assert len(ids) == len(set(ids))  # bridged twins ranked once under withholding too
    rows = agent_graph.read(
        "UNWIND $rows AS row "
        "MATCH (:Disease {id: row.d})-[r:HAS_PHENOTYPE]->(:Phenotype {id: row.t}) "
        "WHERE r.id = row.e "
        "RETURN row.d AS d, row.t AS t, r.id AS e, r.source_record AS rec, r.references AS refs",
        {"rows": [{"d": d, "t": t, "e": e} for d, t, e, _ in cited]},
    )
    assert {(r["d"], r["t"], r["e"], r["rec"]) for r in rows} == cited
    assert not any(REFERENCE in (r["refs"] or []) for r in rows)


def test_a_disease_the_publication_empties_is_ranked_on_its_series(
    index: PhenotypeIndex, agent_graph: GraphStore
) -> None:
    d = index.disease_index[SERIES_DISEASE]
    # a patient of that publication: the terms of its lines
    case = sorted({index.terms[n.term] for n in index.profiles[d]})[:8]
    view = withhold(index, [SERIES_REFERENCE])
    assert view is not None and view.gone.tolist() == [d]
    ranker = DiagnosisRanker(index)
    found = ranker.rank(case, top=100, withhold=[SERIES_REFERENCE])
    [entry] = [e for e in found.ranking if SERIES_DISEASE in e.ids]
    assert entry.series and entry.allelic is None
    assert all(s["name"].startswith("Adams-Oliver syndrome") for s in entry.series)
    assert entry.prior + sum(e.contribution for e in entry.evidence) == pytest.approx(
        entry.score, abs=1e-3
    )
    cited = {(ev.disease, ev.disease_term, ev.edge) for ev in entry.evidence if ev.edge}
    assert cited
    members = {i for s in entry.series for i in index.twins.get(s["id"], [s["id"]])}
    assert {disease for disease, _, _ in cited} <= members
    # every edge it cites is a HAS_PHENOTYPE line of its series in the graph, none citing
    # the withheld publication
    rows = agent_graph.read(
        "UNWIND $rows AS row "
        "MATCH (:Disease {id: row.d})-[r:HAS_PHENOTYPE]->(:Phenotype {id: row.t}) "
        "WHERE r.id = row.e RETURN r.id AS e, r.references AS refs",
        {"rows": [{"d": dd, "t": t, "e": e} for dd, t, e in cited]},
    )
    assert {r["e"] for r in rows} == {e for _, _, e in cited}
    assert not any(SERIES_REFERENCE in (r["refs"] or []) for r in rows)
    # without the field the disease is ranked on its own lines
    plain = ranker.rank(case, top=100)
    [own] = [e for e in plain.ranking if SERIES_DISEASE in e.ids]
    assert own.series is None and own.rank <= entry.rank
