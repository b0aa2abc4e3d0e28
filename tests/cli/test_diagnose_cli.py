"""``biokg diagnose`` on the session's agent graph: one case from the command line, and a batch
in score_dx.py's interface (JSONL in, one ranking a line out)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env

runner = CliRunner()
#: Arachnodactyly, Ectopia lentis, Aortic root aneurysm: Marfan syndrome (OMIM:154700)
MARFAN_FEATURES = ["HP:0001166", "HP:0001083", "HP:0002616"]


def test_batch_writes_one_ranking_a_line_with_twins_and_unknown_terms(
    agent_graph: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps({"id": "a", "observed": MARFAN_FEATURES, "excluded": ["HP:0001250"]})
        + "\n\n"
        + json.dumps({"id": "b", "observed": ["HP:9999999"]})
        + "\n"
    )
    out = tmp_path / "rankings.jsonl"
    result = runner.invoke(
        app,
        ["diagnose", "--cases", str(cases), "--out", str(out), "--top", "5"],
        env=settings_env(settings),
    )
    assert result.exit_code == 0, result.output
    first, second = (json.loads(line) for line in out.read_text().splitlines())
    assert first["id"] == "a" and len(first["ranking"]) == 5
    marfan = next(e for e in first["ranking"] if "OMIM:154700" in e["ids"])
    assert "ORPHA:558" in marfan["ids"] and marfan["evidence"][0]["edge"]
    assert first["excluded"] == ["HP:0001250"]
    # a term the hierarchy lacks is reported, not scored
    assert second["unknown"] == ["HP:9999999"] and second["observed"] == []


def test_neither_terms_nor_cases_is_a_one_line_error(settings: Settings) -> None:
    result = runner.invoke(app, ["diagnose"], env=settings_env(settings))
    assert result.exit_code == 1
    assert "give HPO terms, or --cases FILE --out FILE" in result.output


def test_a_graph_without_hpo_is_refused_with_what_to_build(own_graph_settings: Settings) -> None:
    result = runner.invoke(app, ["diagnose", "HP:0001250"], env=settings_env(own_graph_settings))
    assert result.exit_code == 1
    assert "no HPO terms" in result.output and "--sources hpo" in result.output


def test_the_table_shows_each_diseases_prior_beside_its_score(
    agent_graph: GraphStore, settings: Settings
) -> None:
    shown = runner.invoke(
        app, ["diagnose", *MARFAN_FEATURES, "--top", "3"], env=settings_env(settings)
    )
    ranked = runner.invoke(
        app, ["diagnose", *MARFAN_FEATURES, "--top", "3", "--json"], env=settings_env(settings)
    )
    assert shown.exit_code == 0 and ranked.exit_code == 0, shown.output + ranked.output
    assert "prior" in shown.output
    # the score is the prior plus the terms' contributions: the table names the prior's part
    for entry in json.loads(ranked.output)["ranking"]:
        assert f"{entry['prior']:+.2f}" in shown.output


#: Real GA4GH v2 phenopackets from phenopacket-store (read in place), each behind one line of
#: the development cases.
PACKETS = Path(__file__).resolve().parents[3] / "shared" / "data" / "phenopackets"
DEV = PACKETS.parents[1] / "eval" / "diagnosis_dev.jsonl"


def test_a_folder_of_phenopackets_ranks_as_their_development_lines(
    agent_graph: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    names = sorted(p.stem for p in PACKETS.glob("*.json"))
    lines = {case["id"]: case for case in map(json.loads, DEV.read_text().splitlines())}
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(
            json.dumps({k: lines[n][k] for k in ("id", "observed", "excluded")}) + "\n"
            for n in names
        )
    )
    env = settings_env(settings)
    read, given = tmp_path / "read.jsonl", tmp_path / "given.jsonl"
    from_packets = runner.invoke(
        app, ["diagnose", "--phenopacket", str(PACKETS), "--out", str(read), "--top", "5"], env=env
    )
    from_lines = runner.invoke(
        app, ["diagnose", "--cases", str(cases), "--out", str(given), "--top", "5"], env=env
    )
    assert from_packets.exit_code == 0 and from_lines.exit_code == 0, from_packets.output
    assert read.read_text() == given.read_text()
    ranked = [json.loads(line) for line in read.read_text().splitlines()]
    assert [r["id"] for r in ranked] == names
    # each disease entry lists its genes (the ASSOCIATED_WITH edges of its records)
    assert sum(bool(e["genes"]) for r in ranked for e in r["ranking"]) >= 24


def test_one_phenopacket_prints_its_ranking_and_a_folder_needs_out(settings: Settings) -> None:
    one = sorted(PACKETS.glob("*.json"))[0]
    env = settings_env(settings)
    shown = runner.invoke(app, ["diagnose", "--phenopacket", str(one), "--json"], env=env)
    assert shown.exit_code == 0, shown.output
    line = next(
        case for case in map(json.loads, DEV.read_text().splitlines()) if case["id"] == one.stem
    )
    assert json.loads(shown.output)["excluded"] == line["excluded"]
    folder = runner.invoke(app, ["diagnose", "--phenopacket", str(PACKETS)], env=env)
    assert folder.exit_code == 1 and "add --out FILE" in folder.output


def test_one_case_withholds_a_publication_and_says_so(
    agent_graph: GraphStore, settings: Settings
) -> None:
    env = settings_env(settings)
    # PMID:33436942 (a Marfan cohort) is cited by 32 of Marfan's phenotype lines
    asked = ["diagnose", *MARFAN_FEATURES, "--top", "3", "--withhold", "PMID:33436942"]
    ranked = runner.invoke(app, [*asked, "--json"], env=env)
    shown = runner.invoke(app, asked, env=env)
    assert ranked.exit_code == 0 and shown.exit_code == 0, ranked.output + shown.output
    found = json.loads(ranked.output)
    assert found["withheld"] == ["PMID:33436942"] and found["withheld_lines"] == 32
    assert "ranked without PMID:33436942: 32 annotation lines left out" in shown.output
    mixed = runner.invoke(
        app, ["diagnose", "--cases", "x.jsonl", "--out", "y.jsonl", "--withhold", "PMID:1"], env=env
    )
    assert mixed.exit_code == 1 and "withhold_references on each case's line" in mixed.output
