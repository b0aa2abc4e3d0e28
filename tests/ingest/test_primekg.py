"""PrimeKG on its real rows (the shared 7,716-row kg.csv sample): counts after collapsing mirror
copies equal a plain-Python count of the file, every edge is stored once in one direction with a
valid CURIE at each end, parent-child rows become IS_A child → parent as MONDO itself says, and bad
files fail naming file and line with the graph unchanged."""

from __future__ import annotations

import csv
import importlib.metadata
import io
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import bioregistry
import polars as pl
import pytest
import zstandard
from graph_state import snapshot
from offline_read import shared_sample

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import SourceFormatError
from biokg.ingest.build import build
from biokg.ingest.records import Records, Release
from biokg.ingest.sources import primekg
from biokg.schema import load_schema

SHARED = shared_sample("primekg")
SAMPLE = SHARED[primekg.KG_FILE]


@pytest.fixture(scope="module")
def records(test_data_cache: Path) -> Records:
    fetched = primekg.fetch(test_data_cache, shared=SHARED)
    release = Release("infores:primekg", fetched.version, "cc0", fetched.checksums)
    return primekg.normalize(primekg.parse(fetched), release=release)


def _raw_rows() -> list[dict[str, str]]:
    with open(SAMPLE, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_edges_per_type_equal_an_independent_count_of_unordered_pairs(records: Records) -> None:
    pairs: dict[str, set] = {}
    for row in _raw_rows():
        ends = frozenset({(row["x_source"], row["x_id"]), (row["y_source"], row["y_id"])})
        pairs.setdefault(row["relation"], set()).add((row["display_relation"], ends))
    expected: Counter = Counter()
    for relation, found in pairs.items():
        expected[primekg.RELATIONS[relation].type] += len(found)
    assert {t: f.height for t, f in records.edges.items()} == dict(expected)
    # the sample lists every edge twice: 7,716 rows, 3,858 edges
    assert sum(expected.values()) * 2 == len(_raw_rows()) == 7_716
    negated = records.edges["HAS_PHENOTYPE"].filter(pl.col("negated")).height
    assert negated == len(pairs["disease_phenotype_negative"])


def test_no_edge_is_stored_in_both_directions(records: Records) -> None:
    for rel_type, frame in records.edges.items():
        forward = set(zip(frame["subject"], frame["object"], strict=True))
        assert not {(o, s) for s, o in forward} & forward, rel_type


def test_every_curie_is_valid_for_its_prefix(records: Records) -> None:
    keys = load_schema().prefixes  # prefix → bioregistry key
    frames = [*records.nodes.values(), *records.stubs.values()]
    ids = pl.concat([f.select("id") for f in frames])["id"].to_list()
    assert len(ids) > 2_000
    for curie in ids:
        prefix, local = curie.split(":", 1)
        assert re.fullmatch(bioregistry.get_pattern(keys[prefix]), local), curie


def test_relations_are_oriented_drug_to_disease_and_child_to_parent(records: Records) -> None:
    for rel_type in ("INDICATED_FOR", "CONTRAINDICATED_FOR", "OFF_LABEL_USE_FOR"):
        frame = records.edges[rel_type]
        assert frame["subject"].str.starts_with("DRUGBANK:").all(), rel_type
        assert frame["object_label"].eq("Disease").all(), rel_type
    assert records.edges["ASSOCIATED_WITH"]["subject_label"].eq("Gene").all()
    # IS_A between MONDO terms (not groups): MONDO's own hierarchy never has them the other way
    ancestors = _mondo_ancestors()
    groups = records.nodes["Disease"].filter(pl.col("xrefs").list.len() > 0)["id"].implode()
    is_a = records.edges["IS_A"].filter(
        (pl.col("subject_label") == "Disease")
        & ~pl.col("subject").is_in(groups)
        & ~pl.col("object").is_in(groups)
    )
    agree = reversed_ = 0  # MONDO has moved on since PrimeKG's build: some pairs are neither
    for child, parent in zip(is_a["subject"], is_a["object"], strict=True):
        agree += parent in ancestors.get(child, ())
        reversed_ += child in ancestors.get(parent, ())
    assert agree > 50 and reversed_ == 0


def _mondo_ancestors() -> dict[str, set[str]]:
    dist = importlib.metadata.distribution("cellxgene-ontology-guide")
    name = sorted(str(f) for f in dist.files or () if "MONDO-ontology" in str(f))[-1]
    with open(str(dist.locate_file(name)), "rb") as raw:
        terms = json.loads(zstandard.ZstdDecompressor().stream_reader(raw).read())
    return {k: set(v.get("ancestors") or ()) for k, v in terms.items()}


def test_each_edge_cites_the_row_it_was_read_from(records: Records) -> None:
    rows = _raw_rows()
    frame = records.edges["INDICATED_FOR"]
    for record, subject in zip(frame["source_record"], frame["subject"], strict=True):
        position = int(record.removeprefix("kg.csv#"))
        row = rows[position]
        assert row["relation"] == "indication"
        assert f"DRUGBANK:{row['x_id']}" == subject or f"DRUGBANK:{row['y_id']}" == subject


def test_grouped_diseases_are_one_node_with_their_members_as_xrefs(records: Records) -> None:
    raw = {r["x_id"]: r["x_name"] for r in _raw_rows() if r["x_source"] == "MONDO_grouped"}
    group, name = next(iter(raw.items()))
    members = [f"MONDO:{int(m):07d}" for m in group.split("_")]
    node = records.nodes["Disease"].filter(pl.col("id") == members[0]).row(0, named=True)
    assert node["name"] == name
    assert set(node["xrefs"]) == set(members[1:])


def _missing_column(folder: Path) -> str:
    path = folder / "kg.csv"
    path.write_text(path.read_text().replace("x_source", "x_src", 1))
    return "kg.csv:1"


def _unknown_source(folder: Path) -> str:
    path = folder / "kg.csv"
    lines = path.read_text().splitlines(keepends=True)
    fields = next(csv.reader([lines[41]]))
    fields[6] = "DrugBnk"  # x_source
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(fields)
    lines[41] = out.getvalue()
    path.write_text("".join(lines))
    return "kg.csv:42"


def _truncated(folder: Path) -> str:
    path = folder / "kg.csv"
    text = path.read_text()
    path.write_text(text[: len(text) - 30])
    return f"kg.csv:{text.count(chr(10))}"


@pytest.mark.parametrize(
    "corrupt",
    [_missing_column, _unknown_source, _truncated],
    ids=["missing-column", "unknown-x-source", "truncated-last-line"],
)
def test_bad_kg_csv_names_file_and_line_and_changes_nothing(
    store: GraphStore, settings: Settings, tmp_path: Path, corrupt
) -> None:
    folder = tmp_path / "primekg"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "kg.csv")
    shutil.copy(SHARED[primekg.DRUG_MAP_FILE], folder / primekg.DRUG_MAP_FILE)
    where = corrupt(folder)
    before = snapshot(store)
    with pytest.raises(SourceFormatError) as info:
        build(store, settings, ("primekg",), data_dir=folder, sample=True)
    assert where in str(info.value)
    assert snapshot(store) == before
