"""The Cypher gate: static checks (no engine), then EXPLAIN and the rolled-back run on the real
embedded engine. Every refusal must name what it refused (STYLE §8.5)."""

from __future__ import annotations

import pytest

from biokg.core.store import GraphStore
from biokg.core.store.dialect import ARCADEDB, NEO4J
from biokg.errors import StoreError, UnsafeCypherError
from biokg.graph_agent.gate import CypherGate
from biokg.graph_agent.runner import QueryRunner

GATE = CypherGate()
NODE = "{id: n.id, label: [l IN labels(n) WHERE l <> 'Entity'][0], name: n.name}"


@pytest.mark.parametrize(
    ("query", "params", "expected", "note"),
    [
        pytest.param(
            "MATCH (n:Drug) RETURN n.id",
            {},
            "MATCH (n:Drug) RETURN n.id LIMIT 200",
            "LIMIT 200 appended",
            id="limit-appended",
        ),
        pytest.param(
            "MATCH (n:Drug) RETURN n.id LIMIT 5000",
            {},
            "MATCH (n:Drug) RETURN n.id LIMIT 200",
            "LIMIT 5000 lowered to 200",
            id="limit-lowered",
        ),
        pytest.param(
            "MATCH (n:Drug) RETURN n.id LIMIT 7",
            {},
            "MATCH (n:Drug) RETURN n.id LIMIT 7",
            None,
            id="limit-kept",
        ),
        pytest.param(
            "MATCH (n:Drug) // all drugs; CREATE in a comment is not code\nRETURN n.id;",
            {},
            "MATCH (n:Drug)  \nRETURN n.id LIMIT 200",
            "LIMIT 200 appended",
            id="comment-dropped-semicolon-trimmed",
        ),
        pytest.param(
            "MATCH (n) WHERE n.name = 'CREATE (x) // DELETE' RETURN n.id",
            {},
            "MATCH (n) WHERE n.name = 'CREATE (x) // DELETE' RETURN n.id LIMIT 200",
            "LIMIT 200 appended",
            id="keywords-inside-a-string-are-data",
        ),
        pytest.param(
            "MATCH (d:Drug) RETURN d.id AS id UNION MATCH (g:Gene) RETURN g.id AS id LIMIT 3",
            {},
            "MATCH (d:Drug) RETURN d.id AS id LIMIT 200 UNION MATCH (g:Gene) RETURN g.id AS id "
            "LIMIT 3",
            "LIMIT 200 appended",
            id="each-union-part-bounded",
        ),
        pytest.param(
            "MATCH (d:Drug) CALL { WITH d MATCH (d)--(x) RETURN count(x) AS k LIMIT 999 } "
            "RETURN d.id, k ORDER BY k DESC",
            {},
            "MATCH (d:Drug) CALL { WITH d MATCH (d)--(x) RETURN count(x) AS k LIMIT 999 } "
            "RETURN d.id, k ORDER BY k DESC LIMIT 200",
            "LIMIT 200 appended",
            id="subquery-limit-is-not-the-final-one",
        ),
        pytest.param(
            "MATCH p = shortestPath((a:Entity {id: $a})-[*..4]-(b:Entity {id: $b})) RETURN p",
            {"a": "x", "b": "y"},
            "MATCH p = shortestPath((a:Entity {id: $a})-[*..4]-(b:Entity {id: $b})) RETURN p "
            "LIMIT 200",
            "LIMIT 200 appended",
            id="bounded-shortest-path",
        ),
    ],
)
def test_accepted_queries_run_as_checked(query, params, expected, note):
    gated = GATE.check(query, params)
    assert gated.text == expected
    assert (note in gated.notes) if note else not gated.notes


def test_limit_parameter_above_the_cap_is_lowered():
    gated = GATE.check("MATCH (n:Drug) RETURN n.id LIMIT $k", {"k": 10_000})
    assert gated.params["k"] == 200
    assert gated.text.endswith("LIMIT $k")


