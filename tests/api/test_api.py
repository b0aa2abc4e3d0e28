"""The agent API end to end: real app, real engine, real data (see conftest.py)."""

from __future__ import annotations

import json
import time

import anyio
import pytest
import rdflib
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from biokg.api.app import check_bind, create_app
from biokg.api.errors import error_status
from biokg.api.models import MAX_QUESTION_CHARS, MAX_SEARCH_CHARS, BudgetRequest
from biokg.api.routes import in_thread
from biokg.cli.app import app as cli_app
from biokg.core.settings import Settings
from biokg.errors import (
    AgentInputError,
    BiokgError,
    BudgetExceededError,
    ConfigError,
    EntityNotFoundError,
    RecordValidationError,
    StoreError,
    StoreUnavailableError,
    UnsafeCypherError,
)
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.models import Answer
from biokg.graph_agent.runner import Budget

VIAGRA = "CHEMBL.COMPOUND:CHEMBL192"  # sildenafil, brand name Viagra, in the ChEMBL test set
PDE5A = "NCBIGene:8654"  # phosphodiesterase 5A, sildenafil's target in ChEMBL's mechanisms
TARGETS_Q = "What does Viagra target?"


def _cited_ids_are_in_evidence(answer: Answer) -> None:
    nodes = {n.id for n in answer.evidence.nodes}
    edges = {e.id: e for e in answer.evidence.edges}
    for claim in answer.claims:
        assert set(claim.node_ids) <= nodes, claim.text
        assert set(claim.edge_ids) <= set(edges), claim.text
        for source in claim.sources:
            assert source.source_record == edges[source.edge_id].source_record


@pytest.mark.parametrize(
    "question",
    [TARGETS_Q, "What are the phenotypes of Marfan syndrome?"],
    ids=["drug-targets", "disease-phenotypes"],
)
def test_ask_answers_with_claims_citing_only_the_returned_evidence(
    client: TestClient, auth: dict[str, str], question: str
) -> None:
    response = client.post("/ask", json={"question": question}, headers=auth)
    assert response.status_code == 200, response.text
    answer = Answer.model_validate(response.json())
    assert answer.status == "answered" and answer.claims and answer.queries, answer.summary
    _cited_ids_are_in_evidence(answer)


def test_ask_viagra_targets_pde5a_with_provenance(client: TestClient, auth: dict[str, str]) -> None:
    answer = Answer.model_validate(
        client.post("/ask", json={"question": TARGETS_Q}, headers=auth).json()
    )
    assert PDE5A in [n.id for n in answer.answers]
    claim = next(c for c in answer.claims if PDE5A in c.node_ids)
    assert claim.sources and all(s.source and s.source_record for s in claim.sources)


def test_ask_budget_override_limits_the_work(client: TestClient, auth: dict[str, str]) -> None:
    body = {"question": TARGETS_Q, "budget": {"max_queries": 1}}
    answer = client.post("/ask", json=body, headers=auth).json()
    assert len(answer["queries"]) == 1  # the first query runs, then the budget is spent


def test_budget_overrides_lower_the_servers_budget_and_never_raise_it() -> None:
    server = Budget(max_queries=24, max_rows=5_000, max_seconds=20.0, query_timeout_s=10.0)
    asked = BudgetRequest(max_queries=1_000, max_rows=10, max_seconds=2.5)
    assert asked.within(server) == Budget(
        max_queries=24, max_rows=10, max_seconds=2.5, query_timeout_s=10.0
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": ""}, "question"),
        ({"question": "   "}, "question"),
        ({}, "question"),
        ({"question": TARGETS_Q, "budget": {"max_queries": 0}}, "budget.max_queries"),
        ({"question": TARGETS_Q, "budget": {"max_hops": 9}}, "budget.max_hops"),
    ],
    ids=["empty", "blank", "missing", "zero-queries", "unknown-budget-field"],
)
@pytest.mark.parametrize("path", ["/ask", "/ask/stream"])
def test_invalid_question_or_budget_is_422_naming_the_field(
    client: TestClient, auth: dict[str, str], path: str, body: dict, field: str
) -> None:
    response = client.post(path, json=body, headers=auth)
    assert response.status_code == 422
    error = response.json()
    assert error["type"] == "RequestValidationError" and field in error["fields"]
    assert field in error["error"]


