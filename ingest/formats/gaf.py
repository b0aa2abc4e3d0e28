"""GAF 2.2 (Gene Association File) reading: http://geneontology.org/docs/go-annotation-file-gaf-format-2.2/

The format: 17 tab-separated columns without a header row, ``!`` comment lines, and a mandatory
``!gaf-version:`` header line (``!key: value`` lines at the top carry metadata such as
``!date-generated:``).

:func:`read_gaf` checks, and raises :class:`~biokg.errors.SourceFormatError` naming the file,
line and value for: a missing or non-2.x ``!gaf-version``, a non-UTF-8 byte, a line without
exactly 17 columns, an aspect other than P/F/C, a qualifier that is not ``[NOT|]<GAF 2.2
relation>``, an unknown GO evidence code, a malformed GO id or taxon, an empty DB object id.
Malformed input is an error, never skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from biokg.errors import SourceFormatError
from biokg.ingest.formats.tabular import check_column, header_lines, read_tsv

# GAF 2.2 columns 1-17, in spec order:
# http://geneontology.org/docs/go-annotation-file-gaf-format-2.2/#gaf-22-format
GAF_COLUMNS = (
    "db",
    "db_object_id",
    "db_object_symbol",
    "qualifier",
    "go_id",
    "db_reference",
    "evidence_code",
    "with_or_from",
    "aspect",
    "db_object_name",
    "db_object_synonym",
    "db_object_type",
    "taxon",
    "date",
    "assigned_by",
    "annotation_extension",
    "gene_product_form_id",
)
GAF_USED = (
    "db",
    "db_object_id",
    "db_object_symbol",
    "qualifier",
    "go_id",
    "db_reference",
    "evidence_code",
    "aspect",
    "db_object_name",
    "db_object_synonym",
    "taxon",
)

# GAF 2.2 Qualifier relations (column 4; optionally prefixed by "NOT|"):
# http://geneontology.org/docs/go-annotation-file-gaf-format-2.2/#qualifier-column-4
GAF_RELATIONS = frozenset(
    {
        "enables",
        "contributes_to",
        "involved_in",
        "acts_upstream_of",
        "acts_upstream_of_positive_effect",
        "acts_upstream_of_negative_effect",
        "acts_upstream_of_or_within",
        "acts_upstream_of_or_within_positive_effect",
        "acts_upstream_of_or_within_negative_effect",
        "located_in",
        "part_of",
        "is_active_in",
        "colocalizes_with",
    }
)

# GO evidence codes -> ECO (the "Default" rows of the GO/ECO mapping):
# http://geneontology.org/docs/guide-go-evidence-codes/
# https://github.com/evidenceontology/evidenceontology/blob/master/gaf-eco-mapping.txt
EVIDENCE_TO_ECO = {
    "EXP": "ECO:0000269",
    "IDA": "ECO:0000314",
    "IPI": "ECO:0000353",
    "IMP": "ECO:0000315",
    "IGI": "ECO:0000316",
    "IEP": "ECO:0000270",
    "HTP": "ECO:0006056",
    "HDA": "ECO:0007005",
    "HMP": "ECO:0007001",
    "HGI": "ECO:0007003",
    "HEP": "ECO:0007007",
    "IBA": "ECO:0000318",
    "IBD": "ECO:0000319",
    "IKR": "ECO:0000320",
    "IRD": "ECO:0000321",
    "ISS": "ECO:0000250",
    "ISO": "ECO:0000266",
    "ISA": "ECO:0000247",
    "ISM": "ECO:0000255",
    "IGC": "ECO:0000317",
    "RCA": "ECO:0000245",
    "TAS": "ECO:0000304",
    "NAS": "ECO:0000303",
    "IC": "ECO:0000305",
    "ND": "ECO:0000307",
    "IEA": "ECO:0000501",
}

# GAF column 9 aspect -> OBO namespace (same spec page, "Aspect (column 9)").
ASPECTS = {"P": "biological_process", "F": "molecular_function", "C": "cellular_component"}

_GO_ID = re.compile(r"GO:\d{7}")
_TAXON = re.compile(r"taxon:(\d+)(\|taxon:\d+)?")
_GAF_VERSION = re.compile(r"2\.\d+")


def read_gaf(path: Path) -> pl.DataFrame:
    """The GAF's 17 columns as strings, plus ``line``, every used value checked (see module doc).

    Raises:
        SourceFormatError: naming the file, line and offending value.
    """
    version = gaf_header(path).get("gaf-version")
    if version is None or not _GAF_VERSION.fullmatch(version):
        found = "no '!gaf-version:' line" if version is None else f"'!gaf-version: {version}'"
        raise SourceFormatError(
            f"{path}:1: expected a '!gaf-version: 2.x' header (GAF 2.2), found {found}; "
            "is this a GAF file?"
        )
    frame = read_tsv(path, header=GAF_COLUMNS, comment_prefix="!", required=GAF_USED)
    for column, check in (
        ("aspect", _aspect),
        ("qualifier", _qualifier),
        ("evidence_code", _evidence_eco),
        ("go_id", _go_id),
        ("taxon", _taxon),
        ("db_object_id", _nonempty),
    ):
        check_column(frame, column, check, path)
    return frame


def gaf_header(path: Path) -> dict[str, str]:
    """``!key: value`` lines at the top of a GAF (first value of each key)."""
    header: dict[str, str] = {}
    for line in header_lines(path, stop=lambda s: not s.startswith("!")):
        key, sep, value = line[1:].partition(":")
        if sep and key.strip() and key.strip() not in header:
            header[key.strip()] = value.strip()
    return header


def _aspect(text: str) -> str:
    """GAF aspect letter -> OBO namespace.

    >>> _aspect("P")
    'biological_process'
    """
    if text not in ASPECTS:
        raise ValueError("is not one of P, F, C")
    return ASPECTS[text]


def _qualifier(text: str) -> tuple[bool, str]:
    """GAF 2.2 qualifier -> (negated, relation).

    >>> _qualifier("NOT|involved_in")
    (True, 'involved_in')
    """
    negated = text.startswith("NOT|")
    relation = text.removeprefix("NOT|")
    if relation not in GAF_RELATIONS:
        raise ValueError(
            f"is not [NOT|]<relation> with a GAF 2.2 relation ({', '.join(sorted(GAF_RELATIONS))})"
        )
    return negated, relation


def _evidence_eco(text: str) -> str:
    """GO evidence code -> ECO id.

    >>> _evidence_eco("IDA")
    'ECO:0000314'
    """
    if text not in EVIDENCE_TO_ECO:
        raise ValueError("is not a GO evidence code")
    return EVIDENCE_TO_ECO[text]


def _go_id(text: str) -> str:
    if not _GO_ID.fullmatch(text):
        raise ValueError("is not GO:<7 digits>")
    return text


def _taxon(text: str) -> str:
    """GAF taxon column -> the annotated object's NCBITaxon CURIE.

    >>> _taxon("taxon:9606|taxon:11676")
    'NCBITaxon:9606'
    """
    match = _TAXON.fullmatch(text)
    if match is None:
        raise ValueError("is not taxon:<id> or taxon:<id>|taxon:<id>")
    return f"NCBITaxon:{match.group(1)}"


def _nonempty(text: str) -> str:
    if not text.strip():
        raise ValueError("is empty where GAF 2.2 requires a value")
    return text
