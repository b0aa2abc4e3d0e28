"""The lexicon cache on the real engine: one builder at a time, and questions asked while the
graph is written read the lexicon of the graph as it was."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from biokg import cypher
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.graph_agent.lexicon import Lexicon, LexiconBuild, graph_digest
from biokg.graph_agent.lexicon_build import LEXICON_FORMAT, file_name, lexicon_rows
from biokg.schema import load_schema

#: A load of a source no build writes: the graph state changes while it is current.
EXTRA_LOAD = {"id": "test-lexicon-cache:1", "source": "test-lexicon-cache", "load_id": "load-1"}


@pytest.fixture
def another_state(agent_graph: GraphStore) -> Iterator[None]:
    """The agent graph with one more current source load, as a refresh leaves it; undone."""
    yield agent_graph.write(
        "CREATE (:SourceVersion {id: $id, source: $source, load_id: $load_id, current: true})",
        EXTRA_LOAD,
    )
    agent_graph.write("MATCH (v:SourceVersion {id: $id}) DELETE v", {"id": EXTRA_LOAD["id"]})


def _digest(store: GraphStore) -> str:
    return graph_digest(store.read(cypher.load("agent_data_versions")))


def _cached(cache: Path) -> list[str]:
    return sorted(p.name for p in (cache / "lexicon").iterdir() if p.name != "build.lock")


def test_a_question_asked_while_the_graph_is_written_reads_the_earlier_lexicon(
    agent_graph: GraphStore, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    before = Lexicon.load(agent_graph, tmp_path)  # a cache's first lexicon: built by who asks
    assert before.digest == _digest(agent_graph)
    [first] = _cached(tmp_path)
    with LexiconBuild(tmp_path) as writing:  # what `biokg build` and `biokg refresh` hold
        request.getfixturevalue("another_state")  # the graph changes while it is held
        changed = _digest(agent_graph)
        assert changed != before.digest
        during = Lexicon.load(agent_graph, tmp_path)
        assert during.digest == before.digest  # the earlier state's, and none built
        assert _cached(tmp_path) == [first]
        assert len(during.nodes) == len(before.nodes) > 0
        after = writing.lexicon(agent_graph)  # the writer builds the new state's, once
    assert after.digest == changed
    assert _cached(tmp_path) == [f"lexicon-{LEXICON_FORMAT}-{changed}.sqlite"]
    assert Lexicon.load(agent_graph, tmp_path).digest == changed  # read, not built again


def _keys(lexicon: Lexicon) -> list[tuple]:
    return lexicon._db.execute("SELECT key, id, rule, text FROM keys ORDER BY rowid").fetchall()


def _cached_as_the_sessions(store: GraphStore, settings: Settings, cache: Path) -> Lexicon:
    """The current state's lexicon in ``cache``: the session cache's file, copied (built there
    once for the agent's tests), not built a second time."""
    session = Lexicon.load(store, settings.cache_dir)
    (cache / "lexicon").mkdir()
    shutil.copy(settings.cache_dir / "lexicon" / file_name(session.digest), cache / "lexicon")
    return Lexicon.load(store, cache)


def test_a_new_state_with_the_same_names_takes_the_earlier_lexicon_as_it_is(
    agent_graph: GraphStore,
    settings: Settings,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # a refresh that changed edges and no name leaves the names a lexicon is read from as
    # they were: the new state's file is the earlier one's, not built again
    before = _cached_as_the_sessions(agent_graph, settings, tmp_path)
    assert before.digest == _digest(agent_graph)
    request.getfixturevalue("another_state")
    with caplog.at_level(logging.INFO, logger="biokg.graph_agent.lexicon_build"):
        with LexiconBuild(tmp_path) as writing:
            same = writing.lexicon(agent_graph)
    assert same.digest != before.digest
    assert "reused" in caplog.text
    assert _keys(same) == _keys(before)
    # a name more: the next state's lexicon is built, and holds it
    node = {"id": "HP:9999990", "name": "Lexicon cache test phenotype"}
    agent_graph.write("CREATE (:Entity:Phenotype {id: $id, name: $name})", node)
    try:
        agent_graph.write(
            "MATCH (v:SourceVersion {id: $id}) SET v.load_id = 'load-2'", {"id": EXTRA_LOAD["id"]}
        )
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="biokg.graph_agent.lexicon_build"):
            with LexiconBuild(tmp_path) as writing:
                renamed = writing.lexicon(agent_graph)
        assert "reused" not in caplog.text
        assert [e.id for e in renamed.by_key["lexicon cache test phenotype"]] == [node["id"]]
    finally:
        agent_graph.write("MATCH (n:Phenotype {id: $id}) DETACH DELETE n", node)


def test_the_lexicon_builder_removes_partial_files_of_dead_builders_only(
    agent_graph: GraphStore, tmp_path: Path
) -> None:
    folder = tmp_path / "lexicon"
    folder.mkdir()
    dead = subprocess.Popen(["true"])  # a process id that no process holds once it ended
    dead.wait()
    killed = folder / f"lexicon-0-abc.sqlite.{dead.pid}.part"
    killed_journal = folder / f"lexicon-0-abc.sqlite.{dead.pid}.part-journal"
    live = folder / f"lexicon-0-def.sqlite.{os.getpid()}.part"
    older_format = folder / "0123456789abcdef.sqlite"
    for path in (killed, killed_journal, live, older_format):
        path.write_bytes(b"partial")
    with LexiconBuild(tmp_path) as build:
        lexicon = build.lexicon(agent_graph)
    assert _cached(tmp_path) == sorted(
        [live.name, f"lexicon-{LEXICON_FORMAT}-{lexicon.digest}.sqlite"]
    )


def test_the_embedded_engines_sql_road_reads_the_rows_the_lexicons_cypher_gives(
    agent_graph: GraphStore,
) -> None:
    """A lexicon is built from the embedded engine's paged SQL scan: the same rows, each once,
    as cypher/agent_lexicon.cypher (which every engine answers), unnamed labels left out."""
    assert agent_graph.http_api  # the embedded engine: lexicon_rows takes the SQL road
    unnamed = [label for label, spec in load_schema().labels.items() if not spec.named]
    by_sql = lexicon_rows(agent_graph, unnamed)
    by_cypher = agent_graph.read(cypher.load("agent_lexicon"), {"unnamed": unnamed})
    assert len(by_sql) > 10_000
    assert not {row["label"] for row in by_sql} & set(unnamed)
    written = [
        sorted(json.dumps(row, sort_keys=True) for row in rows) for rows in (by_sql, by_cypher)
    ]
    assert written[0] == written[1]
