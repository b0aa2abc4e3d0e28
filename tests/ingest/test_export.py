"""neo4j-admin CSV export: quote-safe round trip and the import command it implies."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl

from biokg.export.neo4j_admin import ARRAY_DELIMITER, merge_records, write_neo4j_admin_csv
from biokg.ingest.records import Records
from biokg.schema import load_schema

TRICKY = ["Crohn's disease", "3',5'-cyclic AMP", 'a "quoted", comma name', "two\nlines"]


def _records() -> Records:
    nodes = pl.DataFrame(
        {
            "id": ["MONDO:0005011", "MONDO:0000001", "MONDO:0000002", "MONDO:0000003"],
            "name": TRICKY,
            "synonyms": [["regional enteritis; ileitis", "Crohn's"], [], ["x"], ["y"]],
        },
        schema={"id": pl.String, "name": pl.String, "synonyms": pl.List(pl.String)},
    )
    edges = pl.DataFrame(
        {
            "id": ["e1"],
            "subject": ["MONDO:0005011"],
            "object": ["MONDO:0000001"],
            "subject_label": ["Disease"],
            "object_label": ["Disease"],
            "source": ["infores:x"],
            "source_version": ["1"],
            "source_record": ["f#L1"],
            "retrieved_at": ["2026-11-21"],
            "license": ["CC0"],
            "evidence": [["TAS"]],
        },
    )
    return Records(nodes={"Disease": nodes}, edges={"IS_A": edges})


def test_tricky_names_and_arrays_survive_the_round_trip(tmp_path: Path) -> None:
    command = write_neo4j_admin_csv(_records(), load_schema(), tmp_path)
    with open(tmp_path / "nodes_Disease.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["id:ID(Entity)", "name:string", "synonyms:string[]", ":LABEL"]
    assert [r[1] for r in rows[1:]] == TRICKY
    assert rows[1][2].split(ARRAY_DELIMITER) == ["regional enteritis; ileitis", "Crohn's"]
    assert rows[1][3] == "Entity;Disease"
    with open(tmp_path / "relationships_IS_A.csv", newline="", encoding="utf-8") as handle:
        header, row = list(csv.reader(handle))
    assert header[1:3] == [":START_ID(Entity)", ":END_ID(Entity)"] and header[-1] == ":TYPE"
    assert row[1:3] == ["MONDO:0005011", "MONDO:0000001"] and row[-1] == "IS_A"
    assert "neo4j-admin database import full" in command
    assert "--multiline-fields=true" in command and "--array-delimiter=U+001F" in command
    assert (
        "--nodes=nodes_Disease.csv" in command
        and "--relationships=relationships_IS_A.csv" in command
    )


def test_merging_sources_keeps_one_row_per_node_and_folds_stubs() -> None:
    first = _records()
    stub = pl.DataFrame({"id": ["MONDO:0005011", "MONDO:0000009"]})
    second = Records(stubs={"Disease": stub})
    merged = merge_records([first, second])
    ids = merged.nodes["Disease"]["id"].to_list()
    assert sorted(ids) == sorted({*first.nodes["Disease"]["id"].to_list(), "MONDO:0000009"})
    assert merged.stubs == {}
