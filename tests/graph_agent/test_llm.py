"""The LLM planner on the real embedded graph, with the loopback OpenAI-compatible stub as the
model: scripted tool calls (including broken Cypher), recorded requests."""

from __future__ import annotations

import dataclasses
import json
import re
import time

import pytest
from llm_stub import call, calls, failure, slow, text, tool_results

from biokg.core.settings import Settings
from biokg.errors import LLMError, RetryableError
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.llm import CypherRepairError, LLMResearcher
from biokg.graph_agent.prompts import PromptTemplate, PromptTemplateError, QuestionPrompt

SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"
PDE5A = "NCBIGene:8654"
SEIZURE = "HP:0001250"
NODE = "{{id: {v}.id, label: [l IN labels({v}) WHERE l <> 'Entity'][0], name: {v}.name}}"
EDGE = (
    "{id: r.id, type: type(r), subject: startNode(r).id, object: endNode(r).id, "
    "props: properties(r)}"
)
TARGETS = (
    f"MATCH (d:Drug {{id: $drug}})-[r:TARGETS]->(g:Gene) "
    f"RETURN {NODE.format(v='d')} AS drug, {EDGE} AS rel, {NODE.format(v='g')} AS gene"
)
BROKEN = "MATCH (d:Drug {id: $drug})-[r:TARGETS]->(g:Gene) WHERE RETURN g.name"  # syntax


def _cited(answer) -> set[str]:
    return {i for c in answer.claims for i in (*c.node_ids, *c.edge_ids)}


def _evidence(answer) -> set[str]:
    return {n.id for n in answer.evidence.nodes} | {e.id for e in answer.evidence.edges}


def test_happy_path_link_cypher_answer_cites_the_evidence(llm_agent, llm_stub):
    llm_stub.play(
        call("link", text="sildenafil"),
        call("cypher", query=TARGETS, params={"drug": SILDENAFIL}),
        call("answer", node_ids=[PDE5A]),
    )
    answer = llm_agent.ask("What does sildenafil target?")

    assert answer.status == "answered" and answer.planner == "llm"
    assert [n.id for n in answer.answers] == [PDE5A]
    assert answer.claims and _cited(answer) <= _evidence(answer)
    assert answer.claims[0].sources[0].source == "infores:chembl"
    ran = [q for q in answer.queries if q.step == "llm:cypher"]
    assert len(ran) == 1 and ran[0].cypher.endswith("LIMIT 200") and ran[0].rows == 1
    # what the model was given: tools, the schema from schema/, the linked mention
    first = llm_stub.requests[0]
    assert {t["function"]["name"] for t in first["tools"]} == {
        "link",
        "breadth",
        "depth",
        "cypher",
        "answer",
    }
    system = first["messages"][0]["content"]
    assert "(:Drug)-[:TARGETS {action_type, mechanism, action}]->(:Gene)" in system
    assert "subject: startNode(r).id" in system and "source_record" in system
    assert SILDENAFIL in first["messages"][1]["content"]
    linked = json.loads(tool_results(llm_stub.requests[1])[0])
    assert linked["candidates"][0]["id"] == SILDENAFIL
    result = json.loads(tool_results(llm_stub.requests[2])[1])
    assert result["rows"] == 1 and result["findings"] == 1 and result["handle"] == "h1"


def test_large_results_stay_in_handles_not_prompts(llm_agent, llm_stub):
    llm_stub.play(
        call("breadth", seed_ids=[SEIZURE], relationship_types=["HAS_PHENOTYPE"]),
        call(
            "cypher",
            query=f"MATCH (d:Disease) WHERE d.id IN $h1 RETURN {NODE.format(v='d')} AS d",
        ),
        call("answer"),
    )
    answer = llm_agent.ask("Which diseases have seizures?")

    breadth = json.loads(tool_results(llm_stub.requests[1])[0])
    assert breadth["handle"] == "h1" and breadth["handle_size"] > 100
    assert len(breadth["first"]) == 5
    handle_query = next(q for q in answer.queries if q.step == "llm:cypher")
    assert len(handle_query.params["h1"]) == breadth["handle_size"]  # ids went as a parameter
    sent = set(re.findall(r"[A-Z][A-Za-z.]*:[\w.-]+", json.dumps(llm_stub.requests)))
    assert len(sent & set(handle_query.params["h1"])) <= 10  # a few names, never the list
    assert answer.status == "answered"


