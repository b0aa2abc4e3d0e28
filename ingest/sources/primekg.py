"""PrimeKG: a precision-medicine knowledge graph of 20 sources, as typed, oriented edges.

Licence: CC0 1.0 (Harvard Dataverse doi:10.7910/DVN/IXA7BM, v2.1; cite Chandak, Huang & Zitnik,
Sci Data 2023). Its upstream sources (DrugBank, DrugCentral, SIDER, DisGeNET, CTD, Bgee) keep
their own terms. The DrugBank → ChEMBL map read alongside (UniChem via dhimmel/drugbank) is
CC BY-NC 4.0: non-commercial use only.

Format: ``kg.csv`` or ``kg_grouped.csv`` (:mod:`biokg.ingest.formats.primekg`). What happens:

1. **CURIEs restored** from ``x_source``/``y_source`` (:data:`PREFIXES`: NCBI → NCBIGene, HPO →
   HP with 7-digit padding, CTD → MESH, REACTOME → REACT, ...) and checked against the
   pattern of the prefix's bioregistry key, read from schema/prefixes.yaml. ``MONDO_grouped``
   ids (member MONDO numbers joined by ``_``, one PrimeKG node for diseases with one name)
   become one node under the first member's id, every member kept in ``xrefs`` (the disease
   bridge reads them).
2. **Mirror copies collapsed**: PrimeKG lists each undirected edge twice. Rows are keyed by
   relation, display relation and the unordered pair; the first row of a key (the direction
   PrimeKG built it in) is kept. Further rows of a key are mirror copies or exact duplicates;
   :func:`collapse` counts each.
3. **Oriented** per relation (:data:`RELATIONS`): typed relations from the declared subject
   label (drug → disease, gene → anatomy, disease → phenotype); parent-child relations as
   ``IS_A`` child → parent (PrimeKG builds them parent → child, UBERON child → parent);
   symmetric ones (drug_drug, protein_protein) with the two CURIEs sorted.
4. **Typed** onto schema/ relationship types; ``display_relation`` stays in the edge key where it
   varies (a drug's ``target``/``enzyme``/``carrier``/``transporter``: ``TARGETS.action``).

Every edge cites ``kg.csv#<row>``: the 0-based data row it was read from.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import bioregistry
import polars as pl

from biokg.errors import ConfigError, SourceFormatError
from biokg.ingest.formats.primekg import COLUMNS, ROW, read_kg
from biokg.ingest.formats.tabular import read_tsv
from biokg.ingest.online.download import download, mirrored
from biokg.ingest.records import Records, Release, finalize_edges, node_columns, provenance_columns
from biokg.ingest.sources.base import Fetched, SourceInfo, Upstream, fetched, json_field
from biokg.schema import load_schema

log = logging.getLogger(__name__)

KG_FILE = "kg.csv"
GROUPED_FILE = "kg_grouped.csv"
DRUG_MAP_FILE = "drugbank_chembl.tsv"
#: PrimeKG v2.1's kg.csv through the Dataverse access API (file id 6180620).
DATAVERSE = "https://dataverse.harvard.edu"
KG_URL = DATAVERSE + "/api/access/datafile/6180620"
DRUG_MAP_URL = "https://raw.githubusercontent.com/dhimmel/drugbank/6b9ae38/data/mapping/chembl.tsv"
RELEASE = "2.1"


def _dataset_version(body: bytes, where: str) -> str:
    """The Dataverse dataset's latest version number (:class:`Upstream` reader)."""
    major = json_field("data", "versionNumber")(body, where)
    minor = json_field("data", "versionMinorNumber")(body, where)
    return f"{major}.{minor}"


_URLS = {KG_FILE: KG_URL, DRUG_MAP_FILE: DRUG_MAP_URL}