def _events(response) -> list[tuple[str, dict]]:
    """(event name, data) pairs of a server-sent event stream."""
    events, name = [], None
    for line in response.iter_lines():
        if line.startswith("event:"):
            name = line.partition(":")[2].strip()
        elif line.startswith("data:"):
            events.append((name, json.loads(line.partition(":")[2])))
    return events


def test_stream_yields_each_step_in_order_and_ends_with_the_answer(
    client: TestClient, auth: dict[str, str]
) -> None:
    body = {"question": TARGETS_Q}
    with client.stream("POST", "/ask/stream", json=body, headers=auth) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = _events(response)
    kinds = [kind for kind, _ in events]
    assert kinds[:2] == ["linking", "plan"] and kinds[-1] == "answer"
    assert set(kinds[2:-1]) <= {"query", "partial"} and "query" in kinds
    answer = Answer.model_validate(events[-1][1])
    assert answer.status == "answered" and PDE5A in [n.id for n in answer.answers]
    assert [q for kind, q in events if kind == "query"] == [q.model_dump() for q in answer.queries]
    _cited_ids_are_in_evidence(answer)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/ask", {"question": TARGETS_Q}),
        ("POST", "/ask/stream", {"question": TARGETS_Q}),
        ("GET", "/search?q=viagra", None),
        ("GET", f"/entities/{VIAGRA}/neighbourhood", None),
    ],
    ids=["ask", "stream", "search", "neighbourhood"],
)
@pytest.mark.parametrize(
    "headers", [{}, {"X-API-Key": "wrong"}, {"X-API-Key": ""}], ids=["none", "wrong", "empty"]
)
def test_protected_routes_are_401_without_the_right_key(
    client: TestClient, method: str, path: str, body: dict | None, headers: dict[str, str]
) -> None:
    response = client.request(method, path, json=body, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "ApiKey"
    assert "X-API-Key" in response.json()["error"]


def test_search_finds_viagra_by_brand_name(client: TestClient, auth: dict[str, str]) -> None:
    response = client.get("/search", params={"q": "viagra", "limit": 5}, headers=auth)
    assert response.status_code == 200
    candidates = response.json()
    assert VIAGRA in [c["id"] for c in candidates] and len(candidates) <= 5
    assert {"id", "label", "name", "score", "rule", "matched"} <= set(candidates[0])


def test_search_limit_is_bounded(client: TestClient, auth: dict[str, str]) -> None:
    response = client.get("/search", params={"q": "viagra", "limit": 500}, headers=auth)
    assert response.status_code == 422 and response.json()["fields"] == ["limit"]


def test_neighbourhood_rows_carry_edge_provenance(client: TestClient, auth: dict[str, str]) -> None:
    response = client.get(
        f"/entities/{VIAGRA}/neighbourhood", params={"types": "TARGETS", "limit": 10}, headers=auth
    )
    assert response.status_code == 200, response.text
    hood = response.json()
    assert hood["entity"]["id"] == VIAGRA
    assert any(g["type"] == "TARGETS" and g["edges"] >= 1 for g in hood["survey"])
    assert hood["rows"] and {r["relation"] for r in hood["rows"]} == {"TARGETS"}
    assert PDE5A in [r["neighbour"]["id"] for r in hood["rows"]]
    for row in hood["rows"]:
        edge = row["edge"]
        assert row["outgoing"] and edge["subject"] == VIAGRA
        assert edge["source"] and edge["source_version"] and edge["source_record"]
    steps = [q["step"] for q in hood["queries"]][:3]
    assert steps == ["neighbourhood:entity", "bridge", "neighbourhood:survey"]


MARFAN_OMIM, MARFAN_ORPHA = "OMIM:154700", "ORPHA:558"  # one disease, bridged by SAME_AS


@pytest.mark.parametrize("limit", [3, 10])
def test_a_bridged_disease_neighbourhood_is_per_record(
    client: TestClient, auth: dict[str, str], limit: int
) -> None:
    response = client.get(
        f"/entities/{MARFAN_OMIM}/neighbourhood", params={"limit": limit}, headers=auth
    )
    assert response.status_code == 200, response.text
    hood = response.json()
    [twin] = hood["twins"]
    assert twin["node"]["id"] == MARFAN_ORPHA and twin["node"]["name"] == "Marfan syndrome"
    assert [(e["subject"], e["type"], e["object"]) for e in twin["bridge"]] in (
        [(MARFAN_OMIM, "SAME_AS", MARFAN_ORPHA)],
        [(MARFAN_ORPHA, "SAME_AS", MARFAN_OMIM)],
    )
    seeds = {MARFAN_OMIM, MARFAN_ORPHA}
    first = hood["rows"][0]  # the edge to the twin comes before the twin's own edges
    assert (first["seed"], first["relation"], first["neighbour"]["id"]) == (
        MARFAN_OMIM,
        "SAME_AS",
        MARFAN_ORPHA,
    )
    for row in hood["rows"]:
        edge, seed, other = row["edge"], row["seed"], row["neighbour"]["id"]
        assert seed in seeds, row
        ends = (
            (edge["subject"], edge["object"])
            if row["outgoing"]
            else (edge["object"], edge["subject"])
        )
        assert ends == (seed, other), row  # the edge is the seed's, in the direction stated
        assert row["neighbour"]["name"], row  # every node a client draws has its name
        assert not (seed == MARFAN_ORPHA and other in seeds)  # a bridge is in twins, not a row
    per_group: dict[tuple[str, str, bool], int] = {}
    for row in hood["rows"]:
        key = (row["seed"], row["relation"], row["outgoing"])
        per_group[key] = per_group.get(key, 0) + 1
    surveyed: dict[tuple[str, str, bool], int] = {}
    for g in hood["survey"]:
        key = (g["seed"], g["type"], g["outgoing"])
        surveyed[key] = surveyed.get(key, 0) + g["edges"]
    own_phenotypes = surveyed[(MARFAN_OMIM, "HAS_PHENOTYPE", True)]
    assert own_phenotypes > 10 and surveyed[(MARFAN_ORPHA, "HAS_PHENOTYPE", True)] > 10
    # each seed has its own limit: the twin's phenotypes do not crowd out the record's own
    assert per_group[(MARFAN_OMIM, "HAS_PHENOTYPE", True)] == limit
    assert per_group[(MARFAN_ORPHA, "HAS_PHENOTYPE", True)] == limit
    for key, edges in surveyed.items():
        if key[0] == MARFAN_OMIM:  # the record's own edges: all of them up to the limit
            assert per_group.get(key, 0) == min(limit, edges), key
        else:
            assert per_group.get(key, 0) <= min(limit, edges), key


def test_neighbourhood_without_types_surveys_every_type(
    client: TestClient, auth: dict[str, str]
) -> None:
    hood = client.get(f"/entities/{VIAGRA}/neighbourhood", headers=auth).json()
    surveyed = {g["type"] for g in hood["survey"]}
    assert {"TARGETS", "INDICATED_FOR"} <= surveyed
    assert {r["relation"] for r in hood["rows"]} == surveyed


@pytest.mark.parametrize(
    ("path", "status", "kind", "says"),
    [
        ("/entities/CHEMBL.COMPOUND:CHEMBL0/neighbourhood", 404, "EntityNotFoundError", "/search"),
        (f"/entities/{VIAGRA}/neighbourhood?types=CURES", 422, "AgentInputError", "CURES"),
    ],
    ids=["unknown-id", "unknown-type"],
)
def test_neighbourhood_errors_map_to_status_and_say_what_to_do(
    client: TestClient, auth: dict[str, str], path: str, status: int, kind: str, says: str
) -> None:
    response = client.get(path, headers=auth)
    assert response.status_code == status
    assert response.json()["type"] == kind and says in response.json()["error"]


def test_health_and_docs_need_no_key(client: TestClient) -> None:
    health = client.get("/health")
    assert health.status_code == 200
    body = health.json()
    assert body["status"] == "ok" and body["engine"] == "arcadedb"
    sources = {v["source"] for v in body["data_versions"]}
    assert {"infores:hpo-annotations", "infores:chembl", "infores:openfda"} <= sources
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/ask", "/ask/stream", "/search", "/entities/{curie}/neighbourhood"} <= set(paths)


def test_app_without_an_agent_connects_its_own_from_settings(
    agent: GraphAgent, settings: Settings
) -> None:
    app = create_app(settings)  # no key: requests are not authenticated
    with TestClient(app, base_url="http://localhost") as own:
        assert app.state.agent is not agent and app.state.agent.researcher is None
        found = own.get("/search", params={"q": "VIAGRA"}).json()
        assert VIAGRA in [c["id"] for c in found]


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (AgentInputError("empty"), 422),
        (UnsafeCypherError("DELETE"), 400),
        (EntityNotFoundError("X:1"), 404),
        (BudgetExceededError("time"), 504),
        (StoreUnavailableError("down"), 503),
        (StoreError("refused"), 502),
        (RecordValidationError("unlisted subclass"), 500),
        (BiokgError("root"), 500),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v),
)
def test_error_classes_map_to_http_status(error: BiokgError, status: int) -> None:
    assert error_status(error) == status


