"""The biokg CLI, run in-process against the session's embedded engine (same ports and home)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.ingest.offline.go_corpus import GOSLIM_PLANT, ORG_HS_DB, debian_file, write_gaf

runner = CliRunner()


def test_build_then_status_json_reports_go_counts(
    own_graph_settings: Settings, tmp_path: Path, test_data_cache: Path
) -> None:
    """On a graph of its own: a small source built onto the session graph's full HPO release
    pays for scans of the whole graph, and changes the loads the later tests read."""
    settings = own_graph_settings
    shutil.copy(debian_file(*GOSLIM_PLANT, test_data_cache), tmp_path / "go-basic.obo")
    write_gaf(debian_file(*ORG_HS_DB, test_data_cache), tmp_path / "goa_human.gaf", slice_genes=60)
    built = runner.invoke(
        app,
        ["build", "--sources", "go", "--data-dir", str(tmp_path), "--sample", "--no-embed"],
        env=settings_env(settings),
    )
    assert built.exit_code == 0, built.output
    assert "infores:go" in built.output
    status = runner.invoke(app, ["status", "--output", "json"], env=settings_env(settings))
    assert status.exit_code == 0, status.output
    summary = json.loads(status.output)
    go_edges = {
        r["type"]: r["count"] for r in summary["relationships"] if r["source"] == "infores:go"
    }
    with GraphStore.connect(settings) as store:
        graph = store.read(
            "MATCH ()-[e:ANNOTATED_WITH]->() WHERE e.source = 'infores:go' RETURN count(e) AS n"
        )
    assert go_edges["ANNOTATED_WITH"] == graph[0]["n"] > 0
    assert summary["edges_missing_provenance"] == 0
    current = [v for v in summary["sources"] if v["source"] == "infores:go" and v["current"]]
    assert len(current) == 1 and current[0]["checksums"]["goa_human.gaf"]
    again = ["build", "--sources", "go", "--data-dir", str(tmp_path), "--sample", "--no-embed"]
    skipped = runner.invoke(app, again, env=settings_env(settings))
    assert "skipped (--force reloads)" in skipped.output, skipped.output
    forced = runner.invoke(app, [*again, "--force"], env=settings_env(settings))
    assert forced.exit_code == 0 and "edges written" in forced.output, forced.output
    assert "unchanged inputs and code, skipped" not in forced.output
    assert "disease bridge" in forced.output and "same mappings and diseases" in forced.output


def test_a_second_build_beside_a_running_one_is_refused_naming_it(
    own_graph_settings: Settings, tmp_path: Path, test_data_cache: Path
) -> None:
    """Two builds started at once on one home: the second stops before it writes, naming the
    first (its process, what it builds, the lock); the first completes as if alone."""
    settings = own_graph_settings
    shutil.copy(debian_file(*GOSLIM_PLANT, test_data_cache), tmp_path / "go-basic.obo")
    write_gaf(debian_file(*ORG_HS_DB, test_data_cache), tmp_path / "goa_human.gaf", slice_genes=60)
    build = ["build", "--sources", "go", "--data-dir", str(tmp_path), "--sample", "--no-embed"]
    lock = settings.cache_dir / "lexicon" / "build.lock"
    env = {**os.environ, **settings_env(settings)}
    first = subprocess.Popen(
        [str(Path(sys.executable).with_name("biokg")), *build],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while f'"pid": {first.pid}' not in (lock.read_text() if lock.exists() else ""):
            assert first.poll() is None and time.monotonic() < deadline, "the first never locked"
            time.sleep(0.01)
        second = runner.invoke(app, build, env=settings_env(settings))
        running = first.poll() is None
    finally:
        output, _ = first.communicate(timeout=300)
    assert running, "the first build ended before the second was refused: nothing was tested"
    assert second.exit_code == 1, second.output
    assert f"being written by process {first.pid} (biokg build go" in second.output
    assert str(lock) in second.output.replace("\n", "")
    assert first.returncode == 0, output
    assert "infores:go" in output
    with GraphStore.connect(settings) as store:
        loads = store.read(
            "MATCH (v:SourceVersion {source: 'infores:go'}) RETURN count(v) AS n, "
            "sum(CASE WHEN v.current THEN 1 ELSE 0 END) AS current"
        )
    assert loads == [{"n": 1, "current": 1}]
    # the lock is free once the first is done: the same build runs, and skips the unchanged
    again = runner.invoke(app, build, env=settings_env(settings))
    assert again.exit_code == 0 and "skipped (--force reloads)" in again.output, again.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["build", "--sources", "nosuch"], "unknown source 'nosuch'"),
        (["build", "--sources", "go", "--data-dir", "/nonexistent"], "go-basic.obo"),
    ],
    ids=["unknown-source", "missing-files"],
)
def test_errors_are_one_line_with_exit_code_1(
    settings: Settings, args: list[str], message: str
) -> None:
    result = runner.invoke(app, args, env=settings_env(settings))
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output


def test_resolve_finds_a_drug_by_brand_salt_and_id(own_graph_settings: Settings) -> None:
    # Real ChEMBL ids: sildenafil CHEMBL192, its citrate salt CHEMBL1737. A graph of its own:
    # the session graph's sildenafil (ChEMBL's, with openFDA's brands) is not to be rewritten.
    settings = own_graph_settings
    with GraphStore.connect(settings) as store:
        store.write(
            "MERGE (d:Entity:Drug {id: 'CHEMBL.COMPOUND:CHEMBL192'}) "
            "SET d.name = 'SILDENAFIL', d.brand_names = ['VIAGRA', 'REVATIO'], "
            "d.synonyms = ['SILDENAFIL CITRATE'], d.xrefs = ['CHEMBL.COMPOUND:CHEMBL1737']"
        )
    for text, rule in (
        ("Viagra", "name"),
        ("sildenafil citrate", "name"),
        ("CHEMBL.COMPOUND:CHEMBL1737", "id"),
        ("sildenafil mesylate", "name-salt"),
    ):
        result = runner.invoke(
            app, ["resolve", text, "--output", "json"], env=settings_env(settings)
        )
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == [
            {"id": "CHEMBL.COMPOUND:CHEMBL192", "rule": rule, "matched": text}
        ]
    missing = runner.invoke(app, ["resolve", "zzyzxamab"], env=settings_env(settings))
    assert missing.exit_code == 1 and "no Drug node matches" in missing.output


def test_export_neo4j_admin_merges_drug_identities(settings: Settings, tmp_path: Path) -> None:
    out = tmp_path / "csv"
    result = runner.invoke(
        app,
        ["export", "neo4j-admin", "--out-dir", str(out), "--sources", "openfda,chembl", "--sample"],
        env=settings_env(settings),
    )
    assert result.exit_code == 0, result.output
    assert "neo4j-admin database import full" in result.output
    with open(out / "nodes_Drug.csv", newline="", encoding="utf-8") as handle:
        rows = {row["id:ID(Entity)"]: row for row in csv.DictReader(handle)}
    sildenafil = rows["CHEMBL.COMPOUND:CHEMBL192"]
    assert "VIAGRA" in {b.upper() for b in sildenafil["brand_names:string[]"].split("\x1f")}
    assert "UNII:BW9B0ZE037" in sildenafil["xrefs:string[]"].split("\x1f")
    assert "UNII:BW9B0ZE037" not in rows  # merged, not a second node
