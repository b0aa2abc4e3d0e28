"""KGX round trip on the real engine: the session graph's export (ChEMBL, openFDA and the MONDO
bridges: drugs, MedDRA terms named by their text, DailyMed labels and sections, Orphanet and
OMIM diseases)
loaded into an empty graph of its own, then exported again, gives the same records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import AgentInputError
from biokg.export.kgx import edge_record, export_kgx, graph_curie, kgx_curie
from biokg.kgx_import import edge_row, load_kgx
from biokg.schema import load_schema

#: ChEMBL and openFDA (infores ids from their names) and the bridges
ROUND_TRIP = ["infores:chembl", "infores:openfda", "infores:mondo"]


def _lines(path: Path) -> list[str]:
    return sorted(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize(
    "curie, spelt",
    [
        ("ORPHA:558", "ORDO:Orphanet_558"),  # Marfan syndrome; Biolink names Orphanet ORDO
        ("DAILYMED:0f6e-11/boxed_warning", "DAILYMED:0f6e-11%2Fboxed_warning"),  # a section
        ("MEDDRA.PT:ACUTE KIDNEY INJURY", "MEDDRA.PT:ACUTE%20KIDNEY%20INJURY"),  # a space
        ("MEDDRA.PT:100% FATAL/RARE", "MEDDRA.PT:100%25%20FATAL%2FRARE"),  # % itself encoded
        ("DECIPHER:1", "DECIPHER:1"),  # no Biolink prefix: kept, declared in curie_map
        ("HP:0001166", "HP:0001166"),
    ],
    ids=["orphanet", "label-section", "space", "percent-and-slash", "decipher", "unchanged"],
)
def test_ids_are_spelt_for_kgx_and_back(curie: str, spelt: str) -> None:
    assert kgx_curie(curie) == spelt
    assert graph_curie(spelt) == curie


@pytest.mark.parametrize(
    "rel, direction",
    [("NEGATIVELY_REGULATES", "downregulated"), ("ACTIVATES", "upregulated")],
)
def test_a_direction_biolink_states_as_a_qualifier_is_written_and_not_read_back(
    rel: str, direction: str, tmp_path: Path
) -> None:
    """Biolink 4 has no negatively/positively_regulates: the type's predicate is
    ``biolink:regulates`` plus ``object_direction_qualifier``, which the import leaves out
    again (the type says it)."""
    props = {"id": "e1", "source": "infores:go", "source_version": "2025-01-01"}
    row = {"subject": "GO:0000001", "type": rel, "object": "GO:0000002", "props": props}
    record = edge_record(row, load_schema())
    assert (record["predicate"], record["object_direction_qualifier"]) == (
        "biolink:regulates",
        direction,
    )
    back = edge_row(record, tmp_path / "edges.jsonl", load_schema())
    assert back["props"] == props  # graph names again, and no qualifier stored


def test_kgx_to_graph_to_kgx_is_identical(
    agent_graph: GraphStore, own_graph_settings: Settings, tmp_path: Path
) -> None:
    schema = load_schema()
    first, second = tmp_path / "first", tmp_path / "second"
    exported = export_kgx(agent_graph, schema, first, sources=ROUND_TRIP)
    with GraphStore.connect(own_graph_settings) as fresh:
        loaded = load_kgx(fresh, schema, first)
        again = export_kgx(fresh, schema, second)
    assert (loaded.nodes, loaded.edges) == (exported.nodes, exported.edges)
    assert (again.nodes, again.edges) == (exported.nodes, exported.edges)
    nodes = _lines(first / "nodes.jsonl")
    # the cases the spelling exists for are in the files
    ids = {json.loads(line)["id"].partition(":")[0] for line in nodes}
    assert {"ORDO", "MEDDRA.PT", "DAILYMED", "CHEMBL.COMPOUND"} <= ids
    assert any("%2F" in line for line in nodes)  # label sections: DAILYMED:<set id>/<section>
    assert _lines(second / "nodes.jsonl") == nodes
    assert _lines(second / "edges.jsonl") == _lines(first / "edges.jsonl")
    before, after = (json.loads((d / "graph_metadata.json").read_text()) for d in (first, second))
    for metadata in (before, after):
        del metadata["file_creation_date"]
    assert after == before


def test_loading_a_folder_without_kgx_files_is_refused(
    agent_graph: GraphStore, tmp_path: Path
) -> None:
    with pytest.raises(AgentInputError, match=r"nodes\.jsonl"):
        load_kgx(agent_graph, load_schema(), tmp_path)