def test_work_past_the_request_timeout_is_a_budget_error() -> None:
    with pytest.raises(BudgetExceededError, match="longer than"):
        anyio.run(lambda: in_thread(lambda: time.sleep(0.5), seconds=0.05))


@pytest.mark.parametrize(
    ("host", "key", "refused"),
    [
        ("127.0.0.1", None, False),
        ("::1", None, False),
        ("localhost", None, False),
        ("0.0.0.0", None, True),
        ("api.example.org", None, True),
        ("0.0.0.0", "k" * 32, False),
    ],
    ids=["ipv4-loopback", "ipv6-loopback", "localhost", "all-interfaces", "hostname", "with-key"],
)
def test_serving_beyond_loopback_needs_a_key(host: str, key: str | None, refused: bool) -> None:
    settings = Settings.from_env({"BIOKG_API_KEY": key} if key else {})
    if refused:
        with pytest.raises(ConfigError, match="BIOKG_API_KEY"):
            check_bind(host, settings)
    else:
        check_bind(host, settings)


def test_serve_command_refuses_open_host_without_key() -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--host", "0.0.0.0"], env={"BIOKG_API_KEY": ""})
    assert result.exit_code == 1 and "BIOKG_API_KEY" in result.output


def test_api_key_is_not_in_the_settings_repr() -> None:
    assert "s3cret" not in repr(Settings.from_env({"BIOKG_API_KEY": "s3cret"}))