def test_handles_fill_parameters_and_an_unknown_one_is_named():
    gated = GATE.check("MATCH (n) WHERE n.id IN $h1 RETURN n.id", {}, {"h1": ["HP:1", "HP:2"]})
    assert gated.params == {"h1": ["HP:1", "HP:2"]}
    with pytest.raises(UnsafeCypherError, match=r"\$h9.*handles: h1"):
        GATE.check("MATCH (n) WHERE n.id IN $h9 RETURN n.id", {}, {"h1": ["HP:1"]})


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("CREATE (n:Entity {id: 'x'}) RETURN n", "CREATE"),
        ("MATCH (n) SeT n.x = 1 RETURN n", "SET"),
        ("MATCH (n) CALL { WITH n DELETE n } RETURN 1", "DELETE"),
        ("MATCH (n) RETURN n.id; MATCH (m) RETURN m", "more than one statement"),
        ("MATCH (n)-[*]-(m) RETURN m", "upper bound"),
        ("MATCH (n)-[*3..]-(m) RETURN m", "upper bound"),
        ("MATCH (n)-[:IS_A*1..5]->(m) RETURN m", "at most 4 hops"),
        ("MATCH ((a)-->(b)){1,3} RETURN b", "quantified path pattern"),
        ("MATCH (a)-[:IS_A]->+(b) RETURN b", "quantified path pattern"),
        ("CALL dbms.components() YIELD name RETURN name", "dbms.components"),
        ("CALL `apoc.create.node`(['X'], {}) YIELD node RETURN node", "apoc.create.node"),
        ("RETURN apoc.text.join(['a'], 'b') AS x", "apoc.text.join"),
        ("MATCH (n) RETURN 'a\\' CREATE (:X) //' AS s", "backslash-escaped quote"),
        ("MATCH (n) RETURN n.id /* open", "unterminated /* comment"),
        ("MATCH (n) RETURN 'open", "unterminated string"),
        ("СREATE (n) RETURN n", "U+0421"),  # Cyrillic С
        ("MATCH (n) RETURN n\u200b", "U+200B"),
        ("MATCH (n) RETURN n.id LIMIT toInteger('5')", "LIMIT must be"),
        ("MATCH (n) RETURN n.id LIMIT $k", "LIMIT $k"),
        ("MATCH (n) WITH n LIMIT 3", "no top-level RETURN"),
        ("PROFILE MATCH (n) RETURN n", "PROFILE"),
        ("", "empty"),
    ],
)
def test_refusals_name_what_they_refused(query, reason):
    with pytest.raises(UnsafeCypherError) as err:
        GATE.check(query, {"k": "ten"})
    assert reason in str(err.value)


CARTESIAN = "MATCH (a:Phenotype),(b:Drug) WHERE a.name < b.name RETURN count(*)"


@pytest.mark.parametrize(
    "query",
    [
        pytest.param(CARTESIAN, id="comma-parts"),  # the 25 s read of issue 25
        pytest.param(
            "MATCH (a:Phenotype) MATCH (b:Drug) WHERE a.name < b.name RETURN count(*)",
            id="two-match-clauses",
        ),
        pytest.param("MATCH (a:Phenotype) WITH a MATCH (b:Drug) RETURN count(*)", id="via-with"),
        pytest.param("MATCH (:Phenotype), (:Drug) RETURN count(*)", id="anonymous-nodes"),
        pytest.param(
            "MATCH (a:Phenotype)--(c), (b:Drug)--(e) WHERE c.id < e.id RETURN count(*)",
            id="two-paths",
        ),
    ],
)
def test_disconnected_patterns_are_refused_and_named(query):
    with pytest.raises(UnsafeCypherError, match="cartesian product") as err:
        GATE.check(query)
    assert "share no variable" in str(err.value) and "Drug" in str(err.value)


@pytest.mark.parametrize(
    "query",
    [
        pytest.param(
            "MATCH (a:Drug {id: $a}), (b:Disease {id: $b}) "
            "MATCH p = shortestPath((a)-[*..4]-(b)) RETURN p",
            id="anchored-by-map",
        ),
        pytest.param("MATCH (a:Drug), (b:Gene) WHERE a.id = $a RETURN a, b", id="anchored-where"),
        pytest.param("UNWIND $ids AS x MATCH (n:Gene) WHERE n.id = x RETURN n", id="unwind"),
        pytest.param(
            "CALL db.index.fulltext.queryNodes('Drug[name]', $q) YIELD node "
            "MATCH (node)-[r]-(m) MATCH (m)--(k) RETURN k",
            id="yield",
        ),
        pytest.param(
            "MATCH (d:Drug) CALL { WITH d MATCH (d)--(x) RETURN count(x) AS k } RETURN d.id, k",
            id="subquery-shares-d",
        ),
        pytest.param(
            "MATCH (d:Drug) RETURN d.id AS id UNION MATCH (g:Gene) RETURN g.id AS id",
            id="union-parts-apart",
        ),
        pytest.param("MATCH (a)<-[:HAS_PHENOTYPE]-(d), (d)--(e) RETURN e", id="shared-var"),
    ],
)
def test_connected_or_anchored_patterns_pass(query):
    GATE.check(query, {"a": "x", "b": "y", "ids": [], "q": "x"})


