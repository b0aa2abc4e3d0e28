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


def test_name_keys() -> None:
    assert name_key("Acetylsalicylic-Acid") == "acetylsalicylic acid"
    assert salt_free_key("Imatinib Mesylate") == "imatinib"
    assert salt_free_key("Potassium Chloride") == "potassium chloride"
