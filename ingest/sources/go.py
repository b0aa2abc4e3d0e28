"""Gene Ontology: the ontology (go-basic.obo) and human gene annotations (goa_human GAF).

Licence: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/,
http://geneontology.org/docs/go-citation-policy/).

Formats:
  * OBO 1.4 (https://owlcollab.github.io/oboformat/doc/obo-syntax.html), read by
    :func:`biokg.ingest.obo.read_obo`;
  * GAF 2.2, read and checked by :func:`biokg.ingest.gaf.read_gaf`.

Kept:
  * ``GOTerm`` nodes for every non-obsolete term: name, definition (as ``description``),
    synonyms, xrefs, namespace, a Biolink category by namespace (obsolete terms only as
    ``Records.retired``: a term of an earlier load that became obsolete stays findable, flagged,
    see :mod:`biokg.ingest.delta`);
  * ``IS_A``, ``PART_OF``, ``REGULATES``, ``NEGATIVELY_REGULATES``, ``POSITIVELY_REGULATES``
    edges between live terms (the go-basic relation set);
  * ``Gene`` nodes for every annotated gene product whose DB is a Gene id prefix of schema/
    (NCBIGene in the offline corpus, UniProtKB in the official goa_human.gaf): symbol, name,
    synonyms, taxon (``NCBITaxon:<id>``, the annotated object's own taxon, first of column 13);
  * ``ANNOTATED_WITH`` edges Gene -> GOTerm with the GAF 2.2 relation, ``negated`` (a ``NOT|``
    qualifier is kept as ``negated=True``, never dropped or flipped: a curated "does not" is
    information), the aspect letter (P/F/C), GO evidence codes and references. Lines asserting
    the same (gene, term, relation, negated) are merged into one edge, evidence unioned.

Dropped (counted, reported once per load at INFO): obsolete terms; OBO relations of other types
or touching an obsolete term; annotations to GO ids absent from the ontology or obsolete;
annotations of objects whose DB is not a Gene prefix (ComplexPortal complexes, RNAcentral
ncRNAs). With/From, annotation extensions, gene product form ids and assigned-by are not used.

Malformed input is an error, never skipped (see :mod:`biokg.ingest.formats.gaf` for the GAF checks);
each message names the file, line and offending value.
"""

from __future__ import annotations

import gzip
import logging
import shutil
from pathlib import Path

import polars as pl

from biokg.core.curie import normalize_prefix
from biokg.errors import BiokgError, SourceFormatError
from biokg.ingest.formats.gaf import ASPECTS as ASPECTS
from biokg.ingest.formats.gaf import EVIDENCE_TO_ECO as EVIDENCE_TO_ECO
from biokg.ingest.formats.gaf import GAF_COLUMNS as GAF_COLUMNS
from biokg.ingest.formats.gaf import GAF_RELATIONS as GAF_RELATIONS
from biokg.ingest.formats.gaf import GAF_USED as GAF_USED
from biokg.ingest.formats.gaf import gaf_header, read_gaf
from biokg.ingest.formats.obo import read_obo, retired_terms
from biokg.ingest.formats.tabular import header_lines
from biokg.ingest.offline.go_corpus import build_offline_corpus
from biokg.ingest.online.download import download
from biokg.ingest.records import (
    Records,
    Release,
    finalize_edges,
    node_columns,
    provenance_columns,
    sources_column,
)
from biokg.ingest.sources.base import Fetched, SourceInfo, Upstream, fetched, json_field
from biokg.schema import GraphSchema, load_schema

log = logging.getLogger(__name__)

OBO_FILE = "go-basic.obo"
GAF_FILE = "goa_human.gaf"

_OBO_URL = "https://current.geneontology.org/ontology/go-basic.obo"
_GAF_URL = "https://current.geneontology.org/annotations/goa_human.gaf.gz"