def test_entity_card_of_a_known_curie(client: TestClient, auth: dict[str, str]) -> None:
    response = client.get(f"/entities/{VIAGRA}", headers=auth)
    assert response.status_code == 200, response.text
    card = response.json()
    assert card["id"] == VIAGRA and card["label"] == "Drug"
    assert card["category"] == "biolink:Drug"  # the Drug label's category in schema/nodes.yaml
    assert "VIAGRA" in card["synonyms"]  # the brand name openFDA's label gives it
    releases = {s["source"]: s["version"] for s in card["sources"]}
    assert {"infores:chembl", "infores:openfda"} <= set(releases) and all(releases.values())
    assert "embedding" not in card["properties"] and "Viagra" in card["properties"]["brand_names"]


@pytest.mark.parametrize(
    ("curie", "status", "kind", "says"),
    [
        ("CHEMBL.COMPOUND:CHEMBL0", 404, "EntityNotFoundError", "GET /search?q="),
        ("sildenafil", 422, "RequestValidationError", "pattern"),
        (":CHEMBL192", 422, "RequestValidationError", "pattern"),
        ("CHEMBL.COMPOUND: 192", 422, "RequestValidationError", "pattern"),
    ],
    ids=["unknown", "no-prefix", "empty-prefix", "space"],
)
def test_entity_card_errors_say_what_to_do(
    client: TestClient, auth: dict[str, str], curie: str, status: int, kind: str, says: str
) -> None:
    response = client.get(f"/entities/{curie}", headers=auth)
    assert response.status_code == status
    body = response.json()
    assert body["type"] == kind and says in body["error"], body
    if status == 422:
        assert body["fields"] == ["curie"]
    else:
        assert curie in body["error"]


