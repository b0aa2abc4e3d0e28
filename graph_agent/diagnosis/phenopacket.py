"""GA4GH phenopackets (schema v2) read as diagnosis cases.

A phenopacket (https://phenopacket-schema.readthedocs.io/en/2.0.0/) describes one patient; the
ranker reads its ``phenotypicFeatures``: a feature's ``type`` (an HPO id) is observed, or
excluded when ``excluded`` is true. Features whose type is not an HPO term (another ontology)
are left out and counted. Onset, sex, measurements, diseases and interpretations are not read:
the ranker does not use them, and the interpretation names the diagnosis, which a ranking must
not see. Files are parsed with the GA4GH ``phenopackets`` package (its protobuf classes and
protobuf's JSON mapping), so a file that is not a v2 phenopacket is refused by the schema
itself rather than half read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf.json_format import ParseDict, ParseError
from phenopackets import Phenopacket

from biokg.errors import AgentInputError

#: The prefix of the ontology the ranker's terms come from.
HPO_PREFIX = "HP:"


@dataclass(frozen=True)
class PhenopacketCase:
    """One patient's terms as a phenopacket states them, in its features' order."""

    id: str
    observed: list[str]
    excluded: list[str]
    #: feature types outside HPO, left out
    skipped: list[str] = field(default_factory=list)
    source: str = ""


def read_phenopacket(path: Path) -> PhenopacketCase:
    """The case of one phenopacket JSON file.

    Raises:
        AgentInputError: the file cannot be read, is not a v2 phenopacket (naming the file
            and the schema's complaint), or has no id.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise AgentInputError(f"{path}: not a readable JSON file: {err}") from err
    return phenopacket_case(data, str(path))


def phenopacket_case(data: Any, where: str) -> PhenopacketCase:
    """The case of one phenopacket already read from JSON (``where``: the file or request it
    came from, for messages).

    Raises:
        AgentInputError: ``data`` is not a v2 phenopacket, or has no id.
    """
    try:
        packet = ParseDict(data, Phenopacket(), ignore_unknown_fields=False)
    except (ParseError, TypeError, AttributeError) as err:
        raise AgentInputError(f"{where}: not a GA4GH v2 phenopacket: {err}") from err
    if not packet.id:
        raise AgentInputError(f"{where}: the phenopacket has no id")
    observed, excluded, skipped = [], [], []
    for feature in packet.phenotypic_features:
        term = feature.type.id
        if not term.startswith(HPO_PREFIX):
            skipped.append(term)
        elif feature.excluded:
            excluded.append(term)
        else:
            observed.append(term)
    return PhenopacketCase(packet.id, observed, excluded, skipped, where)


def read_phenopackets(path: Path) -> list[PhenopacketCase]:
    """The cases of one phenopacket file, or of every ``*.json`` file in a folder (by name).

    Raises:
        AgentInputError: the path does not exist, a folder holds no ``*.json`` file, or a
            file is not a v2 phenopacket.
    """
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise AgentInputError(f"{path}: no *.json phenopacket in this folder")
        return [read_phenopacket(f) for f in files]
    if not path.is_file():
        raise AgentInputError(f"{path}: no such phenopacket file or folder")
    return [read_phenopacket(path)]
