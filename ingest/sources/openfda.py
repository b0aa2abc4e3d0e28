"""openFDA: harmonized drug products, SPL labels and FAERS adverse event reports.

Licence: CC0 (https://open.fda.gov/license/). Formats and field schemas:
  * drug/label (https://open.fda.gov/apis/drug/label/): label JSON records; an SPL XML file is
    read into the same shape by :func:`biokg.ingest.spl.spl_to_label`;
  * harmonized product records (JSON lines, one per SPL product, as openFDA's annotation step
    writes them before building each record's ``openfda`` block): ``brand_name``,
    ``generic_name``, ``substance_name``, ``unii_indexing``, ``rxnorm``, ``spl_set_id`` ...;
    types checked against the ``openfda`` block of the label schema (:data:`PRODUCT_FIELDS`);
  * drug/event (https://open.fda.gov/apis/drug/event/): FAERS reports, one JSON object per file
    or ``{"results": [...]}`` as the API answers.

Kept:
  * ``Drug`` nodes, one per active ingredient, id ``UNII:<code>``: name (the substance name),
    brand and generic names of the products and labels using it, ``RXCUI:`` xrefs from
    single-ingredient products only (a combination's RxCUI is not the ingredient's);
  * ``Label`` nodes ``DAILYMED:<set id>`` from SPL/label records and from the products'
    ``spl_set_id`` (several products share one label); an SPL record wins over product rows;
  * ``LabelSection`` nodes ``DAILYMED:<set id>/<field>`` (section texts joined by a blank line);
  * ``HAS_LABEL`` Drug -> Label (``match_rule`` "unii": the label or product lists the UNII),
    one per ingredient of a combination product; ``HAS_LABEL_SECTION`` Label -> LabelSection;
  * ``REPORTED_ADVERSE_EVENT`` Drug -> AdverseEvent with ``report_count`` (reports, not drug
    rows: a drug listed twice in one report counts once), only where the reaction carries a
    MedDRA code (E2B R3 reports give the numeric code in ``reactionmeddrapt``).

Dropped (counted, logged once per load): products without UNII indexing; FAERS drugs without
an ``openfda.unii`` block (older reports name drugs only by free text); reactions given as a
MedDRA term without a code (AdverseEvent ids must be real MedDRA codes; the schema has no id
for terms, see the openFDA report).

Malformed input is an error naming the file, line and field.

Warnings:
    The public API allows 240 requests/minute and 1,000/day without a key (120,000/day with
    one, env ``BIOKG_OPENFDA_API_KEY``), at most 1,000 records per request and ``skip`` up to
    25,000; deeper paging needs ``search_after`` from the response's Link header, and full loads
    should use the bulk files (https://open.fda.gov/apis/downloads/).
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.parse
from pathlib import Path

import polars as pl

from biokg.errors import BiokgError, ConfigError, SourceFormatError
from biokg.ingest.fetch import download
from biokg.ingest.records import Records, Release, finalize_edges, provenance_columns
from biokg.ingest.sources import Fetched, SourceInfo, fetched
from biokg.ingest.spl import spl_to_label
from biokg.schema import load_schema

log = logging.getLogger(__name__)

PRODUCTS_FILE = "harmonized_small.json"
EVENTS_FILE = "faers_event_postannotation.json"
SPL_GLOB = "spl_*.xml"  # SPL documents, any number (DailyMed: SPL_URL)
LABEL_GLOB = "drug-label*.json"  # drug/label API answers or bulk files, any number
API_URL = "https://api.fda.gov"
SPL_URL = "https://dailymed.nlm.nih.gov/dailymed/services/v2/spls/{set_id}.xml"
DEFAULT_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "openfda"

SOURCE = SourceInfo(
    name="openfda",
    infores="infores:openfda",
    license="https://open.fda.gov/license/",
    urls={
        # openFDA's harmonization output (https://github.com/FDA/openfda, annotation_table);
        # the public equivalent is the ``openfda`` block of each drug/label record.
        PRODUCTS_FILE: "https://download.open.fda.gov/drug/label/",
        EVENTS_FILE: "https://download.open.fda.gov/drug/event/",
    },
    # The full label set (~150k SPLs, ~45k distinct UNIIs in use). Upper bounds only bind
    # small files to sane sizes; lower bounds are for a complete bulk load.
    bounds={
        "nodes:Drug": (5_000, 100_000),
        "nodes:Label": (50_000, 400_000),
        "edges:HAS_LABEL": (50_000, 2_000_000),
    },
)

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
MEDDRA_CODE = r"^\d{8}$"  # MedDRA codes are 8 digits (https://www.meddra.org/)


def fetch(cache_dir: Path, *, data_dir: Path | None = None, offline: bool = True) -> Fetched:
    """Local openFDA files: the harmonized products, a FAERS file, SPL and label JSON files.

    Args:
        cache_dir: download cache (used by :func:`fetch_api` callers; unused offline).
        data_dir: folder with ``harmonized_small.json``, ``faers_event_postannotation.json`` and
            any ``spl_*.xml`` / ``drug-label*.json``; default ``$BIOKG_OPENFDA_DIR`` or the
            shared folder ``<repo>/../shared/data/openfda``.
        offline: must be true without ``data_dir``: a full online load is the bulk files
            (https://open.fda.gov/apis/downloads/, tens of GB), put into ``data_dir`` first.

    Raises:
        ConfigError: a required file is missing, or an online load without ``data_dir``.
        SourceFormatError: no date to version the files by.
    """
    if data_dir is None and not offline:
        raise ConfigError(
            "openfda: an online full load needs the bulk files; download them from "
            "https://open.fda.gov/apis/downloads/ into a folder and pass it as data_dir, or use "
            "fetch_api() for a query"
        )
    folder = Path(data_dir or os.environ.get("BIOKG_OPENFDA_DIR", DEFAULT_DIR))
    files = SOURCE.files_in(folder)
    for path in sorted(folder.glob(SPL_GLOB)) + sorted(folder.glob(LABEL_GLOB)):
        files[path.name] = path
    return fetched(files, discover_version(files))


def fetch_api(
    endpoint: str, search: str, *, cache_dir: Path, limit: int = 1000, max_records: int = 25_000
) -> list[Path]:
    """Page through an openFDA API query into cached JSON pages, within the public limits.

    Args:
        endpoint: e.g. ``drug/label`` or ``drug/event``.
        search: openFDA search syntax, e.g. ``openfda.unii:"BW9B0ZE037"``.
        cache_dir: pages go to ``cache_dir/openfda-api/<endpoint>/``.
        limit: records per request (API maximum 1,000).
        max_records: stop after this many; ``skip`` paging ends at 25,000.

    Raises:
        ConfigError: ``limit`` or ``max_records`` beyond the API's limits.
        FetchError: a request failed after retries (retryable).
    """
    if not 0 < limit <= 1000 or max_records > 25_000:
        raise ConfigError("openfda: limit must be 1..1000 and max_records <= 25,000 (use bulk)")
    key = os.environ.get("BIOKG_OPENFDA_API_KEY")
    target = Path(cache_dir) / "openfda-api" / endpoint.replace("/", "-")
    pages, total, skip = [], None, 0
    while skip < min(max_records, total if total is not None else max_records):
        query = {"search": search, "limit": limit, "skip": skip} | ({"api_key": key} if key else {})
        url = f"{API_URL}/{endpoint}.json?{urllib.parse.urlencode(query)}"
        started = time.monotonic()
        page = download(url, target)  # retries 5xx/429 with backoff
        pages.append(page.rename(target / f"page-{skip // limit:05d}.json"))
        total = json.loads(pages[-1].read_text())["meta"]["results"]["total"]
        skip += limit
        time.sleep(max(0.0, 0.25 - (time.monotonic() - started)))  # <= 240 requests/minute
    return pages


def discover_version(files: dict[str, Path]) -> str:
    """The newest date among the SPL ``effectiveTime`` values and the FAERS transmission date.

    The files carry no release header; openFDA's own ``meta.last_updated`` exists only in API
    answers.

    Raises:
        SourceFormatError: no file carries a date.
    """
    dates = [spl_to_label(p)["effective_time"] or "" for n, p in files.items() if _is_spl(n)]
    if EVENTS_FILE in files:
        dates += [r.get("transmissiondate") or "" for r in _event_reports(files[EVENTS_FILE])]
    dates = [d for d in dates if len(d) >= 8 and d[:8].isdigit()]
    if not dates:
        raise SourceFormatError(
            f"openfda: no SPL effectiveTime or FAERS transmissiondate in {sorted(files)}; "
            "cannot tell which data this is"
        )
    latest = max(d[:8] for d in dates)
    return f"{latest[:4]}-{latest[4:6]}-{latest[6:]}"


def parse(fetched: Fetched) -> dict[str, pl.DataFrame]:
    """Read the files into ``products``, ``labels``, ``label_sections`` and ``events`` frames.

    Raises:
        BiokgError: ``fetched`` lacks the products or events file.
        SourceFormatError: bad JSON or a field of the wrong type (file, line, field named);
            malformed SPL XML (file and line).
    """
    missing = [n for n in (PRODUCTS_FILE, EVENTS_FILE) if n not in fetched.files]
    if missing:
        raise BiokgError(f"openfda: parse needs {missing}; fetched only {sorted(fetched.files)}")
    labels = []
    for name, path in sorted(fetched.files.items()):
        if _is_spl(name):
            labels.append((name, spl_to_label(path)))
        elif Path(name).match(LABEL_GLOB):
            labels += [(f"{name}#{r.get('id')}", r) for r in _label_json(path)]
    return {
        "products": _products(fetched.files[PRODUCTS_FILE]),
        "labels": _labels_frame(labels),
        "label_sections": _sections_frame(labels),
        "events": _events(fetched.files[EVENTS_FILE]),
    }


def normalize(frames: dict[str, pl.DataFrame], *, release: Release) -> Records:
    """Drug, Label, LabelSection, AdverseEvent nodes and their edges, sorted, deduplicated.

    Raises:
        SchemaError: schema/ lacks a label or type used here.
    """
    schema = load_schema()
    dropped: dict[str, int] = {}
    uses = _ingredient_uses(frames, dropped)  # one row per (unii, set_id, record)
    sources = pl.lit([release.source], dtype=pl.List(pl.String)).alias("sources")
    drugs = _drugs(uses, frames).with_columns(sources)
    labels = _labels(frames).with_columns(sources)
    sections = frames["label_sections"].select(
        pl.format("DAILYMED:{}/{}", "set_id", "section").alias("id"),
        pl.format("{} ({})", "section", "set_id").alias("name"),
        pl.lit("biolink:InformationContentEntity").alias("category"),
        sources,
        "section",
        "loinc",
        "text",
    )
    has_label = uses.select(
        pl.format("UNII:{}", "unii").alias("subject"),
        pl.format("DAILYMED:{}", "set_id").alias("object"),
        pl.lit("Drug").alias("subject_label"),
        pl.lit("Label").alias("object_label"),
        *provenance_columns(release),
        "source_record",
        pl.lit("unii").alias("match_rule"),
    )
    has_section = frames["label_sections"].select(
        pl.format("DAILYMED:{}", "set_id").alias("subject"),
        pl.format("DAILYMED:{}/{}", "set_id", "section").alias("object"),
        pl.lit("Label").alias("subject_label"),
        pl.lit("LabelSection").alias("object_label"),
        *provenance_columns(release),
        "source_record",
    )
    events, reported = _adverse_events(frames["events"], release, dropped)
    edges = {
        "HAS_LABEL": has_label.sort("subject", "object", "source_record"),
        "HAS_LABEL_SECTION": has_section.sort("subject", "object"),
        "REPORTED_ADVERSE_EVENT": reported,
    }
    edges = {
        t: finalize_edges(f, t, schema).select("id", pl.exclude("id")) for t, f in edges.items()
    }
    log.info(
        "openfda %s: dropped %s",
        release.version,
        ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items())),
    )
    nodes = {"Drug": drugs, "Label": labels, "LabelSection": sections.sort("id")}
    # FAERS drugs linked by UNII but on no product or label: referenced, not defined here
    stubs = reported.select(pl.col("subject").alias("id")).unique().sort("id")
    stubs = stubs.filter(~pl.col("id").is_in(drugs["id"].implode()))
    return Records(
        nodes=nodes | {"AdverseEvent": events},
        stubs={"Drug": stubs.with_columns(pl.lit("biolink:Drug").alias("category"))},
        edges=edges,
    )


# --- parsing helpers ----------------------------------------------------------------------


def _is_spl(name: str) -> bool:
    return Path(name).match(SPL_GLOB)


def _products(path: Path) -> pl.DataFrame:
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


def _label_json(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise SourceFormatError(f"{path}:{err.lineno}: not JSON ({err.msg})") from err
    return data["results"] if isinstance(data, dict) and "results" in data else [data]


def _labels_frame(labels: list[tuple[str, dict]]) -> pl.DataFrame:
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


def _sections_frame(labels: list[tuple[str, dict]]) -> pl.DataFrame:
    rows = []
    for source_record, label in labels:
        codes = label.get("section_codes", {})
        for key, code in codes.items():
            record = f"{source_record}#{code}"
            rows.append((label["set_id"], key, code, "\n\n".join(label[key]), record))
    schema = ["set_id", "section", "loinc", "text", "source_record"]
    return pl.DataFrame(rows, schema=schema, orient="row")


def _event_reports(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise SourceFormatError(f"{path}:{err.lineno}: not JSON ({err.msg})") from err
    reports = data["results"] if isinstance(data, dict) and "results" in data else [data]
    if not all(isinstance(r, dict) for r in reports):
        raise SourceFormatError(f"{path}: expected FAERS report objects (drug/event shape)")
    return reports


def _events(path: Path) -> pl.DataFrame:
    """Report counts per (drug, reaction); a drug listed twice in one report counts once."""
    rows = []
    for report in _event_reports(path):
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


# --- normalizing helpers ------------------------------------------------------------------


def _ingredient_uses(frames: dict[str, pl.DataFrame], dropped: dict[str, int]) -> pl.DataFrame:
    """(unii, substance, set_id, source_record) for every ingredient of every product/label."""
    products, labels = frames["products"], frames["labels"]
    dropped["products without UNII indexing"] = products.filter(
        pl.col("uniis").list.len() == 0
    ).height
    columns = ["uniis", "substances", "set_id", "source_record"]
    both = pl.concat([labels.select(columns), products.select(columns)])
    return (
        both.explode("uniis", "substances")
        .drop_nulls("uniis")
        .rename({"uniis": "unii", "substances": "substance"})
    )


def _drugs(uses: pl.DataFrame, frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    products, labels = frames["products"], frames["labels"]
    single = products.filter(pl.col("uniis").list.len() == 1)
    xrefs = single.select(pl.col("uniis").list.first().alias("unii"), "rxcuis").explode("rxcuis")
    xrefs = (
        xrefs.drop_nulls("rxcuis")
        .group_by("unii")
        .agg(pl.format("RXCUI:{}", "rxcuis").unique().sort().alias("xrefs"))
    )
    names = pl.concat(
        [
            products.select(
                "source_record",
                pl.concat_list("brand_name").alias("brand_names"),
                pl.concat_list("generic_name").alias("generic_names"),
            ),
            labels.select("source_record", "brand_names", "generic_names"),
        ]
    )
    by_record = uses.select("unii", "source_record").join(names, on="source_record")
    agg = by_record.group_by("unii").agg(
        pl.col(c).explode().drop_nulls().unique().sort() for c in ("brand_names", "generic_names")
    )
    named = uses.drop_nulls("substance").group_by("unii").agg(pl.col("substance").min())
    return (
        uses.select("unii")
        .unique()
        .join(named, on="unii", how="left")
        .join(agg, on="unii", how="left")
        .join(xrefs, on="unii", how="left")
        .sort("unii")
        .select(
            pl.format("UNII:{}", "unii").alias("id"),
            pl.col("substance").alias("name"),
            pl.col("xrefs").fill_null(pl.lit([], dtype=pl.List(pl.String))),
            pl.lit("biolink:Drug").alias("category"),
            "brand_names",
            "generic_names",
        )
    )


def _labels(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """One Label per set id; an SPL/label record first, then products in file order."""
    products = frames["products"].select(
        "set_id",
        "version",
        pl.lit(None, dtype=pl.String).alias("effective_time"),
        pl.concat_list("brand_name").list.drop_nulls().alias("brand_names"),
        pl.concat_list("generic_name").list.drop_nulls().alias("generic_names"),
        "manufacturer",
        "product_type",
    )
    spl = frames["labels"].select(products.columns)
    rows = pl.concat([spl, products]).with_row_index("order")
    merged = rows.group_by("set_id").agg(
        pl.col("version", "effective_time", "manufacturer", "product_type")
        .sort_by("order")
        .drop_nulls()
        .first(),
        pl.col("brand_names", "generic_names")
        .sort_by("order")
        .explode()
        .drop_nulls()
        .unique(maintain_order=True),
    )
    return merged.sort("set_id").select(
        pl.format("DAILYMED:{}", "set_id").alias("id"),
        pl.col("brand_names").list.first().alias("name"),
        pl.lit("biolink:InformationContentEntity").alias("category"),
        "set_id",
        "version",
        "effective_time",
        "product_type",
        "manufacturer",
        "brand_names",
        "generic_names",
    )


def _adverse_events(
    events: pl.DataFrame, release: Release, dropped: dict[str, int]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    linked = events.filter(pl.col("uniis").list.len() > 0)
    dropped["FAERS drug-reaction pairs without openfda.unii"] = events.height - linked.height
    coded = linked.filter(pl.col("reaction").str.contains(MEDDRA_CODE))
    dropped["FAERS drug-reaction pairs with a MedDRA term but no code"] = (
        linked.height - coded.height
    )
    rows = (
        coded.explode("uniis")
        .group_by("uniis", "reaction")
        .agg(pl.col("report_count").sum(), pl.col("source_record").str.join(","))
    )
    nodes = rows.select(pl.format("MEDDRA:{}", "reaction").alias("id")).unique().sort("id")
    nodes = nodes.with_columns(
        pl.lit("biolink:PhenotypicFeature").alias("category"),
        pl.lit([release.source], dtype=pl.List(pl.String)).alias("sources"),
    )
    edges = rows.sort("uniis", "reaction").select(
        pl.format("UNII:{}", "uniis").alias("subject"),
        pl.format("MEDDRA:{}", "reaction").alias("object"),
        pl.lit("Drug").alias("subject_label"),
        pl.lit("AdverseEvent").alias("object_label"),
        *provenance_columns(release),
        "source_record",
        "report_count",
    )
    return nodes, edges
