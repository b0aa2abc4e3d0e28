"""openFDA: harmonized drug products, SPL labels and FAERS adverse event reports.

Licence: CC0 (https://open.fda.gov/license/). Formats and field schemas:
  * drug/label (https://open.fda.gov/apis/drug/label/): label JSON records; an SPL XML file is
    read into the same shape by :func:`biokg.ingest.spl.spl_to_label`;
  * harmonized product records (JSON lines, one per SPL product, as openFDA's annotation step
    writes them before building each record's ``openfda`` block): ``brand_name``,
    ``generic_name``, ``substance_name``, ``unii_indexing``, ``rxnorm``, ``spl_set_id`` ...;
    types checked against the ``openfda`` block of the label schema (:data:`PRODUCT_FIELDS`);
    the readers for all three formats are in :mod:`biokg.ingest.formats.openfda`;
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
  * ``AdverseEvent`` nodes, one per FAERS reaction: ``MEDDRA:<code>`` where
    ``reactionmeddrapt`` is a code (E2B R3), else ``MEDDRA.PT:<term>`` named by the preferred
    term (docs/decisions/0005-adverse-event-terms.md);
  * ``REPORTED_ADVERSE_EVENT`` Drug -> AdverseEvent, one per drug and reaction term:
    ``report_count`` (reports, not listings: a drug listed twice in one report counts once),
    ``suspect_report_count`` (those where the report calls the drug suspect or interacting,
    ``drugcharacterization`` 1 or 3, rather than concomitant), ``source_record`` the reports
    (``<file>#<safetyreportid>``). A report names a drug by its ``openfda.unii`` codes (each
    ingredient) or, in reports without harmonization, only by ``medicinalproduct`` text
    (``VIOXX``, ``MAGNESIUM SULFATE``); these edges leave ``normalize`` as
    :class:`~biokg.ingest.records.NamedEdges` and the build's identity step puts each name on a
    known Drug node (``match_rule``, ``drug_names``), dropping and reporting names it cannot.

Dropped (counted, logged once per load): products without UNII indexing; FAERS drug listings
with neither ``medicinalproduct`` nor ``openfda.unii``.

Malformed input is an error naming the file, line and field.

Online files (the API's 240 requests/minute and 1,000/day without a key, ``search_after``
paging, retries, caching; the bulk zips) are fetched by :mod:`biokg.ingest.online.openfda` into a
folder that :func:`fetch` then reads like the offline one.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from biokg.errors import BiokgError, SourceFormatError
from biokg.ingest.formats import openfda as openfda_format
from biokg.ingest.formats.openfda import PRODUCT_FIELDS as PRODUCT_FIELDS  # re-exported
from biokg.ingest.formats.spl import spl_to_label
from biokg.ingest.online.download import mirrored
from biokg.ingest.online.openfda import API_URL, DOWNLOAD_INDEX, fetch_bulk
from biokg.ingest.records import (
    DRUG_NAME,
    NamedEdges,
    Records,
    Release,
    category_column,
    finalize_edges,
    node_columns,
    provenance_columns,
    sources_column,
)
from biokg.ingest.sources.base import Fetched, SourceInfo, Upstream, fetched, json_field
from biokg.schema import load_schema

log = logging.getLogger(__name__)

PRODUCTS_FILE = "harmonized_small.json"
EVENTS_FILE = "faers_event_postannotation.json"
SPL_GLOB = "spl_*.xml"  # SPL documents, any number (DailyMed: SPL_URL)
# drug/label and drug/event API answers (biokg.ingest.online.openfda.fetch_api pages) and bulk
# files (fetch_bulk: drug-label-0001-of-0013.json.zip ...), any number of each
LABEL_GLOBS = ("drug-label*.json", "drug-label*.json.zip")
EVENT_GLOBS = ("drug-event*.json", "drug-event*.json.zip")
SPL_URL = "https://dailymed.nlm.nih.gov/dailymed/services/v2/spls/{set_id}.xml"
#: The offline sample's folder, as :attr:`SourceInfo.shared_data` names it.
SAMPLE_FOLDER = "sample"


def _export_dates(body: bytes, where: str) -> str:
    """download.json's drug/label and drug/event export dates (:class:`Upstream` reader)."""
    label = json_field("results", "drug", "label", "export_date")(body, where)
    event = json_field("results", "drug", "event", "export_date")(body, where)
    return f"label {label}, event {event}"


