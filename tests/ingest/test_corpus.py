"""Offline GO corpus rendered from the real Debian Bioconductor packages (no mocks).

The Debian files are cached under ~/.cache/biokg/test-data so repeated runs reuse them.
Expected counts are computed here with independent SQL, not taken from the renderer.
"""

from __future__ import annotations

import sqlite3
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import fastobo
import pronto
import pytest
from own_graph import TEST_DATA

from biokg.ingest.offline.go_corpus import (
    GO_DB,
    GOSLIM_PLANT,
    ORG_HS_DB,
    build_offline_corpus,
    debian_file,
    write_gaf,
    write_go_basic_obo,
)

CACHE = TEST_DATA
SLICE = 40


@pytest.fixture(scope="session")
def go_sqlite() -> Path:
    return debian_file(*GO_DB, CACHE)


@pytest.fixture(scope="session")
def org_sqlite() -> Path:
    return debian_file(*ORG_HS_DB, CACHE)


@pytest.fixture(scope="session")
def obo(go_sqlite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("obo") / "go-basic.obo"
    write_go_basic_obo(go_sqlite, out)
    return out


@pytest.fixture(scope="session")
def gaf(org_sqlite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gaf") / "goa_human.gaf"
    write_gaf(org_sqlite, out)
    return out


def _sql(db: Path, query: str) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return con.execute(query).fetchone()[0]


def _edge_count(go_sqlite: Path, rtype: str) -> int:
    union = " UNION ALL ".join(
        f"SELECT _id, _parent_id, relationship_type FROM go_{o}_parents" for o in ("bp", "mf", "cc")
    )
    return _sql(
        go_sqlite,
        f"SELECT count(DISTINCT p._id || '>' || p._parent_id) FROM ({union}) p "
        "JOIN go_term c ON c._id = p._id JOIN go_term t ON t._id = p._parent_id "
        f"WHERE p.relationship_type = '{rtype}' "
        "AND t.ontology != 'universal' AND c.ontology != 'universal'",
    )


def test_obo_matches_go_db(go_sqlite: Path, obo: Path) -> None:
    doc = fastobo.load(str(obo))
    header = {type(c).__name__: str(c) for c in doc.header}
    assert header["DataVersionClause"] == "data-version: releases/2022-07-01"
    terms = [f for f in doc if isinstance(f, fastobo.term.TermFrame)]
    n_terms = _sql(go_sqlite, "SELECT count(*) FROM go_term WHERE ontology != 'universal'")
    n_obsolete = _sql(go_sqlite, "SELECT count(*) FROM go_obsolete")
    assert len(terms) == n_terms + n_obsolete
    assert [str(t.id) for t in terms] == sorted(str(t.id) for t in terms)
    assert not any(str(t.id) == "all" for t in terms)

    is_a, rels, obsolete = 0, {}, 0
    for frame in terms:
        for clause in frame:
            if isinstance(clause, fastobo.term.IsAClause):
                is_a += 1
            elif isinstance(clause, fastobo.term.RelationshipClause):
                rels[str(clause.typedef)] = rels.get(str(clause.typedef), 0) + 1
            elif isinstance(clause, fastobo.term.IsObsoleteClause) and clause.obsolete:
                obsolete += 1
    assert obsolete == n_obsolete
    assert is_a == _edge_count(go_sqlite, "isa")
    assert rels["part_of"] == _edge_count(go_sqlite, "part of")
    for rel in ("regulates", "negatively_regulates", "positively_regulates"):
        assert rels[rel] == _edge_count(go_sqlite, rel.replace("_", " "))
    typedefs = {str(f.id) for f in doc if isinstance(f, fastobo.typedef.TypedefFrame)}
    assert typedefs == {"part_of", "regulates", "negatively_regulates", "positively_regulates"}


def test_obo_loads_in_pronto(obo: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any pronto syntax/semantic warning fails the test
        ont = pronto.Ontology(str(obo))
    term = ont["GO:0006357"]
    assert term.name == "regulation of transcription by RNA polymerase II"
    assert "GO:0006358" in term.alternate_ids
    assert {p.id for p in term.superclasses(distance=1, with_self=False)} == {"GO:0006355"}
    assert ont["GO:0000005"].obsolete


def test_gaf_matches_org_db(org_sqlite: Path, gaf: Path) -> None:
    expected = _sql(
        org_sqlite,
        "SELECT count(*) FROM (SELECT DISTINCT _id, go_id, evidence, 'P' FROM go_bp "
        "UNION SELECT DISTINCT _id, go_id, evidence, 'F' FROM go_mf "
        "UNION SELECT DISTINCT _id, go_id, evidence, 'C' FROM go_cc)",
    )
    text = gaf.read_text(encoding="utf-8")
    header = [ln for ln in text.splitlines() if ln.startswith("!")]
    rows = [ln.split("\t") for ln in text.splitlines() if not ln.startswith("!")]
    assert header[0] == "!gaf-version: 2.2"
    assert "!date-generated: 2022-09-12" in header
    assert len(rows) == expected
    assert all(len(r) == 17 for r in rows)
    assert {r[8] for r in rows} == {"P", "F", "C"}
    tp53 = [
        "NCBIGene",
        "7157",
        "TP53",
        "enables",
        "GO:0000976",
        "DOI:10.18129/B9.bioc.org.Hs.eg.db",
        "IDA",
        "",
        "F",
        "tumor protein p53",
        "BCC7|BMFS5|LFS1|P53|TP53|TRP53",
        "gene",
        "taxon:9606",
        "20220912",
        "NCBI",
        "",
        "",
    ]
    assert tp53 in rows


def test_slice_is_deterministic_and_cached(
    go_sqlite: Path, org_sqlite: Path, obo: Path, tmp_path: Path
) -> None:
    a = tmp_path / "a.gaf"
    counts = write_gaf(org_sqlite, a, slice_genes=SLICE)
    first = _sql(
        org_sqlite,
        f"SELECT _id FROM genes ORDER BY CAST(gene_id AS INTEGER) LIMIT 1 OFFSET {SLICE - 1}",
    )
    expected = _sql(
        org_sqlite,
        "SELECT count(*) FROM (SELECT _id, go_id, evidence, 'P' FROM go_bp UNION "
        "SELECT _id, go_id, evidence, 'F' FROM go_mf UNION SELECT _id, go_id, evidence, 'C' "
        "FROM go_cc) x JOIN genes g USING (_id) WHERE CAST(g.gene_id AS INTEGER) <= "
        f"(SELECT CAST(gene_id AS INTEGER) FROM genes WHERE _id = {first})",
    )
    assert counts["lines"] == expected > 0

    # the corpus renders the GAF and the OBO again: byte for byte the renderings above
    out = tmp_path / "corpus"
    paths = build_offline_corpus(CACHE, out, slice_genes=SLICE)
    assert paths["goslim_plant_obo"] == debian_file(*GOSLIM_PLANT, CACHE)
    assert paths["goa_human_gaf"].read_bytes() == a.read_bytes()
    assert paths["go_basic_obo"].read_bytes() == obo.read_bytes()
    assert (out / "goa_human.gaf.sha256").is_file() and (out / "go-basic.obo.sha256").is_file()
    mtimes = {k: p.stat().st_mtime_ns for k, p in paths.items()}
    again = build_offline_corpus(CACHE, out, slice_genes=SLICE)
    assert {k: p.stat().st_mtime_ns for k, p in again.items()} == mtimes  # reused, not rebuilt
    build_offline_corpus(CACHE, out, slice_genes=SLICE + 1)  # different params: rebuilt
    assert paths["goa_human_gaf"].read_bytes() != a.read_bytes()


def test_threads_fetching_one_debian_package_into_a_fresh_cache_all_get_it(
    tmp_path: Path,
) -> None:
    # `biokg build` fetches sources in threads, and GO and HPO read the same package: each
    # download clears the package's folder first, so two at once lost each other's .deb
    with ThreadPoolExecutor(max_workers=4) as pool:
        paths = list(pool.map(lambda _: debian_file(*GOSLIM_PLANT, tmp_path), range(4)))
    assert len(set(paths)) == 1 and paths[0].is_file()
    assert pronto.Ontology(str(paths[0])).get_term("GO:0008150").name == "biological_process"