SOURCE = SourceInfo(
    name="go",
    infores="infores:go",
    license="https://creativecommons.org/licenses/by/4.0/",
    urls={OBO_FILE: _OBO_URL, GAF_FILE: _GAF_URL},
    # the release date current.geneontology.org publishes; mirrors serve the GAF packed
    upstream=Upstream(
        "https://current.geneontology.org/metadata/release-date.json",
        "release-date.json",
        json_field("date"),
        (OBO_FILE, GAF_FILE + ".gz"),
        {OBO_FILE: _OBO_URL, GAF_FILE + ".gz": _GAF_URL},
    ),
    schedule="0 4 3 * *",  # monthly releases: on the 3rd
    # A full release (2022-07-01 GO.db: 43,558 live terms; goa_human: ~19.5k proteins, ~600k
    # lines; org.Hs.eg.db: ~20k genes, ~300k distinct annotations). Wide enough for a few years
    # of releases, tight enough to catch a truncated file.
    bounds={
        "nodes:GOTerm": (35_000, 60_000),
        "nodes:Gene": (15_000, 40_000),
        "edges:IS_A": (50_000, 100_000),
        "edges:PART_OF": (5_000, 15_000),
        "edges:REGULATES": (2_000, 6_000),
        "edges:NEGATIVELY_REGULATES": (1_500, 5_000),
        "edges:POSITIVELY_REGULATES": (1_500, 5_000),
        "edges:ANNOTATED_WITH": (200_000, 1_000_000),
    },
)

# OBO namespace -> Biolink category (https://biolink.github.io/biolink-model/); terms with
# another namespace get the GOTerm category of schema/nodes.yaml.
NAMESPACE_CATEGORIES = {
    "biological_process": "biolink:BiologicalProcess",
    "molecular_function": "biolink:MolecularActivity",
    "cellular_component": "biolink:CellularComponent",
}

# OBO relation (is_a or relationship typedef, as in go-basic.obo) -> relationship type.
OBO_EDGE_TYPES = {
    rel: rel.upper()
    for rel in ("is_a", "part_of", "regulates", "negatively_regulates", "positively_regulates")
}


def fetch(
    cache_dir: Path,
    *,
    data_dir: Path | None = None,
    offline: bool = True,
    corpus_dir: Path | None = None,
) -> Fetched:
    """Local copies of go-basic.obo and goa_human.gaf, with checksums and the release version.

    Args:
        cache_dir: download and Debian package cache.
        data_dir: take ``go-basic.obo`` and ``goa_human.gaf`` from this folder as they are.
        offline: without ``data_dir``, render the files from Debian's Bioconductor GO.db and
            org.Hs.eg.db (:func:`biokg.ingest.corpus.build_offline_corpus`) instead of
            downloading them from geneontology.org.
        corpus_dir: where the offline corpus is written (default ``cache_dir/go-corpus``).

    Returns:
        :class:`Fetched` keyed by ``go-basic.obo`` and ``goa_human.gaf`` (plain text: the
        downloaded ``.gaf.gz`` is decompressed here, so parse and citations see one file).

    Raises:
        ConfigError: a file is missing from ``data_dir``.
        BiokgError: the Debian packages of the offline corpus cannot be fetched.
        FetchError: a download failed after retries (retryable).
        SourceFormatError: the files carry no release version.
    """
    cache_dir = Path(cache_dir)
    if data_dir is not None:
        files = SOURCE.files_in(data_dir)
    elif offline:
        paths = build_offline_corpus(cache_dir, corpus_dir or cache_dir / "go-corpus")
        files = {OBO_FILE: paths["go_basic_obo"], GAF_FILE: paths["goa_human_gaf"]}
    else:
        target = cache_dir / "go"
        files = {name: download(url, target) for name, url in SOURCE.urls.items()}
        files[GAF_FILE] = _gunzip(files[GAF_FILE], target / GAF_FILE)
    return fetched(files, discover_version(files))


def discover_version(files: dict[str, Path]) -> str:
    """The GO release: go-basic.obo's ``data-version: releases/<date>``, else the GAF's date.

    Raises:
        SourceFormatError: neither header carries a version.
    """
    for line in header_lines(files[OBO_FILE], stop=lambda s: s.startswith("[")):
        if line.startswith("data-version:"):
            return line.partition(":")[2].strip().removeprefix("releases/")
    gaf = gaf_header(files[GAF_FILE])
    if gaf.get("date-generated"):
        return gaf["date-generated"][:10]
    raise SourceFormatError(
        f"{files[OBO_FILE]}: no 'data-version:' header, and {files[GAF_FILE]} has no "
        "'!date-generated:' header; cannot tell which GO release this is"
    )


