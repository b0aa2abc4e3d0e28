"""A refresh reloads a later drug source only when the Drug identity rows it merges onto change
(issue 23: "a 1% change refreshed in time proportional to the change"; decision 0015).

On the embedded engine, with real offline files (the offline ChEMBL SQLite, the shared PrimeKG
sample and DrugBank map, openFDA's shared files), ChEMBL, PrimeKG and openFDA are built, then:

1. PrimeKG changes 1% of its edges and no drug: only PrimeKG is refreshed, as a delta of the
   changed edges (openFDA, whose drugs merge onto PrimeKG's, is not reloaded);
2. ChEMBL renames a drug openFDA's labels merged onto by name: openFDA is refreshed too, and
   the graph equals a clean build of the same files.
"""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import polars as pl
import pytest
from graph_state import assert_same_graph, graph_dump
from offline_read import shared_sample
from own_graph import fresh_graph_settings, release

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import write_transactions
from biokg.ingest.build import (
    IDENTITY_ROWS,
    build,
    fetch_source,
    identity_rows_digest,
    identity_stale,
)
from biokg.ingest.identity import known_drugs
from biokg.ingest.records import Records
from biokg.ingest.refresh import refresh
from biokg.ingest.sources import chembl, primekg

SOURCES = ("chembl", "primekg", "openfda")
INFORES = {"chembl": "infores:chembl", "primekg": "infores:primekg", "openfda": "infores:openfda"}
#: every EVERY-th PrimeKG edge between two non-drug nodes is taken out of the release
EVERY = 100
LOADS = "MATCH (v:SourceVersion {current: true}) RETURN v.source AS source, v.load_id AS id"


def with_dirs(settings: Settings, dirs: dict[str, Path]) -> Settings:
    return dataclasses.replace(settings, source_dirs=tuple(sorted(dirs.items())))


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, dict[str, Path]]]:
    """ChEMBL, PrimeKG and openFDA built into a graph of their own, ChEMBL and PrimeKG read
    from folders of this test (copies of their offline files)."""
    own = fresh_graph_settings(tmp_path_factory, started=True)
    root = tmp_path_factory.mktemp("identity-inputs")
    dirs = {"chembl": root / "chembl", "primekg": root / "primekg"}
    for folder in dirs.values():
        folder.mkdir()
    shutil.copyfile(
        fetch_source("chembl", own).fetched.files[chembl.DB_FILE], dirs["chembl"] / chembl.DB_FILE
    )
    for name, path in shared_sample("primekg").items():
        shutil.copyfile(path, dirs["primekg"] / name)
    settings = with_dirs(own, dirs)
    try:
        with GraphStore.connect(settings) as store:
            build(store, settings, SOURCES, sample=True)
        yield settings, dirs
    finally:
        release(settings)


def drop_non_drug_edges(kg: Path, every: int) -> int:
    """Take every ``every``-th edge between two non-drug nodes out of kg.csv: each row of its
    key (both directions) becomes a copy of row 0, so no other row moves (edges cite their row)
    and no drug is touched. Returns the edges taken out."""
    rows = pl.read_csv(kg, infer_schema=False)
    pair = pl.concat_str(
        [
            pl.col("relation"),
            pl.min_horizontal("x_id", "y_id"),
            pl.max_horizontal("x_id", "y_id"),
        ],
        separator="|",
    )
    keyed = rows.with_columns(pair.alias("key"))
    drug = (pl.col("x_type") == "drug") | (pl.col("y_type") == "drug")
    keys = keyed.filter(~drug)["key"].unique(maintain_order=True)
    gone = set(keys.gather_every(every).to_list()) - {keyed["key"][0]}
    first = rows.row(0)
    out = [
        first if key in gone else row
        for row, key in zip(rows.iter_rows(), keyed["key"], strict=True)
    ]
    pl.DataFrame(out, schema=rows.schema, orient="row").write_csv(kg)
    return len(gone)


def test_identity_rows_digest_reads_only_what_identity_matches() -> None:
    def drugs(rows: list[dict]) -> Records:
        schema = {
            "id": pl.String,
            "name": pl.String,
            "synonyms": pl.List(pl.String),
            "xrefs": pl.List(pl.String),
            "max_phase": pl.Int64,
        }
        return Records(nodes={"Drug": pl.DataFrame(rows, schema=schema)})

    a = {"id": "X:1", "name": "Sildenafil", "synonyms": ["Viagra", "UK-92480"], "xrefs": ["U:1"]}
    b = {"id": "X:2", "name": "Aspirin", "synonyms": [], "xrefs": [], "max_phase": 4}
    digest = identity_rows_digest(drugs([a, b]))
    reordered = {**a, "synonyms": ["uk 92480", "VIAGRA"], "max_phase": 2}  # same name keys
    assert identity_rows_digest(drugs([b, reordered])) == digest
    assert identity_rows_digest(drugs([a, {**b, "name": "Acetylsalicylic acid"}])) != digest
    assert identity_rows_digest(drugs([a, {**b, "xrefs": ["U:2"]}])) != digest
    assert identity_rows_digest(Records()) == identity_rows_digest(drugs([]))


