"""The refresh flow under real Prefect, on a graph of its own, against a loopback upstream.

HPO and GO publish through :class:`upstream.Upstream` (real formats, real validators). Write
transactions are counted by the engine itself (ArcadeDB's ``writeTx`` profiler counter).
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from own_graph import fresh_graph_settings, release
from typer.testing import CliRunner
from upstream import Upstream, go_release, hpo_release, publish

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.core.store.embedded import settings_env
from biokg.flows.refresh import refresh_flow
from biokg.ingest.delta import snapshot_dir

SOURCES = ["hpo", "go"]
FAST_RETRIES = [0.2, 0.2, 0.2]
HPO, GO = "infores:hpo-annotations", "infores:go"


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    server_side = Upstream()
    server = server_side.serve()
    yield server_side
    server.shutdown()


@pytest.fixture(scope="module")
def mirror_settings(
    tmp_path_factory: pytest.TempPathFactory, upstream: Upstream
) -> Iterator[Settings]:
    """A graph of its own whose HPO and GO mirrors are the loopback upstream."""
    own = fresh_graph_settings(tmp_path_factory, started=True)
    env = {
        **settings_env(own),
        "BIOKG_HPO_URL": f"{upstream.url}/hpo",
        "BIOKG_GO_URL": f"{upstream.url}/go",
    }
    yield Settings.from_env(env)
    release(own)


@pytest.fixture(scope="module")
def go_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("go-release")


@pytest.fixture(scope="module")
def loaded(
    prefect_api: str,
    upstream: Upstream,
    mirror_settings: Settings,
    go_folder: Path,
    test_data_cache: Path,
) -> Iterator[GraphStore]:
    """The first refresh: HPO 2025-01-16 and GO 2022-07-01 loaded whole (no snapshot yet).

    The store is closed before the engine is stopped: an open driver made the engine's stop
    wait out stop_background's 30 s timeout."""
    publish(upstream, "hpo", hpo_release(), at=1.7e9)
    publish(upstream, "go", go_release(test_data_cache, go_folder), at=1.7e9)
    state = run(mirror_settings)
    assert [r["status"] for r in state.result()] == ["reloaded", "reloaded", "reloaded"]
    with GraphStore.connect(mirror_settings) as store:
        yield store


def run(settings: Settings, sources: list[str] = SOURCES):
    return refresh_flow(
        sources=sources,
        offline=True,  # nothing official is asked; the mirrors are
        sample=True,
        embed=False,
        network_retry_delays=FAST_RETRIES,
        settings=settings,
        return_state=True,
    )


def edges(store: GraphStore) -> dict[str, dict]:
    """Every edge with all its properties (and its object's id), by id."""
    rows = store.read("MATCH ()-[e]->(b) RETURN e.id AS id, properties(e) AS props, b.id AS end")
    return {row["id"]: {**row["props"], "object": row["end"]} for row in rows}


def objects(ids: set[str], graph: dict[str, dict], source: str) -> list[str]:
    """The object ids of ``source``'s edges among ``ids``."""
    return sorted(graph[i]["object"] for i in ids if graph[i]["source"] == source)


def by_report(state) -> dict[str, dict]:
    return {row["source"]: row for row in state.result(raise_on_failure=False)}


def test_unchanged_refresh_writes_nothing_and_asks_one_small_request_per_source(
    loaded: GraphStore, upstream: Upstream, mirror_settings: Settings
) -> None:
    before, asked = embedded.write_transactions(mirror_settings), len(upstream.requests)
    state = run(mirror_settings)
    assert embedded.write_transactions(mirror_settings) == before
    report = by_report(state)
    assert {s: r["status"] for s, r in report.items()} == {"hpo": "unchanged", "go": "unchanged"}
    assert all(r["writes"] == 0 for r in report.values())
    # one conditional request per source, answered 304: no file was downloaded
    assert upstream.requests[asked:] == [("/hpo/release.json", 304), ("/go/release-date.json", 304)]


def test_changed_release_writes_exactly_the_changed_records(
    loaded: GraphStore,
    upstream: Upstream,
    mirror_settings: Settings,
    go_folder: Path,
    test_data_cache: Path,
) -> None:
    publish(
        upstream,
        "hpo",
        hpo_release(version="2025-03-03", add=True, remove=True, edit=True),
        at=1.8e9,
    )
    publish(
        upstream,
        "go",
        go_release(test_data_cache, go_folder, date="2022-08-01", add=True, remove=True, edit=True),
        at=1.8e9,
    )
    old = edges(loaded)
    writes = embedded.write_transactions(mirror_settings)
    state = run(mirror_settings)
    new = edges(loaded)
    report = by_report(state)

    added, removed = set(new) - set(old), set(old) - set(new)
    changed = {i for i in set(old) & set(new) if old[i] != new[i]}
    by_source = {
        source: (
            objects(added, new, source),
            objects(removed, old, source),
            objects(changed, new, source),
        )
        for source in (HPO, GO)
    }
    # HPO: DEE 96 gains Seizure (added line), loses HP:0001518 (removed line), and its
    # epileptic spasm edge (HP:0011097) now carries TAS evidence (edited line)
    assert by_source[HPO] == (["HP:0001250"], ["HP:0001518"], ["HP:0011097"])
    assert new[next(i for i in changed if new[i]["object"] == "HP:0011097")]["evidence"] == ["TAS"]
    assert {new[i]["source_version"] for i in changed | added} == {"2025-03-03", "2022-08-01"}
    # GO: one edge each way; every other edge of every source is byte-identical
    assert [len(part) for part in by_source[GO]] == [1, 1, 1]
    assert len(added) == len(removed) == len(changed) == 2
    assert {
        s: (r["status"], r["edges_added"], r["edges_removed"], r["edges_changed"], r["writes"])
        for s, r in report.items()
        if s in SOURCES
    } == {"hpo": ("updated", 1, 1, 1, 1), "go": ("updated", 1, 1, 1, 1)}
    assert (report["hpo"]["version_before"], report["hpo"]["version_after"]) == (
        "2025-01-16",
        "2025-03-03",
    )
    # one transaction per changed source (the bridge's key moved with no edge to change)
    assert embedded.write_transactions(mirror_settings) - writes <= 3
    [current] = loaded.read(
        "MATCH (v:SourceVersion {source: $s, current: true}) RETURN v.refresh AS r", {"s": HPO}
    )
    assert json.loads(current["r"])["edges_added"] == 1
    # the next delta's baseline is this load's snapshot, and only it
    [load_id] = [
        r["l"]
        for r in loaded.read(
            "MATCH (v:SourceVersion {source: $s, current: true}) RETURN v.load_id AS l", {"s": HPO}
        )
    ]
    kept = snapshot_dir(mirror_settings.cache_dir, HPO, load_id)
    assert [p.name for p in kept.parent.iterdir()] == [load_id]


