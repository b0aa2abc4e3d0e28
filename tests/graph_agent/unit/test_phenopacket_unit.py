"""GA4GH v2 phenopackets read as diagnosis cases, on the real phenopacket-store files in
../shared/data/phenopackets (read in place) and the development lines made from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biokg.errors import AgentInputError
from biokg.graph_agent.diagnosis.phenopacket import read_phenopacket, read_phenopackets

pytestmark = pytest.mark.unit

SHARED = Path(__file__).resolve().parents[4] / "shared"
PACKETS = SHARED / "data" / "phenopackets"
DEV = SHARED / "eval" / "diagnosis_dev.jsonl"


def test_every_real_phenopacket_gives_the_terms_of_its_development_line() -> None:
    lines = {case["id"]: case for case in map(json.loads, DEV.read_text().splitlines())}
    cases = read_phenopackets(PACKETS)
    assert len(cases) == 24
    for case in cases:
        line = lines[Path(case.source).stem]
        assert case.id == line["id"]
        assert (case.observed, case.excluded) == (line["observed"], line["excluded"]), case.id
    # the folder's cases include excluded features (the development lines list them)
    assert sum(len(c.excluded) for c in cases) > 0


def test_one_file_is_one_case(tmp_path: Path) -> None:
    packet = {
        "id": "p1",
        "phenotypicFeatures": [
            {"type": {"id": "HP:0001166", "label": "Arachnodactyly"}},
            {"type": {"id": "HP:0001250", "label": "Seizure"}, "excluded": True},
            {"type": {"id": "NCIT:C3262", "label": "Neoplasm"}},
        ],
        "metaData": {"created": "2024-01-01T00:00:00Z", "phenopacketSchemaVersion": "2.0"},
    }
    path = tmp_path / "p1.json"
    path.write_text(json.dumps(packet))
    case = read_phenopacket(path)
    # HP:0001250 is excluded; NCIT:C3262 is not an HPO term, kept apart and not scored
    assert (case.id, case.observed, case.excluded) == ("p1", ["HP:0001166"], ["HP:0001250"])
    assert case.skipped == ["NCIT:C3262"]


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('{"id": "x", "phenotypicFeatures": [{"type": "HP:0001166"}]}', "not a GA4GH v2"),
        ('{"id": "x", "phenotypic_features_typo": []}', "not a GA4GH v2"),
        ('{"phenotypicFeatures": []}', "has no id"),
        ("{not json", "not a readable JSON file"),
    ],
    ids=["type-not-an-ontology-class", "unknown-field", "no-id", "not-json"],
)
def test_a_file_that_is_not_a_v2_phenopacket_is_refused_naming_it(
    tmp_path: Path, text: str, complaint: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(AgentInputError, match=complaint) as caught:
        read_phenopacket(path)
    assert str(path) in str(caught.value)


def test_a_folder_without_phenopackets_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AgentInputError, match=r"no \*\.json phenopacket"):
        read_phenopackets(tmp_path)
    with pytest.raises(AgentInputError, match="no such phenopacket"):
        read_phenopackets(tmp_path / "absent.json")