def test_the_kept_digest_is_what_identity_reads_back_from_the_graph(
    graph: tuple[Settings, dict[str, Path]],
) -> None:
    """A later source reads an earlier one's drugs from the graph (its node facts) when that
    one is not rebuilt: their digest must be the one kept with its load."""
    settings, _ = graph
    with GraphStore.connect(settings) as store:
        known = known_drugs(store)
        kept = {
            r["source"]: r["identity"]
            for r in store.read(
                "MATCH (v:SourceVersion {current: true}) RETURN v.source AS source, "
                "v.identity AS identity"
            )
        }
    for name in SOURCES:
        rows = known.filter(pl.col("source") == INFORES[name])
        assert rows.height > 0
        assert (
            f'"{IDENTITY_ROWS}": "{identity_rows_digest(Records(nodes={"Drug": rows}))}"'
            in (kept[INFORES[name]])
        )


def test_a_primekg_change_without_drugs_reloads_only_primekg_as_a_delta(
    graph: tuple[Settings, dict[str, Path]],
) -> None:
    settings, dirs = graph
    with GraphStore.connect(settings) as store:
        before = {r["source"]: r["id"] for r in store.read(LOADS)}
        edges = store.read(
            "MATCH ()-[e]->() WHERE e.source = 'infores:primekg' RETURN count(e) AS n"
        )[0]["n"]
        taken = drop_non_drug_edges(dirs["primekg"] / primekg.KG_FILE, EVERY)
        writes = write_transactions(settings)
        reports = refresh(store, settings, ["primekg"], offline=True, sample=True, embed=False)
        engine_writes = write_transactions(settings) - writes
        after = {r["source"]: r["id"] for r in store.read(LOADS)}
        stale = identity_stale(store)
    by_source = {r.source: r for r in reports}
    assert set(by_source) <= {"primekg", "bridge"}, [r.as_dict() for r in reports]
    report = by_source["primekg"]
    assert report.status == "updated", report
    # the delta is the change: the edges taken out, nothing added or rewritten
    assert 0 < taken <= edges // (EVERY // 2)
    assert (report.edges_removed, report.edges_added, report.edges_changed) == (taken, 0, 0)
    # one transaction: the delta and the new :SourceVersion; the bridge's delta, if any, another
    assert report.writes == 1
    assert sum(r.writes for r in reports) <= 2, [r.as_dict() for r in reports]
    # the engine's own count of committed write transactions (its profiler's, every client's;
    # 6 when this was written) stays a handful: no other source was written
    assert engine_writes <= 8, (engine_writes, [r.as_dict() for r in reports])
    assert after["infores:primekg"] != before["infores:primekg"]
    for source in ("infores:chembl", "infores:openfda"):
        assert after[source] == before[source]  # openFDA's key holds PrimeKG's drugs: the same
    assert stale == []


def rename_family(db: Path, chembl_id: str) -> list[str]:
    """Give a ChEMBL parent and its salts new names and drop their synonyms; their old names."""
    with closing(sqlite3.connect(db)) as con, con:
        [parent] = con.execute(
            "SELECT molregno FROM molecule_dictionary WHERE chembl_id = ?", (chembl_id,)
        ).fetchone()
        family = [
            r[0]
            for r in con.execute(
                "SELECT molregno FROM molecule_hierarchy WHERE parent_molregno = ?", (parent,)
            )
        ] or [parent]
        marks = ",".join("?" * len(family))
        old = [
            r[0]
            for r in con.execute(
                f"SELECT pref_name FROM molecule_dictionary WHERE molregno IN ({marks})", family
            )
        ]
        con.execute(
            "UPDATE molecule_dictionary SET pref_name = 'ZORVEXAMINE' || molregno "
            f"WHERE molregno IN ({marks})",
            family,
        )
        con.execute(f"DELETE FROM molecule_synonyms WHERE molregno IN ({marks})", family)
    return old


@pytest.mark.slow
def test_a_chembl_rename_openfda_merged_onto_reloads_openfda_like_a_clean_build(
    graph: tuple[Settings, dict[str, Path]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Runs after the PrimeKG change above (same module): the clean build reads both changes."""
    settings, dirs = graph
    with GraphStore.connect(settings) as store:
        # a drug openFDA's labels merged onto and PrimeKG's sample does not name
        [row] = store.read(
            "MATCH (d:Drug) WHERE d.sources = ['infores:chembl', 'infores:openfda'] "
            "RETURN d.id AS id ORDER BY d.id LIMIT 1"
        )
        drug = row["id"]
        chembl_id = drug.removeprefix("CHEMBL.COMPOUND:")
        renamed = rename_family(dirs["chembl"] / chembl.DB_FILE, chembl_id)
        assert renamed
        reports = refresh(store, settings, ["chembl"], offline=True, sample=True, embed=False)
        [sources] = store.read("MATCH (d:Drug {id: $id}) RETURN d.sources AS s", {"id": drug})
        stale = identity_stale(store)
    status = {r.source: r.status for r in reports}
    # ChEMBL's drug names changed: the drug sources after it merge onto them again, as deltas
    assert status == {
        "chembl": "updated",
        "primekg": "updated",
        "openfda": "updated",
        "bridge": status.get("bridge", "unchanged"),
    }, [r.as_dict() for r in reports]
    assert sources["s"] == ["infores:chembl"]  # openFDA's labels no longer merge onto it
    assert stale == []

    clean = with_dirs(fresh_graph_settings(tmp_path_factory, started=True), dirs)
    try:
        with GraphStore.connect(clean) as store:
            build(store, clean, SOURCES, sample=True)
            expected = graph_dump(store)
    finally:
        release(clean)
    with GraphStore.connect(settings) as store:
        assert_same_graph(graph_dump(store), expected)
