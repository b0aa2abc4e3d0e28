"""The real online build, end to end, from a loopback mirror of the release servers.

Small releases in the real formats (benchmarks/gen_chembl.py, gen_openfda.py, bench_primekg.py
at scale 0.002: ~5,000 ChEMBL molecules, ~1,000 labels, ~16,000 kg.csv rows; generated once per
machine under ~/.cache/biokg/bench) are served at their official paths by
benchmarks/release_mirror.py, and ``build(..., offline=False)`` with ``BIOKG_<SOURCE>_URL``
reads them through the sources' own online fetch: ChEMBL's listing, checksums.txt and tarball,
openFDA's download.json and bulk zips, PrimeKG's Dataverse file. The first ChEMBL download is cut
half-way and must resume with a Range request; the second build must ask only conditionally and
write nothing. ``refresh`` from the same mirror then reads its markers (and, the first time, the
files at the build's own paths) and finds every load current; a second asks only the markers.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import sys
import zipfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import polars as pl
import pytest

from biokg.core.files import sha256
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import write_transactions
from biokg.ingest.bridge import SHARED_FOLDER
from biokg.ingest.build import build
from biokg.ingest.refresh import UNCHANGED, refresh
from biokg.schema import load_schema

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import gen_chembl  # benchmarks/ is a folder of scripts, not a package
import release_mirror

SCALE = 0.002
SOURCES = ("chembl", "primekg", "openfda")
TARBALL = f"chembl_{gen_chembl.RELEASE}_sqlite.tar.gz"
TARBALL_PATH = f"/chembl{release_mirror.CHEMBL_LATEST}{TARBALL}"


@pytest.fixture(scope="module")
def mirror() -> Iterator[tuple[release_mirror.Mirror, dict[str, Path]]]:
    with release_mirror.Mirror() as server:
        folders = release_mirror.publish(server, SOURCES, SCALE)
        yield server, folders


@pytest.fixture
def online(
    mirror: tuple[release_mirror.Mirror, dict[str, Path]], own_graph_settings: Settings
) -> Settings:
    """The own graph's settings, every source's URL at the mirror, MONDO's mappings local."""
    server, _ = mirror
    urls = tuple((s, server.base(s)) for s in SOURCES)
    return dataclasses.replace(
        own_graph_settings,
        source_urls=urls,
        source_dirs=(("mondo", own_graph_settings.shared_data / SHARED_FOLDER),),
    )


def _count(store: GraphStore, query: str) -> int:
    return store.read(query, {})[0]["n"]


def _expected(folders: dict[str, Path]) -> dict[str, int]:
    """What the generated files hold, counted from the files themselves."""
    with closing(sqlite3.connect(folders["chembl"] / f"chembl_{gen_chembl.RELEASE}.db")) as con:
        # one edge per parent molecule and disease (a salt's rows are its parent's)
        indications = con.execute(
            "SELECT COUNT(DISTINCT h.parent_molregno || '|' || COALESCE(i.mesh_id, i.efo_id)) "
            "FROM drug_indication i JOIN molecule_hierarchy h USING (molregno)"
        ).fetchone()[0]
    records = []
    for part in (folders["openfda"] / "drug" / "label").glob("*.zip"):
        with zipfile.ZipFile(part) as archive:
            records += json.loads(archive.read(archive.namelist()[0]))["results"]
    # sections: the askable kinds of each ingredient's newest label per product type
    newest: dict[tuple[str, str], dict] = {}
    for record in records:
        block = record.get("openfda", {})
        for unii in block.get("unii", []):
            key = (unii, (block.get("product_type") or [None])[0])
            rank = (record.get("effective_time") or "", record["set_id"])
            if key not in newest or rank > (
                newest[key].get("effective_time") or "",
                newest[key]["set_id"],
            ):
                newest[key] = record
    askable = load_schema().labels["LabelSection"].kinds.values
    current = {r["set_id"]: r for r in newest.values()}.values()
    kg = pl.read_csv(folders["primekg"] / "kg.csv", infer_schema=False)
    pairs = kg.filter(pl.col("relation") == "indication").select(
        pl.min_horizontal("x_id", "y_id").alias("a"), pl.max_horizontal("x_id", "y_id").alias("b")
    )
    return {
        "chembl INDICATED_FOR": indications,
        "openfda Label": len({r["set_id"] for r in records}),
        "openfda LabelSection": sum(len(askable.keys() & r.keys()) for r in current),
        "primekg INDICATED_FOR": pairs.unique().height,
    }


@pytest.mark.slow
def test_online_build_from_the_mirror_resumes_verifies_and_then_asks_conditionally(
    mirror: tuple[release_mirror.Mirror, dict[str, Path]], online: Settings
) -> None:
    server, folders = mirror
    server.requests.clear()
    server.cut_next(TARBALL_PATH)
    with GraphStore.connect(online) as store:
        first = build(store, online, SOURCES, offline=False, sample=True)
        assert [r.source for r in first if r.skipped] == []
        counts = {
            "chembl INDICATED_FOR": _count(
                store,
                "MATCH ()-[r:INDICATED_FOR]->() WHERE r.source = 'infores:chembl' "
                "RETURN count(r) AS n",
            ),
            "openfda Label": _count(store, "MATCH (n:Label) RETURN count(n) AS n"),
            "openfda LabelSection": _count(store, "MATCH (n:LabelSection) RETURN count(n) AS n"),
            "primekg INDICATED_FOR": _count(
                store,
                "MATCH ()-[r:INDICATED_FOR]->() WHERE r.source = 'infores:primekg' "
                "RETURN count(r) AS n",
            ),
        }
        # every generated indication row is one edge; every label's set id one Label node;
        # sections only of the current labels (decision 0017)
        assert counts == _expected(folders)

        # the cut tarball was resumed where it stopped, and matches checksums.txt
        tarball = [r for r in server.requests if r.path == TARBALL_PATH]
        assert [r.status for r in tarball] == [200, 206]
        size = (folders["chembl"] / TARBALL).stat().st_size
        assert tarball[0].sent == size // 2 and tarball[1].range == f"bytes={size // 2}-"
        cached = online.cache_dir / "chembl" / TARBALL
        published = (folders["chembl"] / "checksums.txt").read_text().split()[0]
        assert sha256(cached) == published

        # unchanged: only conditional requests, each answered 304, and no write
        server.requests.clear()
        writes = write_transactions(online)
        second = build(store, online, SOURCES, offline=False, sample=True)
        assert all(r.skipped for r in second if r.source != "infores:bridge"), second
        assert write_transactions(online) == writes
        asked = [r for r in server.requests if not r.path.endswith("/")]
        assert asked and all(r.conditional and r.status == 304 for r in asked), asked

        # refresh from the same mirror (its markers, then the files at the build's own paths):
        # the first finds the loads current and keeps each marker; the next asks only markers
        kept = refresh(store, online, SOURCES, offline=True, sample=True, embed=False)
        assert {(r.source, r.status) for r in kept} == {(s, UNCHANGED) for s in SOURCES}, kept
        server.requests.clear()
        writes = write_transactions(online)
        again = refresh(store, online, SOURCES, offline=True, sample=True, embed=False)
        assert {(r.source, r.status) for r in again} == {(s, UNCHANGED) for s in SOURCES}, again
        assert write_transactions(online) == writes
        markers = {"/chembl/status.json", "/openfda/download.json", "/primekg/dataset.json"}
        assert {r.path for r in server.requests} == markers, server.requests
