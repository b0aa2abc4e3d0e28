"""KEGG: human pathways with their genes and KGML signalling topology, drugs and diseases.

Licence: KEGG is free for academic use only, through the REST API at most 3 requests a second;
it may not be redistributed or bulk downloaded (https://www.kegg.jp/kegg/legal.html). So it is
opt-in: ``default=False`` and :data:`SOURCE` ``license_terms``, which the build asks the user to
accept (``biokg build --sources kegg --accept-kegg-license`` or ``BIOKG_KEGG_ACCEPT_LICENSE=1``).
Nothing of it ships with biokg; tests use hand-written fixtures in the real formats.

Input: a snapshot folder of REST answers under their request paths
(:mod:`biokg.ingest.online.kegg` fetches one, throttled and resumable; formats in
:mod:`biokg.ingest.formats.kegg`, read into frames by :mod:`biokg.ingest.formats.kegg_tables`).
Kept:

* ``Pathway`` ``KEGG.PATHWAY:hsa04010`` (``list/pathway/hsa`` names without the organism
  suffix; PATHWAY entries' DESCRIPTION and CLASS);
* genes as ``NCBIGene`` stubs (KEGG's human gene ids are NCBI Gene ids, checked through
  ``conv/ncbi-geneid/hsa``; symbols from PATHWAY GENE lines, ``UniProtKB`` xrefs from
  ``conv/uniprot/hsa``): created when absent, never renamed;
* ``PARTICIPATES_IN`` gene → pathway (``link/pathway/hsa``) and drug → pathway (PATHWAY DRUG);
* ``Drug`` ``KEGG.DRUG:D00109`` (NAME: the first name, pharmacopoeia tags such as ``(JP18/USP)``
  dropped; ``(TN)`` names are brand names; EFFICACY as description; DBLINKS ChEMBL and
  DrugBank as xrefs, through which the build's drug identity puts it on the ChEMBL node);
  ``TARGETS`` drug → gene (``link/hsa/drug`` and DRUG TARGET lines, whose text is ``mechanism``);
* ``Disease`` ``KEGG.DISEASE:H00056`` (NAME, DESCRIPTION); ``ASSOCIATED_WITH`` gene → disease
  (``link/disease/hsa``, DISEASE GENE lines); ``INDICATED_FOR`` drug → disease (DISEASE DRUG);
  ``SAME_AS`` KEGG disease → each DBLINKS OMIM / MeSH record (``mapping_set`` KEGG DISEASE
  DBLINKS). The records are stubs, named by KEGG when no other source holds them; a KEGG
  disease that names several records of one database joins them ``grouped`` (reached, never
  crossed), as PrimeKG's groups do (docs/decisions/0013-kegg.md);
* KGML ``PPrel``/``GErel`` relations between gene entries (groups expanded to their
  components, multi-gene entries to each gene) as ``ACTIVATES`` (sign +1: activation,
  expression), ``INHIBITS`` (sign -1: inhibition, repression) or ``SIGNALS_TO`` (no sign:
  binding, phosphorylation, indirect effect ...), with ``subtypes``, ``sign``, ``relation`` and
  the ``pathway`` they are drawn in (one edge per pathway).

Dropped, counted in the load's log line: ``ECrel``/``PCrel`` relations and relation ends that
are compounds, maps or orthologs (no gene-to-gene meaning); genes without an NCBI Gene id; edges
to drugs without a DRUG entry; REL_PATHWAY and disease PATHWAY fields (no schema type);
DBLINKS other than ChEMBL, DrugBank, OMIM, MeSH (no schema prefix).

Every edge cites the answer it came from: ``<REST URL>#line=<n>`` (RFC 5147), e.g.
``https://rest.kegg.jp/get/dr:D00109#line=12`` or ``.../get/hsa04010/kgml#line=230``.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path

import polars as pl

from biokg.errors import ConfigError, SourceFormatError
from biokg.ingest.formats import kegg as fmt
from biokg.ingest.formats.kegg_tables import INFO, LISTS, MANIFEST, read_snapshot
from biokg.ingest.online.kegg import REST_URL, fetch_snapshot, release_of
from biokg.ingest.records import Records, Release, finalize_edges, node_columns, provenance_columns
from biokg.ingest.sources.base import Fetched, SourceInfo, Upstream, fetched
from biokg.schema import GraphSchema, load_schema

log = logging.getLogger(__name__)


def _release_marker(body: bytes, where: str) -> str:
    """The release an ``info/kegg`` answer names (:class:`Upstream` marker reader)."""
    return release_of(body.decode(errors="replace"), where)


SOURCE = SourceInfo(
    name="kegg",
    infores="infores:kegg",
    drugs=True,
    license="https://www.kegg.jp/kegg/legal.html",
    urls={path: f"{REST_URL}/{path}" for path in (INFO, *LISTS.values())},
    # the REST API's info/kegg: its "Release ..." line
    upstream=Upstream(f"{REST_URL}/info/kegg", "info/kegg", _release_marker),
    schedule=None,  # opt-in: by hand, once its terms are accepted
    # KEGG 113 (2025): ~370 human pathways, ~40k gene-pathway links, ~2,800 diseases
    bounds={
        "nodes:Pathway": (300, 1_000),
        "nodes:Disease": (500, 10_000),
        "nodes:Drug": (1_000, 20_000),
        "edges:PARTICIPATES_IN": (20_000, 300_000),
        "edges:ACTIVATES": (2_000, 1_000_000),
        "edges:INHIBITS": (500, 1_000_000),
    },
    default=False,
    rest_url=REST_URL,
    license_terms=(
        "KEGG is free for academic use only; it may not be redistributed or bulk downloaded, "
        "and its REST API allows at most 3 requests a second (https://www.kegg.jp/kegg/legal.html)"
    ),
)

#: KGML relation subtypes that give a signed effect (https://www.kegg.jp/kegg/xml/docs/, 2.2.3).
SIGNS = {"activation": 1, "expression": 1, "inhibition": -1, "repression": -1}
#: Every KGML subtype name; others are kept as written and counted as unknown.
SUBTYPES = frozenset(
    {
        *SIGNS,
        "indirect effect",
        "state change",
        "binding/association",
        "dissociation",
        "missing interaction",
        "phosphorylation",
        "dephosphorylation",
        "glycosylation",
        "ubiquitination",
        "methylation",
        "compound",
        "hidden compound",
    }
)
#: By sign, the edge type of a KGML relation.
SIGNED_TYPES = {1: "ACTIVATES", -1: "INHIBITS", 0: "SIGNALS_TO"}
DBLINKS_SET = "KEGG DISEASE DBLINKS"
#: KEGG curates its DBLINKS by hand (SSSOM's justification vocabulary, semapv).
DBLINKS_JUSTIFICATION = "semapv:ManualMappingCuration"


def fetch(
    cache_dir: Path,
    *,
    data_dir: Path | None = None,
    offline: bool = True,
    base_url: str = REST_URL,
) -> Fetched:
    """A KEGG snapshot folder: ``data_dir``, else the newest complete one in the cache (offline),
    else fetched from ``base_url`` (throttled, resuming what the cache holds).

    Raises:
        ConfigError: ``data_dir`` is not a snapshot.
        FetchError, BlockedError: the REST fetch failed (a rerun resumes it).
    """
    if data_dir is not None:
        folder = Path(data_dir)
    else:
        complete = sorted((Path(cache_dir) / "kegg").glob(f"*/{MANIFEST}"))
        if offline and complete:
            folder = max(complete, key=lambda p: p.stat().st_mtime).parent
        else:
            folder = fetch_snapshot(cache_dir, base_url=base_url)
    missing = [p for p in (MANIFEST, INFO, *LISTS.values()) if not (folder / p).is_file()]
    if missing:
        raise ConfigError(
            f"kegg: {folder} is not a KEGG snapshot ({', '.join(missing)} missing); fetch one "
            "with `biokg build --sources kegg --accept-kegg-license`"
        )
    files = {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.endswith(".part")
    }
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    return fetched(files, discover_version(files), sample=bool(manifest.get("sample")))


def discover_version(files: dict[str, Path]) -> str:
    """The release ``info/kegg`` names (``113.0+/01-12``)."""
    return release_of(files[INFO].read_text(encoding="utf-8"), str(files[INFO]))


def parse(fetched: Fetched) -> dict[str, pl.DataFrame]:
    """The snapshot's answers as frames (:func:`~biokg.ingest.formats.kegg_tables.read_snapshot`),
    each row citing the REST URL and line it came from.

    Raises:
        SourceFormatError: a malformed answer, naming its file, URL and line.
    """
    manifest = json.loads(fetched.files[MANIFEST].read_text(encoding="utf-8"))
    return read_snapshot(fetched.files, manifest.get("base_url") or REST_URL)


def normalize(frames: dict[str, pl.DataFrame], *, release: Release) -> Records:
    """Nodes and edges of a snapshot (module docstring); dropped rows are counted and logged.

    Raises:
        SourceFormatError: an NCBI Gene id that is not a number.
    """
    dropped: Counter[str] = Counter()
    genes = _gene_ids(frames["ncbi"])

    def on_genes(frame: pl.DataFrame, *columns: str) -> pl.DataFrame:
        for column in columns:
            kept = frame.join(genes, left_on=column, right_on="hsa", how="inner")
            dropped["rows naming a gene without an NCBI Gene id"] += frame.height - kept.height
            frame = kept.drop(column).rename({"ncbigene": column})
        return frame

    def among(frame: pl.DataFrame, column: str, ids: pl.Series, what: str) -> pl.DataFrame:
        kept = frame.filter(pl.col(column).is_in(ids.implode()))
        dropped[what] += frame.height - kept.height
        return kept

    pathways, drugs, diseases = _pathways(frames), _drugs(frames), _diseases(frames)
    curie = pl.concat_str
    gene_pathway = on_genes(frames["gene_pathways"], "left").select(
        pl.col("left").alias("subject"),
        curie(pl.lit("KEGG.PATHWAY:"), "right").alias("object"),
        "record",
    )
    drug_pathway = frames["pathway_drugs"].select(
        curie(pl.lit("KEGG.DRUG:"), "drug").alias("subject"),
        curie(pl.lit("KEGG.PATHWAY:"), "pathway").alias("object"),
        "record",
    )
    targets = pl.concat(
        [
            frames["drug_targets"],
            frames["drug_genes"].select(
                pl.col("left").alias("drug"),
                pl.col("right").alias("gene"),
                pl.lit(None, pl.String).alias("mechanism"),
                "record",
            ),
        ]
    )
    targets = on_genes(targets, "gene").select(
        curie(pl.lit("KEGG.DRUG:"), "drug").alias("subject"),
        pl.col("gene").alias("object"),
        "mechanism",
        "record",
    )
    associated = pl.concat(
        [
            frames["gene_diseases"].select(
                pl.col("left").alias("gene"), pl.col("right").alias("disease"), "record"
            ),
            frames["disease_genes"].select("gene", "disease", "record"),
        ]
    )
    associated = on_genes(associated, "gene").select(
        pl.col("gene").alias("subject"),
        curie(pl.lit("KEGG.DISEASE:"), "disease").alias("object"),
        "record",
    )
    indicated = frames["disease_drugs"].select(
        curie(pl.lit("KEGG.DRUG:"), "drug").alias("subject"),
        curie(pl.lit("KEGG.DISEASE:"), "disease").alias("object"),
        "record",
    )
    same_as = _same_as(frames["disease_links"])
    regulation = _regulation(on_genes(frames["regulation"], "subject", "object"), dropped)
    pathway_ids, drug_ids, disease_ids = pathways["id"], drugs["id"], diseases["id"]
    edges = {
        "PARTICIPATES_IN": (
            pl.concat(
                [
                    among(
                        gene_pathway, "object", pathway_ids, "links to unlisted pathways"
                    ).with_columns(pl.lit("Gene").alias("subject_label")),
                    among(
                        drug_pathway, "subject", drug_ids, "edges to drugs without an entry"
                    ).with_columns(pl.lit("Drug").alias("subject_label")),
                ]
            ),
            "Pathway",
        ),
        "TARGETS": (among(targets, "subject", drug_ids, "edges to drugs without an entry"), "Gene"),
        "ASSOCIATED_WITH": (
            among(associated, "object", disease_ids, "edges to diseases without an entry"),
            "Disease",
        ),
        "INDICATED_FOR": (
            among(
                among(indicated, "subject", drug_ids, "edges to drugs without an entry"),
                "object",
                disease_ids,
                "edges to diseases without an entry",
            ),
            "Disease",
        ),
        "SAME_AS": (among(same_as, "subject", disease_ids, "links of absent diseases"), "Disease"),
        **{rel: (frame, "Gene") for rel, frame in regulation.items()},
    }
    subject_labels = {"TARGETS": "Drug", "INDICATED_FOR": "Drug", "SAME_AS": "Disease"}
    schema = load_schema()
    typed = {}
    for rel_type, (frame, object_label) in edges.items():
        if "subject_label" not in frame.columns:
            frame = frame.with_columns(
                pl.lit(subject_labels.get(rel_type, "Gene")).alias("subject_label")
            )
        typed[rel_type] = _finalize(frame, rel_type, object_label, release, schema)
    log.info(
        "kegg %s: dropped %s", release.version, {k: n for k, n in sorted(dropped.items()) if n}
    )
    nodes = {
        "Pathway": pathways.with_columns(*node_columns("Pathway", release)),
        "Drug": drugs.with_columns(*node_columns("Drug", release)),
        "Disease": diseases.with_columns(*node_columns("Disease", release)),
    }
    stubs = {
        "Gene": _gene_stubs(typed, frames, genes, release),
        "Disease": _record_stubs(typed["SAME_AS"], diseases, release),
    }
    return Records(nodes=nodes, stubs=stubs, edges={k: v for k, v in typed.items() if v.height})


def _finalize(
    frame: pl.DataFrame, rel_type: str, object_label: str, release: Release, schema: GraphSchema
) -> pl.DataFrame:
    props = [c for c in schema.edge_properties(rel_type) if c in frame.columns]
    framed = frame.select(
        "subject",
        "object",
        "subject_label",
        pl.lit(object_label).alias("object_label"),
        *props,
        pl.col("record").alias("source_record"),
        *provenance_columns(release),
    )
    return finalize_edges(framed, rel_type, schema).sort("subject", "object", "id")


def _gene_ids(ncbi: pl.DataFrame) -> pl.DataFrame:
    """KEGG human gene id → ``NCBIGene`` CURIE, from ``conv/ncbi-geneid/hsa``.

    Raises:
        SourceFormatError: an NCBI Gene id that is not a number.
    """
    bad = ncbi.filter(~pl.col("right").str.contains(r"^\d+$"))
    if bad.height:
        raise SourceFormatError(
            f"{bad['record'][0]}: {bad['right'][0]!r} is not an NCBI Gene id (digits)"
        )
    return ncbi.select(
        pl.col("left").alias("hsa"),
        pl.concat_str(pl.lit("NCBIGene:"), "right").alias("ncbigene"),
    ).unique("hsa", keep="first", maintain_order=True)


def _pathways(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    listed = frames["pathways"].select(
        pl.col("left").alias("key"),
        pl.col("right").map_elements(fmt.pathway_name, pl.String).alias("name"),
    )
    return (
        listed.join(frames["pathway_info"], left_on="key", right_on="id", how="left")
        .select(
            pl.concat_str(pl.lit("KEGG.PATHWAY:"), "key").alias("id"),
            "name",
            "description",
            pl.col("classes").fill_null(pl.lit([], pl.List(pl.String))),
        )
        .unique("id", keep="first", maintain_order=True)
        .sort("id")
    )


def _drugs(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    return (
        frames["drugs"]
        .with_columns(pl.concat_str(pl.lit("KEGG.DRUG:"), "id").alias("id"))
        .drop("record")
        .unique("id", keep="first", maintain_order=True)
        .sort("id")
    )


def _diseases(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    xrefs = frames["disease_links"].group_by("disease").agg(pl.col("xref").unique().sort())
    return (
        frames["diseases"]
        .join(xrefs, left_on="id", right_on="disease", how="left")
        .select(
            pl.concat_str(pl.lit("KEGG.DISEASE:"), "id").alias("id"),
            "name",
            "synonyms",
            "description",
            pl.col("xref").fill_null(pl.lit([], pl.List(pl.String))).alias("xrefs"),
        )
        .unique("id", keep="first", maintain_order=True)
        .sort("id")
    )


def _same_as(links: pl.DataFrame) -> pl.DataFrame:
    """KEGG disease → each DBLINKS record; ``grouped`` where it names several of one database
    (a KEGG disease broader than each: reached, never crossed)."""
    prefix = pl.col("xref").str.split(":").list.first()
    return links.unique(["disease", "xref"], keep="first", maintain_order=True).select(
        pl.concat_str(pl.lit("KEGG.DISEASE:"), "disease").alias("subject"),
        pl.col("xref").alias("object"),
        pl.lit(DBLINKS_SET).alias("mapping_set"),
        pl.lit(DBLINKS_JUSTIFICATION).alias("justification"),
        (pl.len().over("disease", prefix) > 1).alias("grouped"),
        "record",
    )


def _regulation(rows: pl.DataFrame, dropped: Counter[str]) -> dict[str, pl.DataFrame]:
    """KGML gene-gene rows split by sign into ACTIVATES / INHIBITS / SIGNALS_TO."""
    unknown = rows["subtypes"].explode().drop_nulls().unique()
    unknown = unknown.filter(~unknown.is_in(list(SUBTYPES)))
    if unknown.len():
        dropped[f"unknown KGML subtypes kept unsigned: {', '.join(sorted(unknown))}"] += 1
    positive = (
        pl.col("subtypes")
        .list.eval(pl.element().is_in([s for s, v in SIGNS.items() if v > 0]))
        .list.any()
    )
    negative = (
        pl.col("subtypes")
        .list.eval(pl.element().is_in([s for s, v in SIGNS.items() if v < 0]))
        .list.any()
    )
    sign = pl.when(positive & ~negative).then(1).when(negative & ~positive).then(-1).otherwise(0)
    rows = rows.with_columns(
        sign.cast(pl.Int64).alias("sign"),
        pl.concat_str(pl.lit("KEGG.PATHWAY:"), "pathway").alias("pathway"),
        pl.col("subtypes").list.unique().list.sort(),
    )
    return {
        rel_type: rows.filter(pl.col("sign") == value).with_columns(
            pl.lit("Gene").alias("subject_label")
        )
        for value, rel_type in SIGNED_TYPES.items()
    }


def _gene_stubs(
    edges: dict[str, pl.DataFrame],
    frames: dict[str, pl.DataFrame],
    genes: pl.DataFrame,
    release: Release,
) -> pl.DataFrame:
    """Every gene an edge names: KEGG's symbol as name, UniProt accessions as xrefs."""
    ends = pl.concat(
        [
            frame.filter(pl.col(f"{end}_label") == "Gene").select(pl.col(end).alias("id"))
            for frame in edges.values()
            for end in ("subject", "object")
        ]
    ).unique()
    symbols = (
        frames["symbols"]
        .join(genes, left_on="gene", right_on="hsa")
        .select(pl.col("ncbigene").alias("id"), "symbol")
    )
    uniprot = (
        frames["uniprot"]
        .join(genes, left_on="left", right_on="hsa")
        .group_by(pl.col("ncbigene").alias("id"))
        .agg(pl.concat_str(pl.lit("UniProtKB:"), "right").unique().sort().alias("xrefs"))
    )
    return (
        ends.join(symbols, on="id", how="left")
        .join(uniprot, on="id", how="left")
        .select(
            "id",
            pl.col("symbol").alias("name"),
            "symbol",
            pl.col("xrefs").fill_null(pl.lit([], pl.List(pl.String))),
            *node_columns("Gene", release),
        )
        .sort("id")
    )


def _record_stubs(same_as: pl.DataFrame, diseases: pl.DataFrame, release: Release) -> pl.DataFrame:
    """The OMIM/MeSH records KEGG diseases are the same as, named by KEGG when absent."""
    return (
        same_as.join(diseases.select("id", "name"), left_on="subject", right_on="id")
        .select(pl.col("object").alias("id"), "name")
        .unique("id", keep="first", maintain_order=True)
        .with_columns(*node_columns("Disease", release))
        .sort("id")
    )
