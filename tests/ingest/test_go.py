"""GO source: real OBO files (Debian goslim_plant.obo, the rendered go-basic.obo) and GAF 2.2.

Small GAF fixtures are written to tmp_path from real org.Hs.eg.db gene-GO pairs (copied from the
offline corpus); expected counts for the real files are computed here by plain line scanning,
independently of the OBO and TSV readers under test. Debian files are cached under
~/.cache/biokg/test-data like tests/ingest/test_corpus.py does.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from offline_read import ReadOffline
from own_graph import TEST_DATA

from biokg.errors import BiokgError, SourceFormatError
from biokg.ingest.offline.go_corpus import GOSLIM_PLANT, debian_file
from biokg.ingest.records import Records, Release, validate
from biokg.ingest.sources import go
from biokg.ingest.sources.base import fetched
from biokg.schema import load_schema

CACHE = TEST_DATA
RELEASE = Release(
    source="infores:go",
    version="2022-07-01",
    license="https://creativecommons.org/licenses/by/4.0/",
    checksums={},
    retrieved_at="2024-01-02T03:04:05+00:00",
)
DOI = "DOI:10.18129/B9.bioc.org.Hs.eg.db"  # the corpus's DB:Reference (org.Hs.eg.db itself)
TP53 = ("NCBIGene", "7157", "TP53")
TP53_TAIL = (
    "tumor protein p53",
    "BCC7|BMFS5|LFS1|P53|TP53|TRP53",
    "gene",
    "taxon:9606",
    "20220912",
    "NCBI",
    "",
    "",
)
EGFR = ("NCBIGene", "1956", "EGFR")
EGFR_TAIL = (
    "epidermal growth factor receptor",
    "EGFR|ERBB|ERBB1|ERRP|HER1|NISBD2|PIG61|mENA",
    "gene",
    "taxon:9606",
    "20220912",
    "NCBI",
    "",
    "",
)
HEADER = "!gaf-version: 2.2\n!date-generated: 2022-09-12\n"
OBO_TYPES = {
    "is_a": "IS_A",
    "part_of": "PART_OF",
    "regulates": "REGULATES",
    "negatively_regulates": "NEGATIVELY_REGULATES",
    "positively_regulates": "POSITIVELY_REGULATES",
}


def _line(
    gene: tuple[str, ...],
    qualifier: str,
    go_id: str,
    ref: str,
    code: str,
    aspect: str,
    tail: tuple[str, ...],
) -> str:
    return "\t".join((*gene, qualifier, go_id, ref, code, "", aspect, *tail)) + "\n"


# Lines 3-8 of the fixture (lines 1-2 are the header). All but line 8 are real lines of the
# offline corpus (org.Hs.eg.db 2022-09-12); GO:0003677 DNA binding, GO:0005634 nucleus and
# GO:0007165 signal transduction are in goslim_plant.obo, GO:0000122 is not.
FIXTURE = [
    _line(TP53, "enables", "GO:0003677", DOI, "IDA", "F", TP53_TAIL),  # L3
    _line(TP53, "enables", "GO:0003677", DOI, "IMP", "F", TP53_TAIL),  # L4: evidence differs
    _line(TP53, "located_in", "GO:0005634", DOI, "IDA", "C", TP53_TAIL),  # L5
    _line(TP53, "involved_in", "GO:0000122", DOI, "IDA", "P", TP53_TAIL),  # L6: not in the slim
    _line(EGFR, "involved_in", "GO:0007165", DOI, "IDA", "P", EGFR_TAIL),  # L7
    # L8: synthetic NOT line (org.Hs.eg.db carries no NOT qualifiers) for the same pair as L7,
    # with references in a non-schema spelling (pmid) and an unknown prefix (Reactome).
    _line(
        EGFR,
        "NOT|involved_in",
        "GO:0007165",
        "pmid:10000001|Reactome:R-HSA-177929",
        "IMP",
        "P",
        EGFR_TAIL,
    ),
]


@pytest.fixture(scope="session")
def slim_obo() -> Path:
    return debian_file(*GOSLIM_PLANT, CACHE)


@pytest.fixture
def corpus(offline_read: ReadOffline) -> tuple[Records, dict[str, Path]]:
    """The full offline corpus (TEST_DATA/go-corpus) as the source contract's test reads it."""
    read = offline_read("go")
    return read.records, read.fetched.files


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, str):
        text = text.encode()
    path.write_bytes(text)
    return path


def _load(obo: Path, gaf: Path) -> Records:
    frames = go.parse(fetched({go.OBO_FILE: obo, go.GAF_FILE: gaf}, "test"))
    return go.normalize(frames, release=RELEASE)


