"""Neo4j's Cypher linter (npm ``@neo4j-cypher/language-support``), installed once per machine.

The package is installed with ``npm ci`` from ``tools/cypher-lint/package-lock.json`` into a
cache folder outside the clone, keyed by the lockfile's hash, so a run after the first finds it
installed and a changed lock installs afresh. Node and npm come from the system (/usr/bin).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from biokg.core.files import made_once
from biokg.schema import GraphSchema, load_schema

TOOL = Path(__file__).resolve().parents[2] / "tools" / "cypher-lint"
#: Properties the code writes that schema/ does not declare: the embedding step's vector, text
#: hash and model (ingest/embedding/nodes.py), each load's record on :SourceVersion
#: (ingest/writer.py ``_record_release``, ``SET v += $props``; a refresh adds its upstream marker
#: and report, ingest/refresh.py), read back by status, identity and the agent's data versions,
#: and the flags of terms a release made obsolete (ingest/delta.py).
WRITTEN_OUTSIDE_SCHEMA = (
    *("embedding", "embedding_hash", "embedding_model"),
    *("current", "loaded_at", "checksums", "code", "context", "counts", "identity", "upstream"),
    "refresh",
    "source_facts",  # every source's own values of a node (biokg.ingest.node_facts)
    *("obsolete", "replaced_by", "consider"),
)


@pytest.fixture(scope="session")
def lint_modules() -> Path:
    """The linter's node_modules, installed from the lockfile (once per lockfile, by one
    process at a time: two test runs or workers that find it missing install it once)."""
    lock = (TOOL / "package-lock.json").read_bytes()
    home = Path.home() / ".cache" / "biokg" / f"cypher-lint-{hashlib.sha256(lock).hexdigest()[:16]}"
    done = home / ".complete"

    def install(folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(TOOL / name, folder / name)
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
            check=True,
            capture_output=True,
        )
        done.touch()

    return made_once(home, done.exists, install) / "node_modules"


def lint_schema(schema: GraphSchema) -> dict[str, list[str]]:
    """What the linter may take as existing: schema/'s labels, types and property keys."""
    properties = set(schema.entity) | set(WRITTEN_OUTSIDE_SCHEMA)
    for label in schema.labels:
        properties |= set(schema.node_properties(label))
    for rel_type in schema.types:
        properties |= set(schema.edge_properties(rel_type))
    return {
        "labels": sorted({*schema.labels, "Entity", "SourceVersion"}),
        "relationshipTypes": sorted(schema.types),
        "propertyKeys": sorted(properties),
    }


#: Linter processes run side by side: the linter takes ~0.1 s a statement on one core, whatever
#: the statement, and the test process only waits meanwhile. A pytest-xdist worker runs one: the
#: other workers keep the other cores busy, and each process more costs node's start and the
#: linter's warm-up again (~5 s of CPU, 2026-12-07).
LINT_PROCESSES = 1 if "PYTEST_XDIST_WORKER" in os.environ else max(1, min(4, os.cpu_count() or 1))


@pytest.fixture(scope="session")
def lint(lint_modules: Path) -> Callable[[list[tuple[str, str]]], dict]:
    """Lint ``(name, statement)`` pairs; returns the script's report (see lint.mjs), its
    entries in the order of the statements. The statements are dealt round-robin to
    LINT_PROCESSES runs of the script, whose reports are merged."""

    def run_one(request: dict) -> dict:
        done = subprocess.run(
            ["node", str(TOOL / "lint.mjs"), str(lint_modules)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)

    def run(statements: list[tuple[str, str]]) -> dict:
        schema = lint_schema(load_schema())
        pairs = [{"name": n, "text": t} for n, t in statements]
        requests = [
            {"schema": schema, "statements": pairs[i::LINT_PROCESSES]}
            for i in range(min(LINT_PROCESSES, len(pairs)) or 1)
        ]
        with ThreadPoolExecutor(len(requests)) as pool:
            reports = list(pool.map(run_one, requests))
        order = {n: i for i, (n, _) in enumerate(statements)}
        return {
            "checked": sum(r["checked"] for r in reports),
            **{
                key: sorted((e for r in reports for e in r[key]), key=lambda e: order[e["name"]])
                for key in ("problems", "allowed")
            },
        }

    return run
