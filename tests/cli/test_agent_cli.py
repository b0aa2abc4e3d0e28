"""``biokg ask``, ``biokg search`` and ``biokg eval`` on the session's agent graph."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env

runner = CliRunner()
SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"
PDE5A = "NCBIGene:8654"


def test_ask_json_cites_the_edge_behind_each_claim(
    agent_graph: GraphStore, settings: Settings
) -> None:
    result = runner.invoke(
        app, ["ask", "What does VIAGRA target?", "--json"], env=settings_env(settings)
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["status"] == "answered"
    assert PDE5A in [n["id"] for n in answer["answers"]]
    edges = {e["id"]: e for e in answer["evidence"]["edges"]}
    claim = next(c for c in answer["claims"] if PDE5A in c["node_ids"])
    [edge_id] = claim["edge_ids"]
    assert (edges[edge_id]["subject"], edges[edge_id]["object"]) == (SILDENAFIL, PDE5A)
    assert claim["sources"][0]["source"] == "infores:chembl"


def _ask_text(question: str, settings: Settings) -> str:
    """``biokg ask QUESTION``'s text output, the command having succeeded."""
    result = runner.invoke(app, ["ask", question], env=settings_env(settings))
    assert result.exit_code == 0, result.output
    return result.output


def test_ask_text_says_not_found_for_an_unknown_name(
    agent_graph: GraphStore, settings: Settings
) -> None:
    output = _ask_text("What does Zorblaxinol target?", settings)
    assert "Not found in the graph" in output


def test_ask_text_names_the_closest_names_it_rejected(
    agent_graph: GraphStore, settings: Settings
) -> None:
    # the default linking judges the respelling "Sildenafox" -> sildenafil too far in a
    # question about a disorder's features: not linked, but shown so that a typo can be fixed
    output = _ask_text("Which disorders list Sildenafox as a feature?", settings)
    assert "'Sildenafox' is not in the graph" in output
    printed = " ".join(output.split())  # rich wraps lines at the terminal's width
    closest = "'Sildenafox': closest names in the graph, judged too far: SILDENAFIL ("
    assert printed.count("judged too far") == 1 and f"{closest}{SILDENAFIL})" in printed


def test_empty_question_is_a_one_line_error(agent_graph: GraphStore, settings: Settings) -> None:
    result = runner.invoke(app, ["ask", "  "], env=settings_env(settings))
    assert result.exit_code == 1
    assert "the question is empty" in result.output


def test_search_links_a_misspelled_brand(agent_graph: GraphStore, settings: Settings) -> None:
    result = runner.invoke(app, ["search", "viagar", "-o", "json"], env=settings_env(settings))
    assert result.exit_code == 0, result.output
    [best, *_] = json.loads(result.output)
    assert (best["id"], best["rule"]) == (SILDENAFIL, "fuzzy")


def test_eval_json_reports_every_question_set(agent_graph: GraphStore, settings: Settings) -> None:
    result = runner.invoke(
        app, ["eval", "--per-relation", "1", "--json"], env=settings_env(settings)
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.output)
    assert set(metrics) == {
        "one_hop",
        "one_hop_heldout",
        "two_hop",
        "unanswerable",
        "verify",
        "variant_vs_stored_points",
        "hit@1_by_variant",
        "all",
    }
    assert metrics["all"]["citations_in_evidence"] == 1.0
