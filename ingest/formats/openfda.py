"""openFDA file formats: harmonized product JSON lines, drug/label JSON and FAERS drug/event JSON.

Format-level readers for :mod:`biokg.ingest.sources.openfda`; each returns a polars frame (or the
raw records) and raises :class:`~biokg.errors.SourceFormatError` naming the file, line and field.

* Harmonized product records (JSON lines, one per SPL product, as openFDA's annotation step
  writes them before building each record's ``openfda`` block, https://github.com/FDA/openfda):
  :func:`products` checks each field's type against :data:`PRODUCT_FIELDS`, taken from the
  ``openfda`` block of the drug/label schema (https://open.fda.gov/apis/drug/label/,
  ``druglabel_schema.json``).
* drug/label records (https://open.fda.gov/apis/drug/label/), one JSON object per file or
  ``{"results": [...]}`` as the API answers (:func:`label_json`); an SPL XML file is read into
  the same shape by :func:`biokg.ingest.spl.spl_to_label`. :func:`labels_frame` flattens the
  records' ``openfda`` block to one row per label, :func:`sections_frame` to one row per
  LOINC-coded section.
* drug/event FAERS reports (https://open.fda.gov/apis/drug/event/), one JSON object per file or
  ``{"results": [...]}`` (:func:`event_reports`); :func:`events` lists each report's
  (drug, reaction) pairs, :func:`adverse_event_id` names a reaction by MedDRA code or term.

Licence of the data: CC0 (https://open.fda.gov/license/).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from collections.abc import Collection, Iterable
from pathlib import Path
from urllib.parse import quote

import polars as pl

from biokg.errors import SourceFormatError
from biokg.ingest.formats.spl import LOINC_SECTIONS

# Harmonized product field -> expected JSON type, from the ``openfda`` block of
# druglabel_schema.json ("array of string"; the harmonized rows give single values as plain
# strings, so "str" accepts a string or a list of strings). ``unii_indexing``/``rxnorm`` are
# lists of objects with the named string keys.
PRODUCT_FIELDS: dict[str, str | tuple[str, ...]] = {
    "spl_set_id": "str",
    "spl_version": "str",
    "brand_name": "str",
    "generic_name": "str",
    "substance_name": "str",
    "manufacturer_name": "str",
    "product_type": "str",
    "unii_indexing": ("unii", "name"),
    "rxnorm": ("rxcui",),
}


def products(path: Path | None) -> pl.DataFrame:
    """One row per harmonized product line, fields type-checked against :data:`PRODUCT_FIELDS`
    (no rows for ``None``: an online load has label records only).

    Raises:
        SourceFormatError: a line is not JSON, or a field is missing or of the wrong type.
    """
    rows: list[tuple] = []
    if path is None:
        return pl.DataFrame(rows, schema=_PRODUCT_SCHEMA, orient="row")
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise SourceFormatError(f"{path}:{number}: not JSON ({err.msg})") from err
            rows.append(_product_row(record, f"{path}:{number}", f"{path.name}#L{number}"))
    return pl.DataFrame(rows, schema=_PRODUCT_SCHEMA, orient="row")


_PRODUCT_SCHEMA = {
    "source_record": pl.String,
    "set_id": pl.String,
    "version": pl.String,
    "brand_name": pl.String,
    "generic_name": pl.String,
    "manufacturer": pl.String,
    "product_type": pl.String,
    "uniis": pl.List(pl.String),
    "substances": pl.List(pl.String),
    "rxcuis": pl.List(pl.String),
}


def _product_row(record: object, where: str, source_record: str) -> tuple:
    if not isinstance(record, dict):
        raise SourceFormatError(f"{where}: expected a JSON object, found {type(record).__name__}")
    for field, kind in PRODUCT_FIELDS.items():
        if field not in record:
            raise SourceFormatError(f"{where}: field {field!r} is missing")
        value = record[field]
        if kind == "str":
            record[field] = _first_str(value, where, field)
        else:
            record[field] = _objects(value, kind, where, field)
    ingredients = record["unii_indexing"]
    return (
        source_record,
        record["spl_set_id"],
        record["spl_version"],
        record["brand_name"],
        record["generic_name"],
        record["manufacturer_name"],
        record["product_type"],
        [i["unii"] for i in ingredients],
        [i["name"] for i in ingredients],
        sorted({r["rxcui"] for r in record["rxnorm"]}),
    )


def _first_str(value: object, where: str, field: str) -> str | None:
    """A string, or the first of a list of strings (openFDA "array of string" fields)."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value[0] if value else None
    if not isinstance(value, str):
        raise SourceFormatError(
            f"{where}: field {field!r} must be a string or list of strings (openFDA label "
            f"schema), found {type(value).__name__} {value!r:.60}"
        )
    return value or None


