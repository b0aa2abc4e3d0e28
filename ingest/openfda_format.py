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
  ``{"results": [...]}`` (:func:`event_reports`); :func:`events` counts reports per
  (drug, reaction).

Licence of the data: CC0 (https://open.fda.gov/license/).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from biokg.errors import SourceFormatError

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


def products(path: Path) -> pl.DataFrame:
    """One row per harmonized product line, fields type-checked against :data:`PRODUCT_FIELDS`.

    Raises:
        SourceFormatError: a line is not JSON, or a field is missing or of the wrong type.
    """
    rows = []
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

    Raises:
        SourceFormatError: the file is not JSON.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise SourceFormatError(f"{path}:{err.lineno}: not JSON ({err.msg})") from err
    return data["results"] if isinstance(data, dict) and "results" in data else [data]


def labels_frame(labels: list[tuple[str, dict]]) -> pl.DataFrame:
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


def sections_frame(labels: list[tuple[str, dict]]) -> pl.DataFrame:
    """One row per LOINC-coded section of each label record, texts joined by a blank line."""
    rows = []
    for source_record, label in labels:
        codes = label.get("section_codes", {})
        for key, code in codes.items():
            record = f"{source_record}#{code}"
            rows.append((label["set_id"], key, code, "\n\n".join(label[key]), record))
    schema = ["set_id", "section", "loinc", "text", "source_record"]
    return pl.DataFrame(rows, schema=schema, orient="row")


def event_reports(path: Path) -> list[dict]:
    """The FAERS reports of one file: a single report or an API answer's ``results``.

    Raises:
        SourceFormatError: the file is not JSON, or a report is not an object.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise SourceFormatError(f"{path}:{err.lineno}: not JSON ({err.msg})") from err
    reports = data["results"] if isinstance(data, dict) and "results" in data else [data]
    if not all(isinstance(r, dict) for r in reports):
        raise SourceFormatError(f"{path}: expected FAERS report objects (drug/event shape)")
    return reports


def events(path: Path) -> pl.DataFrame:
    """Report counts per (drug, reaction); a drug listed twice in one report counts once."""
    rows = []
    for report in event_reports(path):
        report_id = report.get("safetyreportid")
        patient = report.get("patient")
        if not report_id or not isinstance(patient, dict):
            raise SourceFormatError(f"{path}: report {report_id!r} lacks safetyreportid/patient")
        reactions = {r.get("reactionmeddrapt") for r in patient.get("reaction", [])} - {None}
        drugs = {}
        for drug in patient.get("drug", []):
            uniis = tuple(sorted((drug.get("openfda") or {}).get("unii", [])))
            drugs[(drug.get("medicinalproduct"), uniis)] = None
        for name, uniis in drugs:
            for reaction in sorted(reactions):
                rows.append((name, list(uniis), reaction, f"{path.name}#{report_id}"))
    schema = {"drug": pl.String, "uniis": pl.List(pl.String), "reaction": pl.String}
    frame = pl.DataFrame(rows, schema=schema | {"source_record": pl.String}, orient="row")
    return frame.group_by("drug", "uniis", "reaction", maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("report_count"),
        pl.col("source_record").unique(maintain_order=True).str.join(","),
    )