def test_broken_query_is_repaired(llm_agent, llm_stub):
    llm_stub.play(
        call("cypher", query=BROKEN, params={"drug": SILDENAFIL}),
        call("cypher", query=TARGETS, params={"drug": SILDENAFIL}),
        call("answer"),
    )
    answer = llm_agent.ask("What does sildenafil target?")

    error = json.loads(tool_results(llm_stub.requests[1])[0])["error"]
    assert "engine rejected it" in error and "3 repairs left" in error
    assert answer.status == "answered" and PDE5A in {n.id for n in answer.answers}
    assert [q.error is not None for q in answer.queries if q.step == "llm:cypher"] == [True, False]


def test_identical_failing_query_is_never_rerun(llm_agent, llm_stub):
    llm_stub.play(
        call("cypher", query=BROKEN, params={"drug": SILDENAFIL}),
        call("cypher", query=BROKEN + "  ", params={"drug": SILDENAFIL}),
        call("cypher", query=TARGETS, params={"drug": SILDENAFIL}),
        call("answer"),
    )
    answer = llm_agent.ask("What does sildenafil target?")

    second = json.loads(tool_results(llm_stub.requests[2])[1])["error"]
    assert "already failed" in second and "2 repairs left" in second
    failed = [q for q in answer.queries if q.error]
    assert len(failed) == 1  # the engine saw the broken query once
    assert answer.status == "answered"


def test_repairs_are_bounded_then_fail_clearly(llm_agent, llm_stub):
    broken = [f"MATCH (n:Drug) RETURN n.id AS id{i} ORDER BY" for i in range(5)]
    llm_stub.play(*(call("cypher", query=q) for q in broken))
    with pytest.raises(CypherRepairError, match=r"failed 4 times.*3 repairs"):
        llm_agent.ask("What does sildenafil target?")
    assert len(llm_stub.requests) == 4  # first try + 3 repairs; the fifth query never asked for


def test_tool_call_budget_stops_the_model(llm_agent, llm_stub):
    researcher = llm_agent.researcher
    llm_stub.play(*(call("link", text=f"drug {i}") for i in range(30)))
    answer = llm_agent.ask("What does sildenafil target?")
    assert len(llm_stub.requests) == researcher.max_tool_calls
    assert answer.status == "not_found"


def test_several_tool_calls_in_one_message_and_bad_arguments(llm_agent, llm_stub):
    llm_stub.play(
        calls(("depth", {"seed_id": SILDENAFIL}), ("breadth", {"seed_ids": [SILDENAFIL]})),
        call("answer"),
    )
    answer = llm_agent.ask("What does sildenafil target?")
    bad, good = (json.loads(r) for r in tool_results(llm_stub.requests[1]))
    assert "target_id" in bad["error"] and "chain" in bad["error"]
    assert good["found"] > 0 and "TARGETS" in good["by_relation"]
    assert answer.status == "answered" and _cited(answer) <= _evidence(answer)


def test_depth_along_a_typed_chain_reaches_the_chain_ends(llm_agent, llm_stub):
    chain_ends = (
        "MATCH (d:Drug)-[:TARGETS]->(:Gene)-[p:HAS_PHENOTYPE]->(t:Phenotype) "
        "WHERE coalesce(p.negated, false) = false "
        "WITH d, collect(DISTINCT t.id) AS ends RETURN d.id AS drug, ends "
        "ORDER BY size(ends), drug LIMIT 1"
    )
    [row] = llm_agent.store.read(chain_ends)
    llm_stub.play(
        call("depth", seed_id=row["drug"], chain=["TARGETS", "Gene", "HAS_PHENOTYPE", "Phenotype"]),
        call("answer"),
    )
    answer = llm_agent.ask("Which phenotypes go with the genes this drug targets?")
    result = json.loads(tool_results(llm_stub.requests[1])[0])
    assert result["found"] == len(row["ends"]), result
    assert {n.id for n in answer.answers} == set(row["ends"])
    assert _cited(answer) <= _evidence(answer)