SOURCE = SourceInfo(
    name="primekg",
    infores="infores:primekg",
    drugs=True,
    license="https://creativecommons.org/publicdomain/zero/1.0/",
    urls=_URLS,
    # PrimeKG v2.1: 4,050,249 undirected edges over 129,375 nodes; per type, the published
    # relation counts halved, with room for a few releases.
    bounds={
        "edges:EXPRESSED_IN": (1_000_000, 2_500_000),
        "edges:INTERACTS_WITH": (800_000, 2_500_000),
        "edges:HAS_PHENOTYPE": (100_000, 300_000),
        "edges:ANNOTATED_WITH": (150_000, 500_000),
        "edges:ASSOCIATED_WITH": (50_000, 150_000),
        "edges:INDICATED_FOR": (5_000, 20_000),
        "edges:CONTRAINDICATED_FOR": (20_000, 60_000),
        "nodes:Drug": (5_000, 15_000),
    },
    # Harvard Dataverse's latest version of the dataset (doi:10.7910/DVN/IXA7BM)
    upstream=Upstream(
        DATAVERSE + "/api/datasets/:persistentId/versions/:latest"
        "?persistentId=doi:10.7910/DVN/IXA7BM",
        "dataset.json",
        _dataset_version,
        tuple(_URLS),
        _URLS,
    ),
    schedule="0 5 6 1,7 *",  # rare releases: twice a year
    # the server an online fetch reads; BIOKG_PRIMEKG_URL names a mirror of its (and the
    # drug map's) paths
    rest_url=DATAVERSE,
    # the real sample (7,716 rows of kg.csv around Alzheimer's disease genes, CC0) and the
    # DrugBank → ChEMBL map (UniChem, CC BY-NC 4.0)
    shared_data={
        KG_FILE: "primekg/kg_sample_alzheimers.csv",
        DRUG_MAP_FILE: "mappings/drugbank_chembl_unichem.tsv",
    },
)


@dataclass(frozen=True)
class NodeSource:
    """How one ``x_source`` value becomes a CURIE: prefix, zero padding of the local id."""

    prefix: str
    pad: int = 0


#: ``x_source``/``y_source`` → CURIE rule (bioregistry prefixes, schema/prefixes.yaml spelling).
PREFIXES = {
    "NCBI": NodeSource("NCBIGene"),
    "HPO": NodeSource("HP", 7),
    "MONDO": NodeSource("MONDO", 7),
    "MONDO_grouped": NodeSource("MONDO", 7),
    "GO": NodeSource("GO", 7),
    "UBERON": NodeSource("UBERON", 7),
    "DrugBank": NodeSource("DRUGBANK"),
    "REACTOME": NodeSource("REACT"),
    "CTD": NodeSource("MESH"),
}
#: ``x_type`` → schema/ label
LABELS = {
    "gene/protein": "Gene",
    "disease": "Disease",
    "effect/phenotype": "Phenotype",
    "drug": "Drug",
    "exposure": "Exposure",
    "pathway": "Pathway",
    "anatomy": "Anatomy",
    "biological_process": "GOTerm",
    "molecular_function": "GOTerm",
    "cellular_component": "GOTerm",
}
#: Labels whose nodes PrimeKG defines (written, named by it); others are only referenced
#: (stubs: created with PrimeKG's name when absent, otherwise left as their source wrote them).
DEFINED = ("Disease", "Drug", "Exposure", "Pathway", "Anatomy")


@dataclass(frozen=True)
class Relation:
    """Where one PrimeKG relation lands: type, subject label, orientation, fixed properties.

    ``orient``: ``typed`` (the subject is the end with ``subject`` label), ``child_first``
    (``IS_A`` from the first row's x: UBERON), ``parent_first`` (``IS_A`` from the first row's
    y: PrimeKG's other parent-child relations), ``sorted`` (symmetric: CURIEs sorted).
    """

    type: str
    subject: str | None = None
    orient: str = "typed"
    negated: bool | None = None
    #: ``display_relation`` goes to this edge property (it varies within the relation)
    display_as: str | None = None