def _scan_obo(path: Path) -> tuple[int, Counter[str]]:
    """Live [Term] count and per-type edge counts between live terms, by plain line scanning."""
    stanzas: list[tuple[str, list[str]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            stanzas.append((line, []))
        elif stanzas:
            stanzas[-1][1].append(line)
    terms: dict[str, tuple[bool, list[tuple[str, str]]]] = {}
    for kind, lines in stanzas:
        if kind != "[Term]":
            continue
        term_id = next(x[4:].strip() for x in lines if x.startswith("id: "))
        obsolete = "is_obsolete: true" in lines
        rels = [("is_a", x.split()[1]) for x in lines if x.startswith("is_a: ")]
        rels += [tuple(x.split()[1:3]) for x in lines if x.startswith("relationship: ")]
        terms[term_id] = (obsolete, rels)
    live = {t for t, (obsolete, _) in terms.items() if not obsolete}
    edges: Counter[str] = Counter()
    for subject in live:
        for predicate, obj in set(terms[subject][1]):
            if predicate in OBO_TYPES and obj in live:
                edges[OBO_TYPES[predicate]] += 1
    return len(live), edges


def test_goslim_plant_terms_and_edges_match_line_scan(slim_obo: Path, tmp_path: Path) -> None:
    gaf = _write(tmp_path / "empty.gaf", HEADER)  # the OBO alone: a GAF with no annotations
    records = _load(slim_obo, gaf)
    n_terms, edges = _scan_obo(slim_obo)
    assert n_terms == 106 and edges["IS_A"] > 0 and edges["PART_OF"] > 0  # a non-trivial file
    assert records.nodes["GOTerm"].height == n_terms
    for rel_type in OBO_TYPES.values():
        assert records.edges[rel_type].height == edges[rel_type], rel_type
    nucleus = records.nodes["GOTerm"].filter(pl.col("id") == "GO:0005634").row(0, named=True)
    assert nucleus["name"] == "nucleus"
    assert nucleus["namespace"] == "cellular_component"
    assert nucleus["category"] == "biolink:CellularComponent"
    assert nucleus["sources"] == ["infores:go"]
    part_of = records.edges["PART_OF"]
    assert part_of["source_record"].str.starts_with("goslim_plant.obo#L").all()
    validate(records, load_schema(), source="go")


def test_gaf_edges_nodes_and_merge(slim_obo: Path, tmp_path: Path) -> None:
    gaf = _write(tmp_path / "tp53_egfr.gaf", HEADER + "".join(FIXTURE))
    records = _load(slim_obo, gaf)
    edges = records.edges["ANNOTATED_WITH"]
    # L3+L4 merge, L5, L7 and L8 stay apart (negated differs), L6 dropped (term not in ontology)
    assert edges.height == 4
    egfr = edges.filter(pl.col("subject") == "NCBIGene:1956").sort("negated")
    assert egfr["negated"].to_list() == [False, True]
    assert egfr["relation"].to_list() == ["involved_in", "involved_in"]
    assert egfr["id"].n_unique() == 2
    # pmid and Reactome are bioregistry synonyms of schema's PMID and REACT prefixes
    assert egfr["references"].to_list()[1] == ["PMID:10000001", "REACT:R-HSA-177929"]

    edge = edges.filter(pl.col("object") == "GO:0003677").row(0, named=True)
    assert set(edge) == {*edges.columns}
    # finalize_edges' id: sha1 of source|subject|TYPE|object|qualifiers (relation, negated)
    key = "infores:go|NCBIGene:7157|ANNOTATED_WITH|GO:0003677|enables|false"
    assert edge["id"] == hashlib.sha1(key.encode()).hexdigest()[:24]
    assert edge["subject"] == "NCBIGene:7157"  # DB NCBIGene + DB Object ID 7157 (TP53)
    assert edge["object"] == "GO:0003677"  # DNA binding
    assert edge["subject_label"] == "Gene" and edge["object_label"] == "GOTerm"
    assert edge["source"] == "infores:go"  # Release.source
    assert edge["source_version"] == "2022-07-01"  # Release.version
    assert edge["source_record"] == "tp53_egfr.gaf#L3,tp53_egfr.gaf#L4"  # both lines, file order
    assert edge["retrieved_at"] == RELEASE.retrieved_at
    assert edge["license"] == "https://creativecommons.org/licenses/by/4.0/"
    assert edge["relation"] == "enables"  # qualifier column, no NOT
    assert edge["negated"] is False
    assert edge["aspect"] == "F"  # molecular function
    assert edge["evidence"] == ["IDA", "IMP"]  # L3 and L4 differ only by evidence: unioned
    assert edge["references"] == [DOI]  # the same reference on both lines, once

    genes = records.nodes["Gene"]
    assert genes["id"].to_list() == ["NCBIGene:1956", "NCBIGene:7157"]  # sorted
    tp53 = genes.filter(pl.col("id") == "NCBIGene:7157").row(0, named=True)
    assert tp53 == {
        "id": "NCBIGene:7157",
        "name": "tumor protein p53",  # DB Object Name
        "synonyms": ["BCC7", "BMFS5", "LFS1", "P53", "TP53", "TRP53"],  # split on '|'
        "category": "biolink:Gene",
        "sources": ["infores:go"],
        "symbol": "TP53",  # DB Object Symbol
        "taxon": "NCBITaxon:9606",  # taxon:9606
    }
    validate(records, load_schema(), source="go")
    again = _load(slim_obo, gaf)  # deterministic: same input, identical frames
    assert all(again.edges[t].equals(f) for t, f in records.edges.items())
    assert all(again.nodes[label].equals(f) for label, f in records.nodes.items())


def test_discover_version_falls_back_to_gaf_date(slim_obo: Path, tmp_path: Path) -> None:
    gaf = _write(tmp_path / "g.gaf", HEADER)  # goslim_plant.obo has no data-version line
    assert go.discover_version({go.OBO_FILE: slim_obo, go.GAF_FILE: gaf}) == "2022-09-12"


def test_fetch_data_dir_names_missing_file(slim_obo: Path, tmp_path: Path) -> None:
    _write(tmp_path / "go-basic.obo", slim_obo.read_bytes())
    with pytest.raises(BiokgError, match=r"goa_human\.gaf not found"):
        go.fetch(tmp_path / "cache", data_dir=tmp_path)


GOOD = FIXTURE[0]
BAD_INPUTS = {
    "16-columns": (HEADER + GOOD + GOOD.rsplit("\t", 1)[0] + "\n", r":4: expected 17 .* found 16"),
    "no-gaf-version": ("!date-generated: 2022-09-12\n" + GOOD, r":1: expected a '!gaf-version"),
    "gaf-1.0": ("!gaf-version: 1.0\n" + GOOD, r"found '!gaf-version: 1\.0'"),
    "unknown-evidence": (HEADER + GOOD.replace("\tIDA\t", "\tXYZ\t"), r":3: .*'XYZ'"),
    "bad-aspect": (HEADER + GOOD.replace("\tF\t", "\tX\t"), r":3: .*aspect 'X'"),
    "bare-not-qualifier": (HEADER + GOOD.replace("\tenables\t", "\tNOT\t"), r":3: .*'NOT'"),
    "bad-go-id": (HEADER + GOOD.replace("GO:0003677", "GO:3677"), r":3: .*'GO:3677'"),
    "non-utf8": (
        HEADER.encode() + GOOD.replace("TP53", "TP\udcff53", 1).encode("utf-8", "surrogateescape"),
        r":3: byte 0xff is not UTF-8",
    ),
}


@pytest.mark.parametrize("content, message", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_gaf_is_an_error_naming_file_and_line(
    slim_obo: Path, tmp_path: Path, content: str | bytes, message: str
) -> None:
    gaf = _write(tmp_path / "bad.gaf", content)
    with pytest.raises(SourceFormatError, match=message) as err:
        _load(slim_obo, gaf)
    assert str(gaf) in str(err.value)


@pytest.mark.slow
def test_full_offline_corpus(corpus: tuple[Records, dict[str, Path]]) -> None:
    records, files = corpus
    n_terms, obo_edges = _scan_obo(files[go.OBO_FILE])
    assert records.nodes["GOTerm"].height == n_terms
    for rel_type in OBO_TYPES.values():
        assert records.edges[rel_type].height == obo_edges[rel_type], rel_type

    live = set(records.nodes["GOTerm"]["id"].to_list())
    assert len(live) == n_terms
    keys, genes = set(), set()
    for line in files[go.GAF_FILE].read_text(encoding="utf-8").splitlines():
        if line.startswith("!"):
            continue
        cols = line.split("\t")
        if cols[4] in live:
            negated = cols[3].startswith("NOT|")
            keys.add((f"{cols[0]}:{cols[1]}", cols[4], cols[3].removeprefix("NOT|"), negated))
            genes.add(f"{cols[0]}:{cols[1]}")
    assert records.edges["ANNOTATED_WITH"].height == len(keys)
    assert records.nodes["Gene"].height == len(genes)
    validate(records, load_schema(), source="go")
    go.SOURCE.check_bounds(records)  # the offline corpus is a full release