def parse(fetched: Fetched) -> dict[str, pl.DataFrame]:
    """Read go-basic.obo and the GAF into ``terms``, ``relations`` and ``annotations`` frames.

    ``relations`` and ``annotations`` carry ``source_record`` (``<file name>#L<line>``);
    annotation values are checked against the GAF 2.2 vocabularies before anything is returned.

    Raises:
        BiokgError: ``fetched`` lacks one of the two files.
        SourceFormatError: bad OBO or GAF (encoding, truncation, column count, missing
            ``!gaf-version: 2.x``, unknown aspect/qualifier/evidence code, malformed GO id or
            taxon); the message names the file, line and value.
    """
    missing = [name for name in (OBO_FILE, GAF_FILE) if name not in fetched.files]
    if missing:
        raise BiokgError(f"go: parse needs {missing}; fetched only {sorted(fetched.files)}")
    obo_path, gaf_path = fetched.files[OBO_FILE], fetched.files[GAF_FILE]
    ontology = read_obo(obo_path)
    relations = ontology.relations.with_columns(_record_column(obo_path.name))
    return {
        "terms": ontology.terms,
        "relations": relations,
        "annotations": read_gaf(gaf_path).with_columns(_record_column(gaf_path.name)),
    }


def normalize(frames: dict[str, pl.DataFrame], *, release: Release) -> Records:
    """GOTerm and Gene nodes, ontology edges and ANNOTATED_WITH edges, sorted and deduplicated.

    Raises:
        SchemaError: schema/ lacks a label or type used here.
    """
    schema = load_schema()
    dropped: dict[str, int] = {}
    terms = frames["terms"].filter(~pl.col("obsolete"))
    dropped["obsolete terms"] = frames["terms"].height - terms.height
    live = terms["id"].implode()
    edges = _ontology_edges(frames["relations"], live, release, schema, dropped)
    genes, annotations = _annotations(frames["annotations"], live, release, schema, dropped)
    edges["ANNOTATED_WITH"] = annotations
    log.info(
        "go %s: dropped %s",
        release.version,
        ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items())),
    )
    return Records(
        nodes={"GOTerm": _go_terms(terms, release, schema), "Gene": genes},
        edges=edges,
        retired={"GOTerm": retired_terms(frames["terms"])},
    )


# --- parsing helpers ----------------------------------------------------------------------


