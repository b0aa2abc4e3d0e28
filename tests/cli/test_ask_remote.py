"""``biokg ask`` and ``biokg search`` as clients of a running agent API (``BIOKG_API_URL``):
the same answers, in the same forms, as an agent in the command's own process; the server's
errors as one line."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest
from live_server import serve
from rdflib import Graph
from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store.embedded import free_port, settings_env
from biokg.graph_agent.agent import GraphAgent

runner = CliRunner()
KEY = "remote-cli-test-key-0123456789"
QUESTION = "What does VIAGRA target?"
PDE5A = "NCBIGene:8654"


@pytest.fixture(scope="module")
def served(agent: GraphAgent, settings: Settings) -> Iterator[str]:
    yield from serve(dataclasses.replace(settings, api_key=KEY), agent)


def _ask(settings: Settings, *args: str, **env: str) -> tuple[int, str]:
    result = runner.invoke(app, ["ask", *args], env={**settings_env(settings), **env})
    return result.exit_code, result.output


def _claims(answer: dict) -> list[tuple[str, list[str], list[str]]]:
    return [(c["text"], c["node_ids"], c["edge_ids"]) for c in answer["claims"]]


def test_remote_json_is_the_answer_the_command_gives_in_process(
    served: str, settings: Settings
) -> None:
    code, here = _ask(settings, QUESTION, "--json")
    assert code == 0, here
    code, there = _ask(settings, QUESTION, "--json", BIOKG_API_URL=served, BIOKG_API_KEY=KEY)
    assert code == 0, there
    local, remote = json.loads(here), json.loads(there)
    assert remote["status"] == "answered"
    assert PDE5A in [n["id"] for n in remote["answers"]]
    assert _claims(remote) == _claims(local)
    assert remote["evidence"] == local["evidence"]


def test_remote_text_and_turtle_print_the_servers_claims(served: str, settings: Settings) -> None:
    remote = {"BIOKG_API_URL": served + "/", "BIOKG_API_KEY": KEY}  # a trailing slash is fine
    code, text = _ask(settings, QUESTION, **remote)
    assert code == 0, text
    assert text.splitlines()[0].startswith("1 found (targets): ")
    first_claim = " ".join(text.split("[1] ", 1)[1].split())  # as printed, wrapped
    assert PDE5A in first_claim.split(" [2] ")[0]
    code, turtle = _ask(settings, QUESTION, "--format", "turtle", **remote)
    assert code == 0, turtle
    triples = Graph().parse(data=turtle, format="turtle")
    cited = {str(o) for o in triples.objects() if str(o).endswith("8654")}
    assert cited, "the Turtle answer names PDE5A"


def test_server_errors_are_one_line_naming_the_server(served: str, settings: Settings) -> None:
    code, output = _ask(settings, QUESTION, BIOKG_API_URL=served, BIOKG_API_KEY="wrong-key")
    assert code == 1
    assert f"(HTTP 401 from {served})" in output and "Traceback" not in output
    code, output = _ask(settings, " ", BIOKG_API_URL=served, BIOKG_API_KEY=KEY)
    assert code == 1
    assert f"(HTTP 422 from {served})" in output and "question" in output


def test_remote_search_is_the_search_the_command_runs_in_process(
    served: str, settings: Settings
) -> None:
    here = runner.invoke(app, ["search", "viagar", "-o", "json"], env=settings_env(settings))
    assert here.exit_code == 0, here.output
    remote_env = {**settings_env(settings), "BIOKG_API_URL": served, "BIOKG_API_KEY": KEY}
    there = runner.invoke(app, ["search", "viagar", "-o", "json"], env=remote_env)
    assert there.exit_code == 0, there.output
    assert json.loads(there.output) == json.loads(here.output)
    assert json.loads(there.output)[0]["id"] == "CHEMBL.COMPOUND:CHEMBL192"  # sildenafil
    too_many = runner.invoke(app, ["search", "viagar", "-n", "99"], env=remote_env)
    assert too_many.exit_code == 1
    assert f"limit: Input should be less than or equal to 50 (HTTP 422 from {served})" in (
        " ".join(too_many.output.split())
    )


def test_nothing_listening_says_how_to_go_on(settings: Settings) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    code, output = _ask(settings, QUESTION, BIOKG_API_URL=nowhere)
    assert code == 1
    assert f"no agent API answers at {nowhere}" in output
    assert "unset BIOKG_API_URL" in output


def test_api_url_must_be_http(settings: Settings) -> None:
    code, output = _ask(settings, QUESTION, BIOKG_API_URL="127.0.0.1:8000")
    assert code == 1
    assert "BIOKG_API_URL='127.0.0.1:8000': expected an http:// or https:// URL" in output