RELATIONS = {
    "protein_protein": Relation("INTERACTS_WITH", orient="sorted"),
    "drug_drug": Relation("INTERACTS_WITH", orient="sorted"),
    "drug_protein": Relation("TARGETS", "Drug", display_as="action"),
    "indication": Relation("INDICATED_FOR", "Drug"),
    "contraindication": Relation("CONTRAINDICATED_FOR", "Drug"),
    "off-label use": Relation("OFF_LABEL_USE_FOR", "Drug"),
    "drug_effect": Relation("HAS_SIDE_EFFECT", "Drug"),
    "disease_phenotype_positive": Relation("HAS_PHENOTYPE", "Disease", negated=False),
    "disease_phenotype_negative": Relation("HAS_PHENOTYPE", "Disease", negated=True),
    "phenotype_protein": Relation("HAS_PHENOTYPE", "Gene"),
    "disease_protein": Relation("ASSOCIATED_WITH", "Gene"),
    "bioprocess_protein": Relation("ANNOTATED_WITH", "Gene"),
    "molfunc_protein": Relation("ANNOTATED_WITH", "Gene"),
    "cellcomp_protein": Relation("ANNOTATED_WITH", "Gene"),
    "pathway_protein": Relation("PARTICIPATES_IN", "Gene"),
    "anatomy_protein_present": Relation("EXPRESSED_IN", "Gene", negated=False),
    "anatomy_protein_absent": Relation("EXPRESSED_IN", "Gene", negated=True),
    "exposure_protein": Relation("INTERACTS_WITH", "Exposure"),
    "exposure_bioprocess": Relation("INTERACTS_WITH", "Exposure"),
    "exposure_molfunc": Relation("INTERACTS_WITH", "Exposure"),
    "exposure_cellcomp": Relation("INTERACTS_WITH", "Exposure"),
    "exposure_disease": Relation("LINKED_TO", "Exposure"),
    "disease_disease": Relation("IS_A", orient="parent_first"),
    "phenotype_phenotype": Relation("IS_A", orient="parent_first"),
    "bioprocess_bioprocess": Relation("IS_A", orient="parent_first"),
    "molfunc_molfunc": Relation("IS_A", orient="parent_first"),
    "cellcomp_cellcomp": Relation("IS_A", orient="parent_first"),
    "exposure_exposure": Relation("IS_A", orient="parent_first"),
    "pathway_pathway": Relation("IS_A", orient="parent_first"),
    "anatomy_anatomy": Relation("IS_A", orient="child_first"),
}


def fetch(
    cache_dir: Path,
    *,
    data_dir: Path | None = None,
    offline: bool = True,
    base_url: str = DATAVERSE,
    shared: dict[str, Path] | None = None,
) -> Fetched:
    """PrimeKG's edge file and the DrugBank → ChEMBL map.

    Offline without ``data_dir``: the shared real sample (``shared``, from
    ``SOURCE.fetch_options(settings)``: 7,716 rows of kg.csv around Alzheimer's disease genes;
    a sample, so only upper count bounds apply) and the shared map.
    With ``data_dir``: ``kg.csv`` (or ``kg_grouped.csv``) and ``drugbank_chembl.tsv`` there.
    Online: both downloaded into the cache (conditional requests; a cut download resumes),
    from ``base_url`` when it names a mirror of the official paths
    (:func:`~biokg.ingest.online.download.mirrored`).

    Raises:
        ConfigError: a file is missing, or offline neither ``data_dir`` nor ``shared`` given.
        FetchError: a download failed.
    """
    if data_dir is not None and Path(data_dir).is_dir():
        folder = Path(data_dir)
        kg = folder / KG_FILE if (folder / KG_FILE).is_file() else folder / GROUPED_FILE
        files = {KG_FILE: kg, DRUG_MAP_FILE: folder / DRUG_MAP_FILE}
        sample = False
    elif offline:
        files, sample = dict(SOURCE.shared_sample(shared)), True
    else:
        folder = cache_dir / "primekg"
        files = {
            name: download(mirrored(url, base_url, DATAVERSE), folder)
            for name, url in SOURCE.urls.items()
        }
        sample = False
    absent = [str(path) for path in files.values() if not path.is_file()]
    if absent:
        raise ConfigError(
            f"primekg: {', '.join(absent)} not found; put kg.csv (or kg_grouped.csv, "
            f"{KG_URL}) and {DRUG_MAP_FILE} ({DRUG_MAP_URL}) there, or leave the data folder unset"
        )
    return fetched(files, discover_version(files), sample=sample)


