"""Settings of a graph of its own, for tests that must know everything in their graph (conftest's
``own_graph_settings`` and module-scoped fixtures use it), and the test data every graph home
shares."""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
import os
import shutil
import urllib.request
from pathlib import Path

import pytest

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import free_port, start_background, stop_background
from biokg.schema import load_schema

#: Real packaged data fetched once per machine and reused between runs (conftest's
#: ``test_data_cache``): the Debian packages GO is rendered from, and the models made from the
#: packaged all-MiniLM-L6-v2 (the distilled static model, the ONNX export).
TEST_DATA = Path.home() / ".cache" / "biokg" / "test-data"

#: Folders of a home's cache that hold the same files in every home, made on first use: linked
#: to the test data's, so no graph home of a test run distils the static model again (~30 s),
#: exports the ONNX graph again or downloads the Debian packages again. What a home builds or
#: embeds (go-corpus, loads, vectors, lexicon) stays its own.
SHARED_CACHE = ("models", "debian")


def share_test_data(settings: Settings) -> Settings:
    """Link ``settings``' cache folders named in SHARED_CACHE to the test data's; returns
    ``settings``."""
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    for name in SHARED_CACHE:
        (TEST_DATA / name).mkdir(parents=True, exist_ok=True)
        link = settings.cache_dir / name
        if not link.exists():
            link.symlink_to(TEST_DATA / name, target_is_directory=True)
    return settings


def fresh_graph_settings(
    tmp_path_factory: pytest.TempPathFactory, *, started: bool = False
) -> Settings:
    """Settings of an empty graph of its own: a fresh home (sharing the test data); with
    ``started``, a database of its own in the run's :data:`POOL` engine, schema/'s constraints
    and indexes applied; otherwise an engine of its own on free ports, started by the first
    connect or CLI command. The caller gives it back with :func:`release`."""
    if started:
        return POOL.take(tmp_path_factory)
    return _fresh_home(tmp_path_factory, free_port(), free_port())


def release(settings: Settings) -> None:
    """Drop a pooled graph's database, or stop the engine of a graph of its own."""
    if POOL.holds(settings):
        POOL.give_back(settings)
    else:
        stop_background(settings)


def _fresh_home(tmp_path_factory: pytest.TempPathFactory, bolt: int, http: int) -> Settings:
    return share_test_data(
        Settings.from_env(
            {
                "BIOKG_HOME": str(tmp_path_factory.mktemp("biokg-own-home")),
                "BIOKG_BOLT_PORT": str(bolt),
                "BIOKG_HTTP_PORT": str(http),
            }
        )
    )


class GraphPool:
    """One engine whose databases are the run's started graphs of their own, one each.

    A graph of its own used to be an engine of its own: a JVM start (~4 s of CPU) and schema/'s
    DDL on a cold JVM (~3.5 s of CPU), ~50 times a run, and each test's work then ran on a JVM
    that had compiled nothing yet. A database in an engine already running costs ~1 s of CPU.
    Each pooled graph has a home of its own (its caches, downloads, loads) whose
    ``arcadedb/server.json`` names the pool's engine, so the library, the CLI and Prefect's
    processes reach it as they reach any shared engine (``biokg db start``), with
    ``BIOKG_NEO4J_DATABASE`` naming the database (``settings_env``). The engine exits with the
    test process; a test that sets the engine's own limits takes an unstarted graph instead."""

    def __init__(self) -> None:
        self._engine: Settings | None = None
        self._names = itertools.count(1)
        self._held: set[str] = set()

    def take(self, tmp_path_factory: pytest.TempPathFactory) -> Settings:
        engine = self._started(tmp_path_factory)
        name = f"own{next(self._names)}"
        own = dataclasses.replace(
            _fresh_home(tmp_path_factory, engine.bolt_port, engine.http_port), database=name
        )
        self._command(f"create database {name}")
        own.db_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(engine.db_dir / "server.json", own.db_dir / "server.json")
        self._held.add(name)
        with GraphStore.connect(own) as store:
            store.apply_schema(load_schema())
        return own

    def holds(self, settings: Settings) -> bool:
        """Whether ``settings`` name one of the pool's databases (not an engine of its own)."""
        engine = self._engine
        return (
            engine is not None
            and settings.bolt_port == engine.bolt_port
            and (settings.database in self._held)
        )

    def give_back(self, settings: Settings) -> None:
        self._held.discard(settings.database)
        (settings.db_dir / "server.json").unlink(missing_ok=True)
        self._command(f"drop database {settings.database}")

    def _started(self, tmp_path_factory: pytest.TempPathFactory) -> Settings:
        if self._engine is None:
            engine = _fresh_home(tmp_path_factory, free_port(), free_port())
            start_background(engine, owner_pid=os.getpid())
            self._engine = engine
        return self._engine

    def _command(self, command: str) -> None:
        """A server command (create or drop a database) through the engine's HTTP API."""
        assert self._engine is not None
        engine_post(self._engine, "server", {"command": command})


def engine_post(settings: Settings, endpoint: str, payload: dict) -> dict:
    """POST ``payload`` to the embedded engine's HTTP API at ``/api/v1/<endpoint>`` (a server
    command, or an SQL command of a database) as root; returns the JSON reply."""
    token = base64.b64encode(f"root:{settings.embedded_password}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{settings.http_port}/api/v1/{endpoint}",
        data=json.dumps(payload).encode(),
        headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=300) as reply:
        return json.loads(reply.read())


#: The run's pool of started graphs (:func:`fresh_graph_settings` with ``started``).
POOL = GraphPool()