def _objects(value: object, keys: tuple[str, ...], where: str, field: str) -> list[dict]:
    if value == {}:  # real harmonized rows write an empty ingredient list as {}
        return []
    if not isinstance(value, list):
        raise SourceFormatError(
            f"{where}: field {field!r} must be a list of objects, found {type(value).__name__}"
        )
    for item in value:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in keys):
            raise SourceFormatError(
                f"{where}: field {field!r} holds {item!r:.80}; each item needs string {keys}"
            )
    return value


def label_json(path: Path) -> list[dict]:
    """The drug/label records of one file: a single record or an API answer's ``results``.

    ``path`` may be a bulk ``drug-label-*.json.zip`` (:func:`read_json`).

    Raises:
        SourceFormatError: the file is not JSON, or a zip is incomplete.
    """
    data = read_json(path)
    return data["results"] if isinstance(data, dict) and "results" in data else [data]


def read_json(path: Path) -> object:
    """The JSON document of a ``.json`` file, or of the one ``.json`` member of a ``.zip``.

    openFDA's bulk files are zips of one ``{"meta", "results"}`` document
    (https://open.fda.gov/apis/downloads/); the whole document is read into memory (a drug
    label partition is ~20,000 records).

    Raises:
        SourceFormatError: not JSON (line named), or a zip that is cut short or corrupt.
    """
    if path.suffix != ".zip":
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise SourceFormatError(f"{path}:{err.lineno}: not JSON ({err.msg})") from err
    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.namelist() if m.endswith(".json")]
            if len(members) != 1:
                raise SourceFormatError(
                    f"{path}: expected one .json member in an openFDA bulk file, found {members}"
                )
            with archive.open(members[0]) as member:
                return json.load(io.TextIOWrapper(member, encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise SourceFormatError(f"{path}!{members[0]}:{err.lineno}: not JSON ({err.msg})") from err
    except (zipfile.BadZipFile, EOFError, zlib.error, OSError) as err:
        raise SourceFormatError(_broken_zip(path, err)) from err


def zip_date(path: Path) -> str:
    """``YYYYMMDD`` of the newest member of a zip (openFDA writes them at export).

    Raises:
        SourceFormatError: the zip is cut short or corrupt.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            stamps = [info.date_time for info in archive.infolist()]
    except (zipfile.BadZipFile, OSError) as err:
        raise SourceFormatError(_broken_zip(path, err)) from err
    if not stamps:
        raise SourceFormatError(f"{path}: empty zip; expected an openFDA bulk file")
    year, month, day = max(stamps)[:3]
    return f"{year:04d}{month:02d}{day:02d}"


def _broken_zip(path: Path, err: Exception) -> str:
    return (
        f"{path}: not a complete zip archive ({type(err).__name__}: {err}); the download was "
        "probably cut short or damaged: delete the file and download it again"
    )


def labels_frame(labels: Iterable[tuple[str, dict]]) -> pl.DataFrame:
    """One row per (source record, label record): set id, version and the ``openfda`` block."""
    rows = []
    for source_record, label in labels:
        openfda = label.get("openfda") or {}
        uniis, substances = openfda.get("unii", []), openfda.get("substance_name", [])
        rows.append(
            {
                "source_record": source_record,
                "set_id": label["set_id"],
                "version": label.get("version"),
                "effective_time": label.get("effective_time"),
                "brand_names": openfda.get("brand_name", []),
                "generic_names": openfda.get("generic_name", []),
                "manufacturer": next(iter(openfda.get("manufacturer_name", [])), None),
                "product_type": next(iter(openfda.get("product_type", [])), None),
                "uniis": uniis,
                # names pair with UNIIs only when both lists line up
                "substances": substances if len(substances) == len(uniis) else [None] * len(uniis),
            }
        )
    return pl.DataFrame(rows, schema=_LABEL_SCHEMA)


_LABEL_SCHEMA = {
    "source_record": pl.String,
    "set_id": pl.String,
    "version": pl.String,
    "effective_time": pl.String,
    "brand_names": pl.List(pl.String),
    "generic_names": pl.List(pl.String),
    "manufacturer": pl.String,
    "product_type": pl.String,
    "uniis": pl.List(pl.String),
    "substances": pl.List(pl.String),
}


#: openFDA drug/label section field -> its LOINC code (the SPL map, read the other way): the
#: bulk and API records name their sections by field only.
SECTION_LOINC = {field: code for code, field in LOINC_SECTIONS.items()}


def sections_frame(
    labels: Iterable[tuple[str, dict]], *, sections: Collection[str], set_ids: Collection[str]
) -> pl.DataFrame:
    """One row per LOINC-coded section of each label record, texts joined by a blank line; only
    the ``sections`` (fields) of the labels in ``set_ids`` (docs/decisions/0017-release-size.md).

    An SPL file's record lists its codes (``section_codes``); a drug/label JSON record's
    sections are its keys that name a section (:data:`SECTION_LOINC`)."""
    rows = []
    for source_record, label in labels:
        if label["set_id"] not in set_ids:
            continue
        codes = label.get("section_codes") or {
            key: SECTION_LOINC[key] for key in label if key in SECTION_LOINC
        }
        for key, code in codes.items():
            if key in sections:
                record = f"{source_record}#{code}"
                rows.append((label["set_id"], key, code, "\n\n".join(label[key]), record))
    schema = ["set_id", "section", "loinc", "text", "source_record"]
    return pl.DataFrame(rows, schema=schema, orient="row")


def event_reports(path: Path) -> list[dict]:
    """The FAERS reports of one file: a single report or an API answer's ``results``.

    ``path`` may be a bulk ``drug-event-*.json.zip`` (:func:`read_json`).

    Raises:
        SourceFormatError: the file is not JSON, a zip is incomplete, or a report is not an
            object.
    """
    data = read_json(path)
    reports = data["results"] if isinstance(data, dict) and "results" in data else [data]
    if not all(isinstance(r, dict) for r in reports):
        raise SourceFormatError(f"{path}: expected FAERS report objects (drug/event shape)")
    return reports


#: drug/event ``drugcharacterization``: 1 suspect, 2 concomitant, 3 interacting
#: (https://open.fda.gov/apis/drug/event/searchable-fields/)
DRUG_CHARACTERIZATION = {"1": "suspect", "2": "concomitant", "3": "interacting"}
SUSPECT = frozenset({"1", "3"})
MEDDRA_CODE = re.compile(r"\d{8}")  # MedDRA codes are 8 digits (https://www.meddra.org/)
_EVENT_SCHEMA = {
    "source_record": pl.String,
    "drug": pl.String,
    "uniis": pl.List(pl.String),
    "suspect": pl.Boolean,
    "reaction": pl.String,
}


def events(path: Path) -> pl.DataFrame:
    """One row per (report, drug, reaction) a FAERS file states, before any counting.

    ``drug`` is the ``medicinalproduct`` text, ``uniis`` its ``openfda.unii`` codes where the
    report went through openFDA's harmonization; a drug listed twice in one report is one row,
    ``suspect`` when any listing says suspect or interacting (:data:`SUSPECT`).

    Raises:
        SourceFormatError: a report lacks ``safetyreportid``/``patient``, or a field has the
            wrong type (file, report and field named).
    """
    rows = []
    for report in event_reports(path):
        report_id = report.get("safetyreportid")
        patient = report.get("patient")
        if not isinstance(report_id, str) or not report_id or not isinstance(patient, dict):
            raise SourceFormatError(f"{path}: report {report_id!r} lacks safetyreportid/patient")
        where = f"{path}: report {report_id}"
        reactions = sorted({_reaction(r, where) for r in _list(patient, "reaction", where)})
        drugs: dict[tuple[str | None, tuple[str, ...]], bool] = {}
        for drug in _list(patient, "drug", where):
            key, role = _drug(drug, where)
            drugs[key] = drugs.get(key, False) or role in SUSPECT
        record = f"{path.name}#{report_id}"
        for (name, uniis), suspect in drugs.items():
            rows += [(record, name, list(uniis), suspect, r) for r in reactions]
    return pl.DataFrame(rows, schema=_EVENT_SCHEMA, orient="row")


def adverse_event_id(reaction: str) -> str:
    """CURIE of a reaction: ``MEDDRA:<code>`` for a MedDRA code, else ``MEDDRA.PT:<term>``.

    A term is upper-cased, its words joined by ``_`` and percent-encoded outside ``A-Z0-9-.``,
    so distinct terms keep distinct ids (docs/decisions/0005-adverse-event-terms.md).

    >>> adverse_event_id("Crohn's  disease")
    'MEDDRA.PT:CROHN%27S_DISEASE'
    >>> adverse_event_id("10002855")
    'MEDDRA:10002855'
    """
    text = reaction.strip()
    if MEDDRA_CODE.fullmatch(text):
        return f"MEDDRA:{text}"
    words = [
        quote(w, safe="-.").replace("_", "%5F").replace("~", "%7E") for w in text.upper().split()
    ]
    if not words:
        raise ValueError(f"empty MedDRA reaction term {reaction!r}")
    return "MEDDRA.PT:" + "_".join(words)


def _list(parent: dict, field: str, where: str) -> list[dict]:
    value = parent.get(field, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise SourceFormatError(f"{where}: field {field!r} must be a list of objects")
    return value


def _reaction(reaction: dict, where: str) -> str:
    term = reaction.get("reactionmeddrapt")
    if not isinstance(term, str) or not term.strip():
        raise SourceFormatError(
            f"{where}: field 'reactionmeddrapt' must be a MedDRA term or code, found {term!r:.60}"
        )
    return " ".join(term.split())


def _drug(drug: dict, where: str) -> tuple[tuple[str | None, tuple[str, ...]], str | None]:
    """((medicinalproduct, UNIIs), drugcharacterization) of one drug listing."""
    name, role = drug.get("medicinalproduct"), drug.get("drugcharacterization")
    uniis = (drug.get("openfda") or {}).get("unii", [])
    if name is not None and not isinstance(name, str):
        raise SourceFormatError(
            f"{where}: field 'medicinalproduct' must be a string, found {type(name).__name__}"
        )
    if role is not None and role not in DRUG_CHARACTERIZATION:
        raise SourceFormatError(
            f"{where}: field 'drugcharacterization' must be one of "
            f"{sorted(DRUG_CHARACTERIZATION)}, found {role!r}"
        )
    if not isinstance(uniis, list) or not all(isinstance(u, str) for u in uniis):
        raise SourceFormatError(f"{where}: field 'openfda.unii' must be a list of strings")
    name = " ".join(name.split()) if name else None
    return (name or None, tuple(sorted(set(uniis)))), role