def discover_version(files: dict[str, Path]) -> str:
    """PrimeKG's files carry no version; the release is the Dataverse dataset version read."""
    return RELEASE


def parse(fetched: Fetched) -> dict[str, pl.DataFrame]:
    """The edge rows (strings, with their row position) and the DrugBank → ChEMBL pairs.

    Raises:
        SourceFormatError: naming file and line (see :func:`biokg.ingest.formats.primekg.read_kg`).
    """
    path = fetched.files[KG_FILE]
    rows = read_kg(path)
    for side in ("x", "y"):
        _check_known(rows, f"{side}_source", PREFIXES, path)
        _check_known(rows, f"{side}_type", LABELS, path)
    _check_known(rows, "relation", RELATIONS, path)
    drug_map = read_tsv(fetched.files[DRUG_MAP_FILE], required=("drugbank_id", "chembl_id"))
    return {"edges": rows, "drug_map": drug_map.select("drugbank_id", "chembl_id")}


def _check_known(rows: pl.DataFrame, column: str, known: dict, path: Path) -> None:
    unknown = sorted(set(rows[column].unique().drop_nulls().cast(pl.String)) - set(known))
    if unknown:
        bad = rows.filter(pl.col(column).cast(pl.String).is_in(unknown))
        raise SourceFormatError(
            f"{path}:{bad[ROW][0] + 2}: unknown {column} {bad[column][0]!r} ({bad.height} rows); "
            f"known: {', '.join(known)}"
        )


def normalize(frames: dict[str, pl.DataFrame], *, release: Release) -> Records:
    """Oriented, typed, deduplicated edges and the nodes they join (module docstring).

    Raises:
        SourceFormatError: an id that is not valid for its prefix (file row named).
    """
    schema = load_schema()
    rows = frames["edges"]
    nodes = node_table(rows)
    kept, counts = collapse(rows, nodes)
    log.info("primekg %s: %s", release.version, counts)
    edges = orient(kept)
    records = _node_records(nodes, frames["drug_map"], release)
    defined = {label: records[label] for label in DEFINED if label in records}
    stubs = {label: frame for label, frame in records.items() if label not in DEFINED}
    typed = {}
    for rel_type, part in edges.partition_by("type", as_dict=True, maintain_order=True).items():
        rel_type = str(rel_type[0])
        props = [c for c in schema.edge_properties(rel_type) if c in part.columns]
        framed = part.select(
            "subject",
            "object",
            "subject_label",
            "object_label",
            *props,
            pl.format("kg.csv#{}", ROW).alias("source_record"),
            *provenance_columns(release),
        )
        typed[rel_type] = finalize_edges(framed, rel_type, schema).sort("subject", "object", "id")
    return Records(nodes=defined, stubs=stubs, edges=typed)


def _end_key(side: str) -> pl.Expr:
    """One integer per (source, id) of a row end, from the categoricals' codes."""
    source = pl.col(f"{side}_source").to_physical().cast(pl.UInt64)
    return source * (1 << 32) + pl.col(f"{side}_id").to_physical().cast(pl.UInt64)


def node_table(rows: pl.DataFrame) -> pl.DataFrame:
    """Every distinct node the rows name, with its CURIE restored (module docstring): ``key``
    (:func:`_end_key`), ``curie``, ``label``, ``name`` (its first row's), ``members`` (grouped
    diseases), ``code`` (CURIE rank) and ``end`` (row number in this table).

    Raises:
        SourceFormatError: an id that does not match its prefix's bioregistry pattern.
    """
    ends = pl.concat(
        [
            rows.select(
                _end_key(side).alias("key"),
                pl.col(f"{side}_source").cast(pl.String).alias("source"),
                pl.col(f"{side}_id").cast(pl.String).alias("raw"),
                pl.col(f"{side}_type").cast(pl.String).alias("type"),
                pl.col(f"{side}_name").cast(pl.String).alias("name"),
                pl.col(ROW),
            )
            for side in ("x", "y")
        ]
    ).unique("key", keep="first", maintain_order=True)
    source, raw = pl.col("source"), pl.col("raw")
    members = raw.str.split("_")
    local = pl.when(source == "MONDO_grouped").then(members.list.first()).otherwise(raw)
    curie = pl.lit(None, pl.String)
    for name, rule in PREFIXES.items():
        padded = local.str.zfill(rule.pad) if rule.pad else local
        curie = (
            pl.when(source == name)
            .then(pl.concat_str(pl.lit(rule.prefix + ":"), padded))
            .otherwise(curie)
        )
    grouped = members.list.eval(pl.concat_str(pl.lit("MONDO:"), pl.element().str.zfill(7)))
    ends = ends.with_columns(
        curie.alias("curie"),
        pl.col("type").replace_strict(LABELS).alias("label"),
        pl.when(source == "MONDO_grouped").then(grouped).otherwise(None).alias("members"),
    )
    _check_patterns(ends)
    code = pl.col("curie").rank("dense").cast(pl.UInt64).alias("code")
    return ends.with_columns(code).with_row_index("end")


