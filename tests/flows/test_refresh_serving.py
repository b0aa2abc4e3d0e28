"""Serving while refreshing: the agent API answers questions while HPO flips between two
releases, and no answer mixes the two releases' edges (a delta is one transaction)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from own_graph import fresh_graph_settings, release
from upstream import Upstream, hpo_release, publish

from biokg.api.app import create_app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.graph_agent.agent import GraphAgent
from biokg.ingest.refresh import UPDATED, refresh

QUESTION = "Which phenotypes does developmental and epileptic encephalopathy 96 have?"
FLIPS = 6


@pytest.fixture
def serving(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Upstream, Settings, GraphStore]]:
    upstream = Upstream()
    http = upstream.serve()
    own = fresh_graph_settings(tmp_path_factory, started=True)
    settings = Settings.from_env(
        {
            **settings_env(own),
            "BIOKG_HPO_URL": f"{upstream.url}/hpo",
        }
    )
    with GraphStore.connect(settings) as store:
        yield upstream, settings, store
    http.shutdown()
    release(settings)


def test_answers_during_refreshes_hold_one_release_of_the_source(
    serving: tuple[Upstream, Settings, GraphStore],
) -> None:
    upstream, settings, store = serving
    releases = [
        hpo_release(version="2025-01-16"),
        hpo_release(version="2025-03-03", add=True, remove=True, edit=True),
    ]
    edge_sets = []
    for n, files in enumerate(releases):
        publish(upstream, "hpo", files, at=1.7e9 + n)
        refresh(store, settings, ["hpo"], offline=True, sample=True)
        edge_sets.append(_hpo_edges(store))
    agent = GraphAgent.connect(store, settings)
    answers, statuses, done = [], [], threading.Event()

    def flip() -> None:
        try:
            for n in range(FLIPS):
                publish(upstream, "hpo", releases[n % 2], at=1.8e9 + n)
                reports = refresh(store, settings, ["hpo"], offline=True, sample=True, embed=False)
                statuses.append(reports[0].status)
        finally:
            done.set()

    with TestClient(create_app(settings, agent=agent), base_url="http://127.0.0.1") as client:
        worker = threading.Thread(target=flip)
        worker.start()
        while not done.is_set() or len(answers) < 3:
            reply = client.post("/ask", json={"question": QUESTION})
            assert reply.status_code == 200, reply.text
            answers.append(reply.json())
        worker.join()
    assert statuses == [UPDATED] * FLIPS
    for answer in answers:
        cited = {
            (e["id"], tuple(e["properties"].get("evidence", [])))
            for e in answer["evidence"]["edges"]
            if e["source"] == "infores:hpo-annotations"
        }
        assert cited, answer["summary"]
        assert any(cited <= edges for edges in edge_sets), cited - edge_sets[0] - edge_sets[1]


def _hpo_edges(store: GraphStore) -> set[tuple[str, tuple[str, ...]]]:
    """HPO's edges as (id, evidence): what tells its two releases apart."""
    rows = store.read(
        "MATCH ()-[e]->() WHERE e.source = 'infores:hpo-annotations' "
        "RETURN e.id AS id, e.evidence AS evidence"
    )
    return {(r["id"], tuple(r["evidence"] or [])) for r in rows}