def test_a_text_reply_ends_research_without_claims_from_the_model(llm_agent, llm_stub):
    llm_stub.play(text("Sildenafil targets PDE5A and cures everything."))
    answer = llm_agent.ask("What does sildenafil target?")
    assert answer.status == "not_found" and answer.claims == []


def test_endpoint_failure_is_a_retryable_llm_error(llm_agent, llm_stub):
    llm_stub.play(failure(503, "overloaded"))
    with pytest.raises(LLMError, match="overloaded") as err:
        llm_agent.ask("What does sildenafil target?")
    assert isinstance(err.value, RetryableError)


def test_a_slow_model_times_out_as_an_llm_error(llm_agent, llm_stub):
    researcher = LLMResearcher(llm_agent.researcher.client, "stub", timeout_s=0.5)
    impatient = GraphAgent(
        llm_agent.store, llm_agent.linker, schema=llm_agent.schema, researcher=researcher
    )
    llm_stub.play(slow(3.0, call("answer")))
    with pytest.raises(LLMError, match="timed out"):
        impatient.ask("What does sildenafil target?")


@pytest.mark.parametrize("missing", ["openai_base_url", "openai_api_key", "llm_model"])
def test_from_settings_needs_all_three_settings(settings: Settings, missing: str):
    full = dataclasses.replace(
        settings, openai_base_url="http://127.0.0.1:9/v1", openai_api_key="k", llm_model="m"
    )
    assert isinstance(LLMResearcher.from_settings(full), LLMResearcher)
    assert LLMResearcher.from_settings(dataclasses.replace(full, **{missing: None})) is None


def test_settings_read_the_llm_variables_and_hide_the_key():
    env = {"OPENAI_BASE_URL": "http://x/v1", "OPENAI_API_KEY": "sk-secret", "BIOKG_LLM_MODEL": "m"}
    settings = Settings.from_env(env)
    assert (settings.openai_base_url, settings.llm_model) == ("http://x/v1", "m")
    assert settings.openai_api_key == "sk-secret" and "sk-secret" not in repr(settings)


def test_prompt_templates_check_their_inputs():
    with pytest.raises(PromptTemplateError, match="'answer'"):

        class Broken(PromptTemplate):
            inputs = ("question",)
            text = "{question} {answer}"

    with pytest.raises(PromptTemplateError, match="mentions"):
        QuestionPrompt.format(question="q")


CARTESIAN = "MATCH (a:Phenotype),(b:Drug) WHERE a.name < b.name RETURN count(*)"


def _cartesian_refused(queries: list, llm_stub) -> None:
    """The model's cartesian read was refused, the reason reached the model, the engine is free."""
    [ran] = [q for q in queries if q["step"] == "llm:cypher"]
    assert "cartesian product" in ran["error"] and ran["rows"] == 0
    assert any("cartesian product" in r for r in tool_results(llm_stub.requests[-1]))


def test_a_cartesian_read_from_the_model_is_refused_within_budget(llm_agent, llm_stub):
    llm_stub.play(call("cypher", query=CARTESIAN), text("Nothing to add."))
    start = time.perf_counter()
    answer = llm_agent.ask("How many phenotype and drug pairs are there?")
    assert time.perf_counter() - start <= 10.0
    _cartesian_refused([q.model_dump() for q in answer.queries], llm_stub)
    start = time.perf_counter()
    assert llm_agent.store.read("MATCH (n:Drug) RETURN n.id AS id LIMIT 1")
    assert time.perf_counter() - start < 1.0


def test_the_api_answers_a_cartesian_read_within_budget(llm_agent, llm_stub, settings):
    from fastapi.testclient import TestClient

    from biokg.api.app import create_app

    llm_stub.play(call("cypher", query=CARTESIAN), text("Nothing to add."))
    with TestClient(create_app(settings, agent=llm_agent), base_url="http://127.0.0.1") as client:
        start = time.perf_counter()
        reply = client.post("/ask", json={"question": "How many phenotype and drug pairs?"})
        assert time.perf_counter() - start <= 10.0
        assert reply.status_code == 200, reply.text
        _cartesian_refused(reply.json()["queries"], llm_stub)
        start = time.perf_counter()
        assert client.get("/health").status_code == 200
        assert time.perf_counter() - start < 1.0