def _check_patterns(ends: pl.DataFrame) -> None:
    prefix = pl.col("curie").str.split_exact(":", 1).struct.field("field_0")
    local = pl.col("curie").str.split_exact(":", 1).struct.field("field_1")
    keys = load_schema().prefixes  # our prefix → its bioregistry key
    for ours in dict.fromkeys(rule.prefix for rule in PREFIXES.values()):
        pattern = bioregistry.get_pattern(keys[ours])
        bad = ends.filter((prefix == ours) & ~local.str.contains(pattern))
        if bad.height:
            raise SourceFormatError(
                f"{KG_FILE} row {bad[ROW][0]} (line {bad[ROW][0] + 2}): {bad['source'][0]} id "
                f"{bad['raw'][0]!r} is not a valid {ours} id (pattern {pattern}; "
                f"{bad.height} such ids)"
            )
    members = ends["members"].explode().drop_nulls()
    wrong = members.filter(~members.str.contains(r"^MONDO:\d{7}$"))
    if wrong.len():
        raise SourceFormatError(f"{KG_FILE}: MONDO_grouped member {wrong[0]!r} is invalid")


def collapse(rows: pl.DataFrame, nodes: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, int]]:
    """The first row of each (relation, display relation, unordered pair), and the counts.

    Rows are keyed on integers (node codes and the relation's code), not strings: 8.1M rows
    collapse in seconds and little memory. The kept rows get their CURIEs, labels and members.

    Counts: ``rows`` read; ``exact duplicates`` (a row repeating an earlier row's relation,
    display relation, x and y); ``mirror copies`` (the reverse of a kept row); ``unpaired``
    (kept rows whose reverse is absent; 0 in a complete kg.csv); ``edges`` kept.
    """
    n = int(nodes["code"].max() or 0) + 1
    relation = pl.col("relation").to_physical().cast(pl.UInt64) * (1 << 32)
    keys = rows.select(
        (relation + pl.col("display_relation").to_physical().cast(pl.UInt64)).alias("rd"),
        _end_key("x").replace_strict(nodes["key"], nodes["end"]).alias("x_end"),
        _end_key("y").replace_strict(nodes["key"], nodes["end"]).alias("y_end"),
    )
    code = pl.lit(nodes["code"])
    keys = keys.with_columns(
        pl.col("rd").rank("dense").cast(pl.UInt64),
        code.gather(pl.col("x_end")).alias("x"),
        code.gather(pl.col("y_end")).alias("y"),
    )
    low, high = pl.min_horizontal("x", "y"), pl.max_horizontal("x", "y")
    marks = keys.select(
        ((pl.col("rd") * n + pl.col("x")) * n + pl.col("y")).is_first_distinct().alias("first"),
        ((pl.col("rd") * n + low) * n + high).alias("pair"),
        "x_end",
        "y_end",
    )
    del keys
    directed = int(marks["first"].sum())
    unpaired = marks.filter("first").select(pl.col("pair").is_unique().sum()).item()
    kept = pl.concat([rows, marks.select("x_end", "y_end")], how="horizontal").filter(
        marks["pair"].is_first_distinct()
    )
    kept = kept.with_columns(pl.col(c).cast(pl.String) for c in COLUMNS)
    for side in ("x", "y"):
        at = pl.col(f"{side}_end")
        kept = kept.with_columns(
            pl.lit(nodes[column]).gather(at).alias(f"{side}_{column}")
            for column in ("curie", "label", "members")
        )
    counts = {
        "rows": rows.height,
        "exact duplicates": rows.height - directed,
        "mirror copies": directed - kept.height,
        "unpaired": int(unpaired),
        "edges": kept.height,
    }
    return kept.drop("x_end", "y_end"), counts