SOURCE = SourceInfo(
    name="openfda",
    infores="infores:openfda",
    drugs=True,
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
    # the bulk index lists every export with its date; a mirror has its layout, which the
    # online fetch reads
    upstream=Upstream(DOWNLOAD_INDEX, "download.json", _export_dates),
    schedule="0 3 * * 1",  # weekly exports: Monday 03:00
    # the server an online fetch reads (download.json); BIOKG_OPENFDA_URL names a mirror
    rest_url=API_URL,
    # 500 real harmonized product records, three SPL labels, one FAERS report (CC0)
    shared_data={SAMPLE_FOLDER: "openfda"},
)


def fetch(
    cache_dir: Path,
    *,
    data_dir: Path | None = None,
    offline: bool = True,
    base_url: str = API_URL,
    shared: dict[str, Path] | None = None,
) -> Fetched:
    """Local openFDA files: harmonized products, FAERS reports, SPL and label JSON files.

    Args:
        cache_dir: download cache (online: ``cache_dir/openfda-bulk``).
        data_dir: folder with ``harmonized_small.json``, ``faers_event_postannotation.json`` and
            any ``spl_*.xml``, :data:`LABEL_GLOBS` and :data:`EVENT_GLOBS` files; default
            (``BIOKG_OPENFDA_DIR`` unset) the shared sample.
        offline: without ``data_dir``, read the shared sample; online, download the bulk files
            the index ``download.json`` lists (:func:`~biokg.ingest.online.openfda.fetch_bulk`):
            every drug/label part and the newest quarter of drug/event (FAERS).
        base_url: openFDA's API server, or a mirror of its and download.open.fda.gov's paths
            (``BIOKG_OPENFDA_URL``).
        shared: the shared sample (``SOURCE.fetch_options(settings)``): its folder under
            :data:`SAMPLE_FOLDER`.

    Raises:
        ConfigError: a required file is missing, or neither ``data_dir`` nor ``shared`` given.
        FetchError: a bulk download failed (retryable).
        SourceFormatError: no date to version the files by, or a cut-short zip (file named).
    """
    if data_dir is None and not offline:
        mirror = None if base_url.rstrip("/") == API_URL else base_url
        index = mirrored(DOWNLOAD_INDEX, mirror)
        paths = fetch_bulk("drug/label", cache_dir=cache_dir, index_url=index, mirror=mirror)
        paths += fetch_bulk(
            "drug/event", cache_dir=cache_dir, index_url=index, mirror=mirror, newest_folder=True
        )
        files = {path.name: path for path in paths}
        return fetched(files, discover_version(files))
    folder = Path(data_dir or SOURCE.shared_sample(shared)[SAMPLE_FOLDER])
    files = SOURCE.files_in(folder)
    for pattern in (SPL_GLOB, *LABEL_GLOBS, *EVENT_GLOBS):
        files |= {path.name: path for path in sorted(folder.glob(pattern))}
    # The offline folder is a 500-product sample of the harmonized label data.
    return fetched(files, discover_version(files), sample=data_dir is None)