def test_ask_as_turtle_parses_and_holds_the_claims(
    client: TestClient, auth: dict[str, str]
) -> None:
    response = client.post(
        "/ask", params={"format": "turtle"}, json={"question": TARGETS_Q}, headers=auth
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/turtle")
    graph = rdflib.Graph().parse(data=response.text, format="turtle")
    rows = graph.query(
        """PREFIX prov: <http://www.w3.org/ns/prov#>
        PREFIX dcterms: <http://purl.org/dc/terms/>
        PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
        SELECT ?text ?record WHERE {
          ?answer <urn:biokg:vocab#claim> ?claim ; rdfs:label ?question .
          ?claim rdfs:comment ?text ; prov:wasDerivedFrom ?st ; dcterms:references ?gene .
          ?gene dcterms:identifier ?g .
          ?st dcterms:source ?record }""",
        initBindings={"g": rdflib.Literal(PDE5A), "question": rdflib.Literal(TARGETS_Q)},
    )
    [(text, record)] = list(rows)
    answer = Answer.model_validate(
        client.post("/ask", json={"question": TARGETS_Q}, headers=auth).json()
    )
    claim = next(c for c in answer.claims if PDE5A in c.node_ids)
    assert str(text) == claim.text  # the same claim as the JSON answer's
    assert str(record) == claim.sources[0].source_record  # chembl.sqlite#drug_mechanism/...


def test_ask_in_an_unknown_format_is_422(client: TestClient, auth: dict[str, str]) -> None:
    response = client.post(
        "/ask", params={"format": "xml"}, json={"question": TARGETS_Q}, headers=auth
    )
    assert response.status_code == 422 and response.json()["fields"] == ["format"]


@pytest.mark.parametrize(
    ("method", "path", "params", "body", "field"),
    [
        ("GET", "/search", {"q": "a" * (MAX_SEARCH_CHARS + 1)}, None, "q"),
        ("POST", "/ask", None, {"question": "a" * (MAX_QUESTION_CHARS + 1)}, "question"),
        ("POST", "/ask/stream", None, {"question": "a" * (MAX_QUESTION_CHARS + 1)}, "question"),
    ],
    ids=["search", "ask", "stream"],
)
def test_text_longer_than_the_api_takes_is_422_naming_the_field(
    client: TestClient,
    auth: dict[str, str],
    method: str,
    path: str,
    params: dict | None,
    body: dict | None,
    field: str,
) -> None:
    response = client.request(method, path, params=params, json=body, headers=auth)
    assert response.status_code == 422
    error = response.json()
    assert error["fields"] == [field] and "at most" in error["error"], error


def test_the_server_loads_the_question_models_before_its_first_request(
    client: TestClient, agent: GraphAgent
) -> None:
    # the lifespan warmed the agent: the first question's budget is not spent exporting or
    # loading the sentence model (a graph built by a flow has no exported model yet)
    sentences = agent.planner.matcher.embedder
    assert "_session" in vars(sentences) and sentences.path.is_file()
    [vectors] = [s for s in agent.linker.searchers if hasattr(s, "reranker")]
    assert "_session" in vars(vectors.reranker)
