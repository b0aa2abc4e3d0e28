"""openFDA source: real SPL labels (Viagra, Humira, a cough product), 500 real harmonized product
records and one FAERS report from the shared openFDA folder (DESIGN §9, CC0).

Expected counts are computed here with plain ``json``, independently of the parser under test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import bioregistry
import polars as pl
import pytest
from offline_read import shared_sample

from biokg.core.curie import normalize_curie
from biokg.errors import SourceFormatError
from biokg.ingest.formats import openfda as openfda_format
from biokg.ingest.formats.spl import LOINC_SECTIONS, spl_to_label
from biokg.ingest.records import Records, Release, validate
from biokg.ingest.sources import openfda
from biokg.schema import load_schema

DATA = shared_sample("openfda")[openfda.SAMPLE_FOLDER]
VIAGRA = DATA / "spl_64f8040f.xml"
VIAGRA_SET = "0b0be196-0c62-461c-94f4-9a35339b4501"
SILDENAFIL_CITRATE = "BW9B0ZE037"  # the ACTIM ingredientSubstance code in the Viagra SPL
RELEASE = Release(
    source="infores:openfda",
    version="2017-11-07",
    license="https://open.fda.gov/license/",
    checksums={},
    retrieved_at="2024-01-02T03:04:05+00:00",
)


@pytest.fixture(scope="module")
def records() -> tuple[dict[str, pl.DataFrame], Records]:
    frames = openfda.parse(openfda.fetch(Path("/nonexistent-cache"), data_dir=DATA))
    return frames, openfda.normalize(frames, release=RELEASE)


def _products() -> list[dict]:
    lines = (DATA / openfda.PRODUCTS_FILE).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_viagra_spl_to_label() -> None:
    label = spl_to_label(VIAGRA)
    assert label["set_id"] == VIAGRA_SET  # <setId root=...>
    assert label["effective_time"] == "20171107"  # <effectiveTime value=...> of the document
    assert label["version"] == "20"
    assert label["openfda"]["brand_name"] == ["Viagra"]  # manufacturedProduct/name as written
    assert label["openfda"]["generic_name"] == ["sildenafil citrate"]
    assert label["openfda"]["substance_name"] == ["SILDENAFIL CITRATE"]
    assert label["openfda"]["unii"] == [SILDENAFIL_CITRATE]  # inactive ingredients excluded
    assert label["openfda"]["product_type"] == ["HUMAN PRESCRIPTION DRUG"]
    (contra,) = label["contraindications"]
    assert contra.startswith("4 CONTRAINDICATIONS") and "nitrates" in contra
    assert "  " not in contra and "\n" not in contra  # whitespace collapsed
    assert label["section_codes"]["contraindications"] == "34070-3"
    # pregnancy sits inside use_in_specific_populations; openFDA gives both fields
    assert label["pregnancy"][0] in label["use_in_specific_populations"][0]


def test_loinc_table_matches_openfda_map_and_schema() -> None:
    fields = json.loads((DATA / "druglabel_schema.json").read_text())["properties"]
    codes = [line.split(",", 1)[0] for line in (DATA / "spl_sections.csv").read_text().split()]
    assert set(LOINC_SECTIONS.values()) <= set(fields)
    # every code of the openFDA map but 60684-8 (Cellular Therapy: no openFDA field)
    assert set(LOINC_SECTIONS) == {c for c in codes if "-" in c} - {"60684-8"}


def test_counts_match_plain_json(records: tuple[dict[str, pl.DataFrame], Records]) -> None:
    frames, result = records
    products = _products()
    set_ids = {p["spl_set_id"] for p in products}
    set_ids |= {spl_to_label(p)["set_id"] for p in DATA.glob("spl_*.xml")}
    assert frames["products"].height == len(products) == 500
    assert result.counts()["nodes:Label"] == len(set_ids)
    pairs = {(i["unii"], p["spl_set_id"]) for p in products for i in p["unii_indexing"]}
    # + the SPLs' active ingredients: Viagra 1, Humira 1 (adalimumab), Triaminic 2
    assert result.counts()["edges:HAS_LABEL"] == len(pairs) + 4
    validate(result, load_schema(), source="infores:openfda")


def test_viagra_drug_has_label_with_nitrate_contraindication(
    records: tuple[dict[str, pl.DataFrame], Records],
) -> None:
    _, result = records
    drug_id, label_id = f"UNII:{SILDENAFIL_CITRATE}", f"DAILYMED:{VIAGRA_SET}"
    drug = result.nodes["Drug"].filter(pl.col("id") == drug_id).row(0, named=True)
    assert drug["name"] == "SILDENAFIL CITRATE"
    assert "Viagra" in drug["brand_names"]
    edge = result.edges["HAS_LABEL"].filter(
        (pl.col("subject") == drug_id) & (pl.col("object") == label_id)
    )
    assert edge["match_rule"].to_list() == ["unii"]
    assert edge["source_record"].to_list() == ["spl_64f8040f.xml"]
    label = result.nodes["Label"].filter(pl.col("id") == label_id).row(0, named=True)
    assert (label["name"], label["effective_time"], label["version"]) == (
        "Viagra",
        "20171107",
        "20",
    )
    section_id = f"{label_id}/contraindications"
    section = result.nodes["LabelSection"].filter(pl.col("id") == section_id).row(0, named=True)
    assert section["loinc"] == "34070-3" and "nitrate" in section["text"]
    link = result.edges["HAS_LABEL_SECTION"].filter(pl.col("object") == section_id)
    assert link["subject"].to_list() == [label_id]
    assert link["source_record"].to_list() == ["spl_64f8040f.xml#34070-3"]


def test_combination_product_links_each_ingredient(
    records: tuple[dict[str, pl.DataFrame], Records],
) -> None:
    _, result = records
    # harmonized_small.json line 102: LISINOPRIL AND HYDROCHLOROTHIAZIDE, two UNIIs
    label_id = "DAILYMED:00f67e1a-6999-4295-9c9f-fcb1ce9711b8"
    edges = result.edges["HAS_LABEL"].filter(pl.col("object") == label_id)
    assert sorted(edges["subject"]) == ["UNII:0J48LPH2TH", "UNII:E7199S1YWR"]
    assert set(edges["source_record"]) == {"harmonized_small.json#L102"}
    # the combination's RxCUI 197887 is not either ingredient's xref
    drugs = result.nodes["Drug"].filter(pl.col("id").is_in(edges["subject"].implode()))
    assert all("RXCUI:197887" not in x for x in drugs["xrefs"])


def test_faers_report_gives_term_nodes_and_named_drug_mentions(
    records: tuple[dict[str, pl.DataFrame], Records],
) -> None:
    frames, result = records
    report = json.loads((DATA / openfda.EVENTS_FILE).read_text())
    reactions = {r["reactionmeddrapt"] for r in report["patient"]["reaction"]}
    drugs = {d["medicinalproduct"] for d in report["patient"]["drug"]}
    assert (len(reactions), len(report["patient"]["drug"]), len(drugs)) == (86, 23, 20)
    events = frames["events"]
    # VIOXX, SYNTHROID and REGLAN are listed twice: one row per report, drug and reaction
    assert events.height == len(reactions) * len(drugs)
    suspect = {
        d["medicinalproduct"]
        for d in report["patient"]["drug"]
        if d["drugcharacterization"] in ("1", "3")
    }
    assert set(events.filter("suspect")["drug"]) == suspect == {"VIOXX"}
    # no code anywhere: every reaction is a MEDDRA.PT term node named by the term
    nodes = result.nodes["AdverseEvent"]
    assert nodes.height == len(reactions)
    assert set(nodes["name"]) == reactions
    assert nodes.filter(pl.col("name") == "AMNESIA")["id"].to_list() == ["MEDDRA.PT:AMNESIA"]
    # drugs are known only by text here: the edges wait for identity resolution in the build
    assert "REPORTED_ADVERSE_EVENT" not in result.edges
    named = result.named_edges["REPORTED_ADVERSE_EVENT"]
    assert named.end == "subject"
    mentions = named.mentions
    assert mentions.height == len(reactions) * len(drugs)
    quinine = mentions.filter(
        (pl.col("drug_name") == "QUININE") & (pl.col("object") == "MEDDRA.PT:AMNESIA")
    ).row(0, named=True)
    assert quinine["source_record"] == f"{openfda.EVENTS_FILE}#{report['safetyreportid']}"
    assert (quinine["report_count"], quinine["suspect_report_count"]) == (1, 0)  # concomitant


def test_harmonized_report_drugs_are_named_by_each_unii(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    path = folder / openfda.EVENTS_FILE
    report = json.loads(path.read_text())
    # OS-CAL + D annotated as openFDA's harmonization does: its ingredients' UNIIs (calcium
    # carbonate H0G9379FGK, as in harmonized_small.json; cholecalciferol 1C6V77QF41)
    report["patient"]["drug"][2]["openfda"] = {"unii": ["H0G9379FGK", "1C6V77QF41"]}
    path.write_text(json.dumps(report))
    frames = openfda.parse(openfda.fetch(tmp_path, data_dir=folder))
    mentions = openfda.normalize(frames, release=RELEASE).named_edges["REPORTED_ADVERSE_EVENT"]
    names = set(mentions.mentions["drug_name"])
    assert {"UNII:1C6V77QF41", "UNII:H0G9379FGK"} <= names
    assert report["patient"]["drug"][2]["medicinalproduct"] not in names  # the codes replace it
    assert len(names) == 20 + 1  # one text became two ingredient ids


def test_a_report_in_two_files_counts_once(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    shutil.copy(folder / openfda.EVENTS_FILE, folder / "drug-event-0001-of-0001.json")
    events = openfda.parse(openfda.fetch(tmp_path, data_dir=folder))["events"]
    assert events.height == 86 * 20  # as from one file: 86 reactions x 20 distinct drugs
    assert set(events["source_record"].str.split("#").list.first()) == {openfda.EVENTS_FILE}


@pytest.mark.parametrize(
    ("term", "curie"),
    [
        ("AMNESIA", "MEDDRA.PT:AMNESIA"),
        ("Amaurosis  fugax", "MEDDRA.PT:AMAUROSIS_FUGAX"),  # case and spacing do not matter
        ("CROHN'S DISEASE", "MEDDRA.PT:CROHN%27S_DISEASE"),
        ("BLOOD_PH DECREASED", "MEDDRA.PT:BLOOD%5FPH_DECREASED"),  # "_" kept apart from " "
        ("HEPATITIS B/C", "MEDDRA.PT:HEPATITIS_B%2FC"),
        ("10002855", "MEDDRA:10002855"),  # an E2B R3 code is a real MedDRA id
    ],
    ids=["word", "spacing", "apostrophe", "underscore", "slash", "code"],
)
def test_adverse_event_ids(term: str, curie: str) -> None:
    assert openfda_format.adverse_event_id(term) == curie


def test_meddra_pt_is_a_local_prefix() -> None:
    # MEDDRA.PT must not shadow a registered prefix (docs/decisions/0005)
    assert bioregistry.get_resource("meddra.pt") is None
    assert normalize_curie("meddra.pt:AMNESIA") == "MEDDRA.PT:AMNESIA"
    assert load_schema().label("AdverseEvent").id_prefixes == ("MEDDRA", "MEDDRA.PT")


@pytest.mark.parametrize(
    ("field", "value"),
    [("drugcharacterization", "7"), ("medicinalproduct", 42), ("reactionmeddrapt", None)],
    ids=["characterization-unknown", "product-number", "reaction-null"],
)
def test_faers_wrong_field_names_file_report_field(
    tmp_path: Path, field: str, value: object
) -> None:
    folder = _copy(tmp_path)
    path = folder / openfda.EVENTS_FILE
    report = json.loads(path.read_text())
    target = report["patient"]["reaction" if field.startswith("reaction") else "drug"][3]
    target[field] = value
    path.write_text(json.dumps(report))
    where = rf"faers_event_postannotation\.json: report {report['safetyreportid']}"
    with pytest.raises(SourceFormatError, match=rf"{where}: field '{field}'"):
        openfda.parse(openfda.fetch(tmp_path, data_dir=folder))


@pytest.mark.parametrize(
    ("field", "value"),
    [("brand_name", 42), ("unii_indexing", "362O9ITL9D"), ("rxnorm", [{"rxcui": 198440}])],
    ids=["brand-name-number", "unii-indexing-string", "rxcui-number"],
)
def test_wrong_type_names_file_line_field(tmp_path: Path, field: str, value: object) -> None:
    folder = _copy(tmp_path)
    lines = (folder / openfda.PRODUCTS_FILE).read_text().splitlines()
    record = json.loads(lines[2])
    record[field] = value
    lines[2] = json.dumps(record)
    (folder / openfda.PRODUCTS_FILE).write_text("\n".join(lines) + "\n")
    with pytest.raises(SourceFormatError, match=rf"harmonized_small\.json:3: field '{field}'"):
        openfda.parse(openfda.fetch(tmp_path, data_dir=folder))


def test_truncated_spl_names_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "spl_truncated.xml"
    broken.write_bytes(VIAGRA.read_bytes()[:5000])
    with pytest.raises(SourceFormatError, match=r"spl_truncated\.xml:\d+: malformed SPL XML"):
        spl_to_label(broken)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "openfda"
    folder.mkdir()
    for name in (openfda.PRODUCTS_FILE, openfda.EVENTS_FILE):
        shutil.copy(DATA / name, folder / name)
    return folder