def discover_version(files: dict[str, Path]) -> str:
    """The newest date among SPL ``effectiveTime``, FAERS ``transmissiondate``, API answers'
    ``meta.last_updated`` and bulk zips' export time.

    The offline files carry no release header; openFDA's ``meta.last_updated`` exists only in
    API answers (and inside bulk files, read from the zip's own timestamps instead of
    unpacking gigabytes here).

    Raises:
        SourceFormatError: no file carries a date, or a zip is cut short (file named).
    """
    dates = [spl_to_label(p)["effective_time"] or "" for n, p in files.items() if _is_spl(n)]
    for name, path in files.items():
        if name.endswith(".zip"):
            dates.append(openfda_format.zip_date(path))
        elif name == EVENTS_FILE or _matches(name, EVENT_GLOBS):
            dates += [r.get("transmissiondate") or "" for r in openfda_format.event_reports(path)]
        elif _matches(name, LABEL_GLOBS):
            data = openfda_format.read_json(path)
            meta = data.get("meta", {}) if isinstance(data, dict) else {}
            dates.append(str(meta.get("last_updated") or "").replace("-", ""))
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
        BiokgError: ``fetched`` lacks the products file and any label JSON, or the events file
            and any FAERS JSON.
        SourceFormatError: bad JSON or a field of the wrong type (file, line, field named);
            malformed SPL XML (file and line).
    """
    names = list(fetched.files)
    missing = [
        needed
        for needed, alternatives in ((PRODUCTS_FILE, LABEL_GLOBS), (EVENTS_FILE, EVENT_GLOBS))
        if needed not in fetched.files and not any(_matches(n, alternatives) for n in names)
    ]
    if missing:
        raise BiokgError(f"openfda: parse needs {missing}; fetched only {sorted(fetched.files)}")
    label_files = sorted(
        (name, path)
        for name, path in fetched.files.items()
        if _is_spl(name) or _matches(name, LABEL_GLOBS)
    )
    products = openfda_format.products(fetched.files.get(PRODUCTS_FILE))
    labels = openfda_format.labels_frame(_label_records(label_files))
    current = current_labels(labels, products)
    askable = load_schema().labels["LabelSection"].kinds
    log.info(
        "openfda: sections read for %d of %d labels (the current label of each ingredient)",
        len(current),
        labels["set_id"].n_unique(),
    )
    event_files = [path for name, path in fetched.files.items() if name == EVENTS_FILE]
    event_files += [p for n, p in sorted(fetched.files.items()) if _matches(n, EVENT_GLOBS)]
    events = [openfda_format.events(path) for path in event_files]
    return {
        # online there are only the bulk label records: their ``openfda`` blocks stand in
        "products": products,
        "labels": labels,
        # a second pass over the label files: a release's section texts (~10 GB) never sit
        # in memory together, only those of the current labels' askable sections
        "label_sections": openfda_format.sections_frame(
            _label_records(label_files),
            sections=askable.values if askable else (),
            set_ids=current,
        ),
        "events": _distinct_reports(pl.concat(events)),
    }


def _label_records(files: list[tuple[str, Path]]) -> Iterator[tuple[str, dict]]:
    """(source record, label record) of every label file, one file in memory at a time."""
    for name, path in files:
        if _is_spl(name):
            yield name, spl_to_label(path)
        else:
            yield from ((f"{name}#{r.get('id')}", r) for r in openfda_format.label_json(path))


def current_labels(labels: pl.DataFrame, products: pl.DataFrame) -> set[str]:
    """The set ids whose sections become nodes: for each ingredient (UNII, from the label's
    own ``openfda`` block or its products) and product type, its label with the newest
    ``effective_time`` (then the greatest set id). Repackagers' and older labels of the same
    ingredient repeat its text (decision 0017); labels naming no UNII reach no Drug."""
    uniis = pl.concat([labels.select("set_id", "uniis"), products.select("set_id", "uniis")])
    ranked = labels.group_by("set_id").agg(
        pl.col("effective_time").max(), pl.col("product_type").drop_nulls().first()
    )
    newest = (
        ranked.join(uniis.explode("uniis").drop_nulls().unique(), on="set_id")
        .sort(["effective_time", "set_id"], descending=True, nulls_last=True)
        .group_by("uniis", "product_type", maintain_order=True)
        .first()
    )
    return set(newest["set_id"])


def normalize(frames: dict[str, pl.DataFrame], *, release: Release) -> Records:
    """Drug, Label, LabelSection, AdverseEvent nodes and their edges, sorted, deduplicated.

    Raises:
        SchemaError: schema/ lacks a label or type used here.
    """
    schema = load_schema()
    dropped: dict[str, int] = {}
    uses = _ingredient_uses(frames, dropped)  # one row per (unii, set_id, record)
    sources = sources_column(release)
    drugs = _drugs(uses, frames).with_columns(sources)
    labels = _labels(frames).with_columns(sources)
    sections = frames["label_sections"].select(
        pl.format("DAILYMED:{}/{}", "set_id", "section").alias("id"),
        pl.format("{} ({})", "section", "set_id").alias("name"),
        category_column("LabelSection"),
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
    }
    edges = {t: finalize_edges(f, t, schema) for t, f in edges.items()}
    log.info(
        "openfda %s: dropped %s",
        release.version,
        ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items())),
    )
    nodes = {"Drug": drugs, "Label": labels, "LabelSection": sections.sort("id")}
    return Records(
        nodes=nodes | {"AdverseEvent": events},
        edges=edges,
        named_edges={"REPORTED_ADVERSE_EVENT": reported},
    )


# --- file helpers (format readers: biokg.ingest.formats.openfda) --------------------------


def _is_spl(name: str) -> bool:
    return Path(name).match(SPL_GLOB)


def _distinct_reports(events: pl.DataFrame) -> pl.DataFrame:
    """A report in several files (API pages beside bulk files) counts once: its first file's."""
    report = pl.col("source_record").str.split("#").list.last()
    return events.filter(pl.struct(report, "drug", "uniis", "reaction").is_first_distinct())


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(Path(name).match(p) for p in patterns)


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
            category_column("Drug"),
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
        category_column("Label"),
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
) -> tuple[pl.DataFrame, NamedEdges]:
    """AdverseEvent nodes and the report mentions (drug named by UNII or text) per reaction."""
    terms = events["reaction"].unique().sort()
    ids = pl.Series([openfda_format.adverse_event_id(t) for t in terms], dtype=pl.String)
    events = events.with_columns(object=pl.col("reaction").replace_strict(terms, ids))
    nodes = (
        events.group_by("object")
        .agg(pl.col("reaction").min())
        .sort("object")
        .select(
            pl.col("object").alias("id"),
            # a bare MedDRA code names nothing; a term is its own name
            pl.when(pl.col("object").str.starts_with("MEDDRA:"))
            .then(None)
            .otherwise(pl.col("reaction"))
            .alias("name"),
            *node_columns("AdverseEvent", release),
        )
    )
    # each UNII of a harmonized drug (a combination names every ingredient), else its text
    named = events.with_columns(
        pl.when(pl.col("uniis").list.len() > 0)
        .then(pl.col("uniis").list.eval(pl.format("UNII:{}", pl.element())))
        .otherwise(pl.concat_list("drug"))
        .alias(DRUG_NAME)
    ).explode(DRUG_NAME)
    dropped["FAERS drug listings without medicinalproduct or openfda.unii"] = (
        named.filter(pl.col(DRUG_NAME).is_null()).select("source_record", "drug").n_unique()
    )
    mentions = (
        named.drop_nulls(DRUG_NAME)
        .select(
            DRUG_NAME,
            "object",
            pl.lit("Drug").alias("subject_label"),
            pl.lit("AdverseEvent").alias("object_label"),
            *provenance_columns(release),
            "source_record",
            pl.lit(1, dtype=pl.Int64).alias("report_count"),
            pl.col("suspect").cast(pl.Int64).alias("suspect_report_count"),
        )
        .sort(DRUG_NAME, "object", "source_record")
    )
    return nodes, NamedEdges("subject", mentions, counts=("report_count", "suspect_report_count"))