def orient(kept: pl.DataFrame) -> pl.DataFrame:
    """Subject/object per :data:`RELATIONS`, with the edge type and its fixed properties."""
    spec = pl.DataFrame(
        [
            {
                "relation": name,
                "type": rel.type,
                "subject_is": rel.subject,
                "orient": rel.orient,
                "negated": rel.negated,
                "display_as": rel.display_as,
            }
            for name, rel in RELATIONS.items()
        ],
        schema={
            "relation": pl.String,
            "type": pl.String,
            "subject_is": pl.String,
            "orient": pl.String,
            "negated": pl.Boolean,
            "display_as": pl.String,
        },
    )
    frame = kept.join(spec, on="relation", how="left")
    x_first = (
        ((pl.col("orient") == "typed") & (pl.col("x_label") == pl.col("subject_is")))
        | (pl.col("orient") == "child_first")
        | ((pl.col("orient") == "sorted") & (pl.col("x_curie") <= pl.col("y_curie")))
    )
    wrong_end = frame.filter(
        (pl.col("orient") == "typed")
        & (pl.col("x_label") != pl.col("subject_is"))
        & (pl.col("y_label") != pl.col("subject_is"))
    )
    if wrong_end.height:
        raise SourceFormatError(
            f"{KG_FILE} row {wrong_end[ROW][0]}: relation {wrong_end['relation'][0]!r} joins "
            f"{wrong_end['x_type'][0]} and {wrong_end['y_type'][0]}, neither a "
            f"{wrong_end['subject_is'][0]}"
        )

    def pick(x: str, y: str) -> pl.Expr:
        return pl.when(x_first).then(pl.col(x)).otherwise(pl.col(y))

    return frame.select(
        ROW,
        "type",
        pick("x_curie", "y_curie").alias("subject"),
        pick("y_curie", "x_curie").alias("object"),
        pick("x_label", "y_label").alias("subject_label"),
        pick("y_label", "x_label").alias("object_label"),
        "negated",
        pl.when(pl.col("display_as") == "action").then(pl.col("display_relation")).alias("action"),
    )


def _node_records(
    nodes: pl.DataFrame, drug_map: pl.DataFrame, release: Release
) -> dict[str, pl.DataFrame]:
    """One node per CURIE: PrimeKG's name; grouped diseases' members and drugs' ChEMBL ids as
    xrefs (the bridge and drug identity read them)."""
    nodes = nodes.select(pl.col("curie").alias("id"), "label", "name", "members").unique(
        "id", keep="first", maintain_order=True
    )
    chembl = drug_map.select(
        pl.concat_str(pl.lit("DRUGBANK:"), "drugbank_id").alias("id"),
        pl.concat_str(pl.lit("CHEMBL.COMPOUND:"), "chembl_id").alias("ref"),
    )
    chembl = chembl.group_by("id").agg(pl.col("ref").unique().sort())
    nodes = nodes.join(chembl, on="id", how="left").with_columns(
        pl.concat_list(
            pl.col("members").fill_null(pl.lit([], pl.List(pl.String))),
            pl.col("ref").fill_null(pl.lit([], pl.List(pl.String))),
        )
        .list.set_difference(pl.concat_list("id"))
        .list.sort()
        .alias("xrefs")
    )
    out = {}
    for label, part in nodes.partition_by("label", as_dict=True, maintain_order=True).items():
        label = str(label[0])
        columns = [pl.col("id"), pl.col("name")]
        if label == "Gene":
            columns.append(pl.col("name").alias("symbol"))
        if label in ("Disease", "Drug"):
            columns.append(pl.col("xrefs"))
        columns += node_columns(label, release)
        out[label] = part.select(columns).sort("id")
    return out
