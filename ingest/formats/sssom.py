"""SSSOM mapping sets (https://w3id.org/sssom/): TSV rows under a YAML header in ``#`` lines.

Read: the header's metadata (``mapping_set_id``, ``mapping_set_version``, ``license``, ...) and
the rows' ``subject_id, subject_label, predicate_id, object_id, mapping_justification``
(``object_label`` is optional in SSSOM and absent from some of MONDO's sets), every value a
string, with each row's line number for citations.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl
import yaml

from biokg.errors import SourceFormatError
from biokg.ingest.formats.tabular import header_lines, read_tsv

COLUMNS = ("subject_id", "subject_label", "predicate_id", "object_id", "mapping_justification")


@dataclass(frozen=True)
class MappingSet:
    """One SSSOM file: its metadata block and its mapping rows (plus ``line``)."""

    path: Path
    metadata: dict
    mappings: pl.DataFrame


def set_version(metadata: dict) -> str:
    """``mapping_set_version`` (MONDO writes the release URL; its date is the version)."""
    text = str(metadata.get("mapping_set_version") or "")
    dated = [part for part in text.split("/") if len(part) == 10 and part[4] == "-"]
    return dated[0] if dated else text


def read_sssom(path: Path) -> MappingSet:
    """Read one SSSOM TSV file.

    Raises:
        SourceFormatError: a malformed YAML header, a missing column or a short row (file and
            line named).
    """
    frame = read_tsv(path, required=COLUMNS)
    return MappingSet(path, read_metadata(path), frame.select(*COLUMNS, "line"))


def read_metadata(path: Path) -> dict:
    """Only the YAML metadata block (the rows are not read).

    Raises:
        SourceFormatError: the block is not a YAML mapping.
    """
    header = header_lines(path, stop=lambda line: not line.startswith("#"))
    try:
        metadata = yaml.safe_load("\n".join(line[1:] for line in header)) or {}
    except yaml.YAMLError as err:
        raise SourceFormatError(f"{path}: the SSSOM metadata header is not YAML: {err}") from err
    if not isinstance(metadata, dict):
        raise SourceFormatError(f"{path}:1: the SSSOM metadata header is not a YAML mapping")
    return metadata
