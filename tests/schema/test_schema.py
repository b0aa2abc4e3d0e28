"""schema/ as data: loads strictly, rejects typos naming file and entry, renders docs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from biokg.core.curie import normalize_curie
from biokg.errors import SchemaError
from biokg.schema import load_schema, render_markdown

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schema"


def _copy(tmp_path: Path) -> Path:
    for name in ("nodes.yaml", "relationships.yaml", "prefixes.yaml"):
        shutil.copy(SCHEMA_DIR / name, tmp_path / name)
    return tmp_path


def test_packaged_schema_loads_with_hpo_and_go_types() -> None:
    schema = load_schema()
    assert schema.label("Phenotype").id_prefixes == ("HP",)
    assert schema.relationship("HAS_PHENOTYPE").qualifiers == (
        "negated",
        "frequency",
        "onset",
        "sex",
        "modifier",
    )
    assert "source_record" in schema.provenance.required


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        ("nodes.yaml", "    category: biolink:Gene", "    categroy: biolink:Gene", "categroy"),
        ("relationships.yaml", "    from: [Disease, Gene]", "    from: [Disease, Gen]", "'Gen'"),
        ("nodes.yaml", "id_prefixes: [HP]", "id_prefixes: [HPX]", "HPX"),
        (
            "relationships.yaml",
            "qualifiers: [relation, negated]",
            "qualifiers: [relation, nope]",
            "nope",
        ),
        (
            "relationships.yaml",
            "also_answered_by: [REPORTED_ADVERSE_EVENT]",
            "also_answered_by: [INDICATED_FOR, REPORTED_ADVERSE_EVNT]",
            "REPORTED_ADVERSE_EVNT",
        ),
    ],
    ids=[
        "unknown-key",
        "unknown-endpoint-label",
        "unknown-prefix",
        "qualifier-not-a-property",
        "unknown-kin-type",
    ],
)
def test_schema_typos_are_errors_naming_file_and_entry(
    tmp_path: Path, file: str, old: str, new: str, message: str
) -> None:
    folder = _copy(tmp_path)
    path = folder / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(SchemaError, match=message) as info:
        load_schema(folder)
    assert str(folder) in str(info.value)


def test_committed_docs_match_the_schema() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "schema.md"
    assert docs.read_text() == render_markdown(load_schema()), (
        "run: biokg schema docs --out docs/schema.md"
    )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("pmid:123", "PMID:123"),
        ("Orphanet:558", "ORPHA:558"),
        ("omim:114480", "OMIM:114480"),
        ("uniprot:P04637", "UniProtKB:P04637"),
        ("ncbigene:7157", "NCBIGene:7157"),
    ],
)
def test_curie_prefixes_normalise_to_schema_spelling(given: str, expected: str) -> None:
    assert normalize_curie(given) == expected


def test_unknown_curie_prefix_is_rejected() -> None:
    with pytest.raises(ValueError, match="NOTAPREFIX"):
        normalize_curie("NOTAPREFIX:1")