def test_transient_marker_failures_are_retried(
    loaded: GraphStore, upstream: Upstream, mirror_settings: Settings
) -> None:
    upstream.failures["/hpo/release.json"] = [503, 503]
    state = run(mirror_settings)
    assert state.is_completed()
    assert upstream.statuses("/hpo/release.json")[-3:] == [503, 503, 304]
    assert by_report(state)["hpo"]["status"] == "unchanged"


def test_what_retrying_cannot_mend_fails_at_once(
    loaded: GraphStore, upstream: Upstream, mirror_settings: Settings
) -> None:
    """A 404 marker and a host name that does not resolve fail their sources without a retry:
    with a minute between attempts, the run still ends in seconds."""
    upstream.failures["/hpo/release.json"] = [404]
    urls = (("go", "http://biokg-test.invalid/go"), ("hpo", f"{upstream.url}/hpo"))
    start = time.monotonic()
    state = refresh_flow(
        sources=SOURCES,
        offline=True,
        sample=True,
        embed=False,
        network_retry_delays=[60, 60, 60],
        settings=dataclasses.replace(mirror_settings, source_urls=urls),
        return_state=True,
    )
    assert time.monotonic() - start < 60
    report = by_report(state)
    assert state.is_failed() and {r["status"] for r in report.values()} == {"failed"}
    assert "HTTP 404" in report["hpo"]["message"]
    assert "biokg-test.invalid" in report["go"]["message"]
    assert upstream.statuses("/hpo/release.json")[-1] == 404  # asked once, not retried
    assert upstream.failures["/hpo/release.json"] == []


def test_a_bad_file_fails_its_source_only_and_leaves_its_load_as_it_was(
    loaded: GraphStore,
    upstream: Upstream,
    mirror_settings: Settings,
    go_folder: Path,
    test_data_cache: Path,
) -> None:
    old = edges(loaded)
    versions = loaded.read("MATCH (v:SourceVersion) RETURN v.id AS id, v.current AS c ORDER BY id")
    publish(
        upstream,
        "go",
        go_release(test_data_cache, go_folder, date="2022-09-01", broken=True),
        at=1.9e9,
    )
    publish(upstream, "hpo", hpo_release(version="2025-04-04", add=True), at=1.9e9)
    state = run(mirror_settings)
    report = by_report(state)
    assert state.is_failed()
    assert report["go"]["status"] == "failed"
    # the message names the file and line: goa_human.gaf:<line>: expected 17 ... columns
    assert re.search(r"goa_human\.gaf:\d+: expected 17 tab-separated", report["go"]["message"])
    assert report["hpo"]["status"] == "updated"  # the other source still refreshed
    new = edges(loaded)
    assert {i: e for i, e in new.items() if e["source"] == GO} == {
        i: e for i, e in old.items() if e["source"] == GO
    }
    after = loaded.read(
        "MATCH (v:SourceVersion) WHERE v.source <> $s "
        "RETURN v.id AS id, v.current AS c ORDER BY id",
        {"s": HPO},
    )
    assert after == [v for v in versions if not v["id"].startswith(HPO)]


def test_cli_refresh_reports_and_status_history_lists_the_refresh_loads(
    loaded: GraphStore,
    upstream: Upstream,
    mirror_settings: Settings,
    go_folder: Path,
    test_data_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    publish(upstream, "go", go_release(test_data_cache, go_folder, date="2022-10-01"), at=2e9)
    for key, value in {
        **settings_env(mirror_settings),
        "BIOKG_HPO_URL": mirror_settings.source_url("hpo"),
        "BIOKG_GO_URL": mirror_settings.source_url("go"),
    }.items():
        monkeypatch.setenv(key, value)
    runner = CliRunner()
    refreshed = runner.invoke(
        app,
        [
            "refresh",
            "--sources",
            "hpo,go",
            "--offline",
            "--sample",
            "--no-embed",
            "--output",
            "json",
        ],
    )
    assert refreshed.exit_code == 0, refreshed.output
    assert [(r["source"], r["status"]) for r in json.loads(refreshed.output)][:2] == [
        ("hpo", "unchanged"),
        ("go", "updated"),
    ]
    shown = runner.invoke(app, ["status", "--history", "--output", "json"])
    assert shown.exit_code == 0, shown.output
    loads = json.loads(shown.output)
    hpo_loads = [row for row in loads if row["source"] == HPO]
    # the first load (no snapshot: whole) and the later deltas, newest first
    assert hpo_loads[-1]["refresh"]["status"] == "reloaded"
    assert {row["refresh"]["status"] for row in hpo_loads[:-1]} == {"updated"}
    assert [row["current"] for row in hpo_loads].count(True) == 1