def test_fullwidth_keyword_is_normalised_then_refused():
    with pytest.raises(UnsafeCypherError, match="CREATE"):
        GATE.check("ＣＲＥＡＴＥ (n) RETURN n")


def test_neo4j_plan_must_be_a_read():
    assert NEO4J.plan_writes("r", None) == []
    assert "'rw'" in NEO4J.plan_writes("rw", None)[0]
    assert NEO4J.plan_writes("s", None)


def test_arcadedb_explain_is_read_from_the_plan(agent_graph: GraphStore):
    assert agent_graph.dialect is ARCADEDB
    before = agent_graph.read("MATCH (n:Gene {id: 'gate-test'}) RETURN count(n) AS c")
    assert agent_graph.explain(f"MATCH (n:Drug) RETURN {NODE} AS node LIMIT 3") == []
    writes = agent_graph.explain("CREATE (n:Entity:Gene {id: 'gate-test'}) RETURN n.id")
    assert writes and "CREATE" in writes[0]
    assert agent_graph.explain("MATCH (n:Drug) SET n.gate_test = 1 RETURN n.id")
    # EXPLAIN planned, nothing ran
    assert agent_graph.read("MATCH (n:Gene {id: 'gate-test'}) RETURN count(n) AS c") == before
    with pytest.raises(StoreError, match="SYNTAX"):
        agent_graph.explain("MATCH (n) RETURN n SYNTAX ERROR")


def test_rolled_back_run_catches_a_write_that_got_past_the_gate(agent_graph: GraphStore):
    """The safety net under the gate: bypass the gate on purpose and write."""
    runner = QueryRunner(agent_graph)
    with pytest.raises(UnsafeCypherError, match="rolled back"):
        runner.run(
            "CREATE (n:Entity:Gene {id: 'gate-test'}) RETURN n.id AS id",
            {},
            step="test",
            rollback=True,
        )
    assert agent_graph.read("MATCH (n:Entity {id: 'gate-test'}) RETURN count(n) AS c")[0]["c"] == 0
    assert runner.log[-1].error and "rolled back" in runner.log[-1].error


def test_gate_runs_reads_and_logs_refusals(agent_graph: GraphStore):
    runner = QueryRunner(agent_graph)
    gated, rows = GATE.run(
        runner,
        f"MATCH (n:Drug)-[r:TARGETS]->(g:Gene) WHERE n.id = $id RETURN {NODE} AS node",
        {"id": "CHEMBL.COMPOUND:CHEMBL192"},  # sildenafil
    )
    assert rows and rows[0]["node"]["name"] == "SILDENAFIL"
    assert runner.log[-1].cypher == gated.text and runner.log[-1].error is None
    with pytest.raises(UnsafeCypherError):
        GATE.run(runner, "MATCH (n) DETACH DELETE n")
    assert runner.log[-1].error.startswith("refused: not read-only: DETACH")
    assert runner.log[-1].rows == 0
    with pytest.raises(StoreError):
        GATE.run(runner, "MATCH (n) RETURN n SYNTAX ERROR")
    assert "could not plan it (EXPLAIN)" in runner.log[-1].error


def test_bounded_variable_length_path_runs(agent_graph: GraphStore):
    runner = QueryRunner(agent_graph)
    _, rows = GATE.run(
        runner,
        "MATCH (p:Phenotype {id: 'HP:0001250'})-[:IS_A*1..2]->(a:Phenotype) "
        "RETURN DISTINCT a.id AS id",
    )
    assert {r["id"] for r in rows} >= {
        "HP:0012638"
    }  # Seizure is_a Abnormal nervous system physiology
