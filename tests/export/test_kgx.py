"""KGX export on the session graph (full HPO, ChEMBL and openFDA samples, MONDO bridges): files
read back and compared with what the graph holds, counted by the engine itself."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.cli.export import source_ids
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import settings_env
from biokg.errors import AgentInputError
from biokg.export.kgx import edge_record, export_kgx, graph_curie, kgx_curie
from biokg.ingest.sources import SOURCES
from biokg.schema import load_schema

#: small sources of the session graph: their export takes a second, not the whole HPO
SMALL = ["chembl", "openfda"]
EDGES_BY_TYPE = """
MATCH (a:Entity)-[r]->(b:Entity) WHERE r.source IN $sources
RETURN type(r) AS type, count(*) AS n"""
TOUCHED = """
MATCH (a:Entity)-[r]->(b:Entity) WHERE r.source IN $sources
UNWIND [a, b] AS n
WITH DISTINCT n
RETURN n.id AS id, [l IN labels(n) WHERE l <> 'Entity'][0] AS label"""
SOURCES_OF = "MATCH (n:Entity) WHERE n.id IN $ids RETURN n.id AS id, n.sources AS sources"
#: HPO annotations that carry a frequency and an onset (phenotype.hpoa columns 8 and 7)
QUALIFIED = """
MATCH (a:Disease)-[r:HAS_PHENOTYPE]->(b:Phenotype)
WHERE r.frequency IS NOT NULL AND r.onset IS NOT NULL
RETURN a.id AS subject, type(r) AS type, b.id AS object, properties(r) AS props
ORDER BY r.id LIMIT 20"""


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def small_export(agent_graph: GraphStore, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("kgx") / "small"
    export_kgx(agent_graph, load_schema(), out, sources=source_ids(SMALL))
    return out


def test_counts_per_predicate_and_category_equal_the_graphs(
    agent_graph: GraphStore, small_export: Path
) -> None:
    schema, infores = load_schema(), source_ids(SMALL)
    edges, nodes = (
        _read_jsonl(small_export / "edges.jsonl"),
        _read_jsonl(small_export / "nodes.jsonl"),
    )
    expected_edges: Counter[str] = Counter()
    for row in agent_graph.read(EDGES_BY_TYPE, {"sources": infores}):
        expected_edges[schema.types[row["type"]].predicate] += row["n"]
    touched = agent_graph.read(TOUCHED, {"sources": infores})
    expected_nodes = Counter(schema.labels[row["label"]].category for row in touched)
    # several predicates, so a mix-up between types would show
    assert len(expected_edges) >= 4 and expected_edges["biolink:has_adverse_event"] > 0
    assert Counter(e["predicate"] for e in edges) == expected_edges
    assert Counter(n["category"][0] for n in nodes) == expected_nodes
    metadata = json.loads((small_export / "graph_metadata.json").read_text())
    assert metadata["edge_count_by_predicate"] == dict(sorted(expected_edges.items()))
    assert metadata["node_count"] == len(touched)


def test_a_one_source_export_holds_exactly_the_nodes_its_edges_touch(
    agent_graph: GraphStore, small_export: Path
) -> None:
    edges, nodes = (
        _read_jsonl(small_export / "edges.jsonl"),
        _read_jsonl(small_export / "nodes.jsonl"),
    )
    ids = [n["id"] for n in nodes]
    assert len(ids) == len(set(ids))  # each node once
    ends = {e["subject"] for e in edges} | {e["object"] for e in edges}
    assert set(ids) == ends
    touched = agent_graph.read(TOUCHED, {"sources": source_ids(SMALL)})
    # the graph's ids, as the files spell them (MedDRA terms by their text %-encoded)
    assert set(ids) == {kgx_curie(row["id"]) for row in touched}


def test_every_edge_carries_its_provenance_and_the_metadata_its_releases(
    agent_graph: GraphStore, small_export: Path
) -> None:
    edges = _read_jsonl(small_export / "edges.jsonl")
    infores = set(source_ids(SMALL))
    for edge in edges:
        assert edge["primary_knowledge_source"] in infores
        assert edge["source_record"] and edge["source_version"] and len(edge["id"]) >= 16
        assert edge["knowledge_level"] and edge["agent_type"]
        assert "license" not in edge and "load_id" not in edge  # once per release, below
    mechanism = [e for e in edges if e["predicate"] == "biolink:directly_physically_interacts_with"]
    assert mechanism and all(e["source_record"].startswith("chembl.sqlite#") for e in mechanism)
    metadata = json.loads((small_export / "graph_metadata.json").read_text())
    listed = {s["infores"]: s for s in metadata["sources"]}
    assert set(listed) == infores
    for name in SMALL:  # the licence each source module declares, the release the graph holds
        info = SOURCES[name].SOURCE
        assert listed[info.infores]["license"] == info.license
        versions = {
            e["source_version"] for e in edges if e["primary_knowledge_source"] == info.infores
        }
        assert versions == {listed[info.infores]["version"]}
    assert sum(s["edge_count"] for s in metadata["sources"]) == len(edges)


def test_hpo_qualifiers_and_evidence_take_their_biolink_slots(agent_graph: GraphStore) -> None:
    rows = agent_graph.read(QUALIFIED)
    assert rows
    for row in rows:
        record, props = edge_record(row, load_schema()), row["props"]
        assert record["predicate"] == "biolink:has_phenotype"
        assert record["frequency_qualifier"] == props["frequency"]
        assert record["onset_qualifier"] == props["onset"]
        assert record["negated"] is props["negated"]
        assert record["has_evidence"] == props["evidence"]
        assert record["primary_knowledge_source"] == "infores:hpo-annotations"
        # HPO's codes: IEA is parsed from OMIM automatically, PCS/TAS are curated
        codes = set(props["evidence"])
        assert record["agent_type"] == ("automated_agent" if codes == {"IEA"} else "manual_agent")
        assert "frequency" not in record and "license" not in record


def test_bridges_are_same_as_edges(agent_graph: GraphStore, tmp_path: Path) -> None:
    [count] = agent_graph.read("MATCH (:Entity)-[r:SAME_AS]->(:Entity) RETURN count(r) AS n")
    report = export_kgx(agent_graph, load_schema(), tmp_path, sources=["infores:mondo"])
    edges = _read_jsonl(tmp_path / "edges.jsonl")
    assert count["n"] > 0 and report.edges == count["n"] == len(edges)
    assert {e["predicate"] for e in edges} == {"biolink:same_as"}
    assert all(e["primary_knowledge_source"] == "infores:mondo" for e in edges)


def test_cli_writes_tsv_with_one_header_and_lists_joined(
    agent_graph: GraphStore, settings: Settings, tmp_path: Path, small_export: Path
) -> None:
    args = ["export", "kgx", "--out", str(tmp_path), "--sources", "chembl", "--format", "tsv"]
    result = CliRunner().invoke(app, args, env=settings_env(settings))
    assert result.exit_code == 0, result.output
    assert "edges/s" in result.output
    with (tmp_path / "edges.tsv").open(encoding="utf-8", newline="") as handle:
        edges = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    with (tmp_path / "nodes.tsv").open(encoding="utf-8", newline="") as handle:
        nodes = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    chembl = [
        e
        for e in _read_jsonl(small_export / "edges.jsonl")
        if e["primary_knowledge_source"] == "infores:chembl"
    ]
    assert sorted(e["id"] for e in edges) == sorted(e["id"] for e in chembl)
    assert {e["subject"] for e in edges} | {e["object"] for e in edges} == {n["id"] for n in nodes}
    # a node's lists (here its sources) joined by "|", categories from schema/
    assert all(n["category"].startswith("biolink:") for n in nodes)
    shared = {n["id"]: n["provided_by"].split("|") for n in nodes if "|" in n["provided_by"]}
    assert shared  # nodes several sources describe (a drug ChEMBL and openFDA both name)
    rows = agent_graph.read(SOURCES_OF, {"ids": sorted(graph_curie(i) for i in shared)})
    assert shared == {kgx_curie(row["id"]): row["sources"] for row in rows}


def test_an_unknown_format_is_refused(agent_graph: GraphStore, tmp_path: Path) -> None:
    with pytest.raises(AgentInputError, match="csv"):
        export_kgx(agent_graph, load_schema(), tmp_path, fmt="csv")  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.fixture(scope="module")
def kgx_python() -> Path:
    """The kgx tool's own environment (``scripts/venv.sh kgx``, built once and cached)."""
    root = Path(__file__).resolve().parents[2]
    made = subprocess.run(
        ["bash", str(root / "scripts" / "venv.sh"), "kgx"], capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr[-2000:]
    return Path(made.stdout.strip()) / "bin" / "python"


def _kgx_errors(kgx_python: Path, *folders: Path) -> dict[str, list[dict[str, Any]]]:
    """kgx's errors per folder, every folder in one process (kgx's import takes seconds)."""
    script = Path(__file__).resolve().parents[1] / "kgx" / "validate.py"
    ran = subprocess.run(
        [str(kgx_python), str(script), *map(str, folders)], capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    return json.loads(ran.stdout)


@pytest.mark.slow
def test_the_kgx_tool_validates_the_export_with_no_error(
    agent_graph: GraphStore, kgx_python: Path, tmp_path: Path
) -> None:
    """kgx's own Validator against Biolink 4.4.6: ChEMBL, openFDA and the MONDO bridges (drugs,
    genes, MedDRA terms, DailyMed labels and sections, ORDO/OMIM diseases, same_as edges), in
    both formats; a copy with a predicate Biolink 4 dropped and an invented category is refused,
    so the check is live."""
    schema, sources = load_schema(), [*source_ids(SMALL), "infores:mondo"]
    jsonl, tsv, broken = tmp_path / "jsonl", tmp_path / "tsv", tmp_path / "broken"
    export_kgx(agent_graph, schema, jsonl, sources=sources)
    export_kgx(agent_graph, schema, tsv, sources=sources, fmt="tsv")
    broken.mkdir()
    # the broken copy: 500 edges and their ends (kgx's time grows with the records), one node
    # with an invented category, one edge with a predicate Biolink 4 dropped
    edges = _read_jsonl(jsonl / "edges.jsonl")[:500]
    ends = {e["subject"] for e in edges} | {e["object"] for e in edges}
    nodes = [n for n in _read_jsonl(jsonl / "nodes.jsonl") if n["id"] in ends]
    nodes[0]["category"], edges[0]["predicate"] = ["biolink:Gizmo"], "biolink:positively_regulates"
    for name, records in (("nodes.jsonl", nodes), ("edges.jsonl", edges)):
        (broken / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    shutil.copy(jsonl / "graph_metadata.json", broken)

    found = _kgx_errors(kgx_python, jsonl, tsv, broken)
    assert found[str(jsonl)] == [] and found[str(tsv)] == []
    refused = {(e["type"], e["records"]) for e in found[str(broken)]}
    assert ("INVALID_EDGE_PREDICATE", 1) in refused
    assert any("Gizmo" in e["message"] for e in found[str(broken)])