def _gunzip(source: Path, target: Path) -> Path:
    if target.is_file() and target.stat().st_mtime_ns >= source.stat().st_mtime_ns:
        return target
    partial = target.with_name(target.name + ".part")
    with gzip.open(source, "rb") as src, open(partial, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
    partial.replace(target)
    return target


def _record_column(file_name: str) -> pl.Expr:
    return pl.format("{}#L{}", pl.lit(file_name), pl.col("line")).alias("source_record")


# --- normalizing helpers ------------------------------------------------------------------


def _go_terms(terms: pl.DataFrame, release: Release, schema: GraphSchema) -> pl.DataFrame:
    default = schema.label("GOTerm").category
    return terms.sort("id").select(
        "id",
        "name",
        pl.col("definition").alias("description"),
        "synonyms",
        "xrefs",
        "namespace",
        pl.col("namespace").replace_strict(NAMESPACE_CATEGORIES, default=default).alias("category"),
        sources_column(release),
    )


def _ontology_edges(
    relations: pl.DataFrame,
    live: pl.Series,
    release: Release,
    schema: GraphSchema,
    dropped: dict[str, int],
) -> dict[str, pl.DataFrame]:
    known = relations.filter(pl.col("predicate").is_in(list(OBO_EDGE_TYPES)))
    dropped["OBO relations of other types"] = relations.height - known.height
    kept = known.filter(pl.col("subject").is_in(live) & pl.col("object").is_in(live))
    dropped["OBO relations touching obsolete terms"] = known.height - kept.height
    edges = {}
    for predicate, rel_type in OBO_EDGE_TYPES.items():
        frame = kept.filter(pl.col("predicate") == predicate).sort("subject", "object", "line")
        frame = frame.select(
            "subject",
            "object",
            pl.lit("GOTerm").alias("subject_label"),
            pl.lit("GOTerm").alias("object_label"),
            *provenance_columns(release),
            "source_record",
        )
        edges[rel_type] = finalize_edges(frame, rel_type, schema)
    return edges


def _annotations(
    gaf: pl.DataFrame,
    live: pl.Series,
    release: Release,
    schema: GraphSchema,
    dropped: dict[str, int],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    gene_prefixes = set(schema.label("Gene").id_prefixes)
    prefixes = {db: normalize_prefix(db) for db in gaf["db"].unique().to_list()}
    prefixes = {db: ours for db, ours in prefixes.items() if ours in gene_prefixes}
    gene_id = pl.concat_str(
        [pl.col("db").replace_strict(prefixes, default=None), pl.col("db_object_id")],
        separator=":",
    )
    rows = gaf.with_columns(gene_id.alias("subject"))
    genes_only = rows.filter(pl.col("subject").is_not_null())
    dropped["annotations of non-gene objects"] = rows.height - genes_only.height
    rows = genes_only.filter(pl.col("go_id").is_in(live))
    dropped["annotations to GO ids absent or obsolete"] = genes_only.height - rows.height
    rows = rows.sort("subject", "go_id", "qualifier", "line")
    edges = rows.select(
        "subject",
        pl.col("go_id").alias("object"),
        pl.lit("Gene").alias("subject_label"),
        pl.lit("GOTerm").alias("object_label"),
        *provenance_columns(release),
        "source_record",
        pl.col("qualifier").str.strip_prefix("NOT|").alias("relation"),
        pl.col("qualifier").str.starts_with("NOT|").alias("negated"),
        "aspect",
        pl.concat_list("evidence_code").alias("evidence"),
        _references(gaf).list.unique().list.sort(),  # as merged rows get them
    )
    merged = finalize_edges(
        edges, "ANNOTATED_WITH", schema
    )  # one per (gene, term, relation, negated)
    return _genes(rows, release), merged.sort("subject", "object", "relation", "negated")


def _references(gaf: pl.DataFrame) -> pl.Expr:
    """DB:Reference split on '|', prefixes in schema spelling where known, else kept as-is."""
    found = gaf["db_reference"].str.extract_all(r"(?:^|\|)([^|:]+):").explode().drop_nulls()
    spelling = {}
    for raw in found.str.strip_prefix("|").str.strip_suffix(":").unique().to_list():
        ours = normalize_prefix(raw)
        if ours is not None and ours != raw:
            spelling[raw] = ours
    split = pl.col("db_reference").str.split("|")
    if not spelling:
        return split.list.eval(pl.element().filter(pl.element() != "")).alias("references")
    prefix = pl.element().str.extract(r"^([^:]+):", 1)
    fixed = pl.concat_str(
        [prefix.replace_strict(spelling, default=None), pl.element().str.extract(r":(.*)$", 1)],
        separator=":",
    )
    expr = pl.when(prefix.is_in(list(spelling))).then(fixed).otherwise(pl.element())
    return split.list.eval(expr.filter(pl.element() != "")).alias("references")


def _genes(rows: pl.DataFrame, release: Release) -> pl.DataFrame:
    """One node per annotated gene; symbol/name/synonyms from its first line in the file."""
    return (
        rows.sort("line")
        .group_by("subject", maintain_order=True)
        .first()
        .sort("subject")
        .select(
            pl.col("subject").alias("id"),
            pl.col("db_object_name").replace("", None).alias("name"),
            pl.col("db_object_synonym")
            .str.split("|")
            .list.eval(pl.element().filter(pl.element() != ""))
            .alias("synonyms"),
            *node_columns("Gene", release),
            pl.col("db_object_symbol").alias("symbol"),
            pl.format("NCBITaxon:{}", pl.col("taxon").str.extract(r"^taxon:(\d+)", 1)).alias(
                "taxon"
            ),
        )
    )
