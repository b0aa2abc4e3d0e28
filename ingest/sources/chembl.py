"""ChEMBL: drugs, their mechanisms of action (targets) and indications, from the SQLite dump.

Licence: CC BY-SA 3.0 (https://creativecommons.org/licenses/by-sa/3.0/,
https://chembl.gitbook.io/chembl-interface-documentation/about#data-licensing).

Format: ChEMBL's SQLite release ``chembl_NN_sqlite.tar.gz`` (member
``chembl_NN/chembl_NN_sqlite/chembl_NN.db``); tables and columns as in
https://ftp.ebi.ac.uk/pub/databases/chembl/ChEMBLdb/latest/schema_documentation.html. Only the
columns of :data:`TABLES` are read; a missing table or column is an error naming both. Offline,
:func:`biokg.ingest.offline.chembl.build_chembl_sqlite` writes a small file in the same schema.

Kept:
  * ``Drug`` nodes, one per *parent* molecule (``molecule_hierarchy.parent_molregno``): name,
    SMILES, InChIKey and max_phase of the parent; synonyms, brand names (TRADE_NAME) and generic
    names (INN/USAN/BAN and the preferred name) of the parent and all its salts; the salts'
    ChEMBL ids as xrefs. Only *notable* parents are kept: a molecule of the family has a
    preferred name or a max_phase, or a mechanism or indication row (~45,000 of a release's
    2.5M molecules; the rest are screening compounds, docs/decisions/0016-release-size.md).
  * ``TARGETS`` edges Drug -> Gene for each ``drug_mechanism`` row and each protein component of
    its target: action type, mechanism text, references from ``mechanism_refs``. Gene stubs are
    ``NCBIGene`` ids (UniProt accession mapped through org.Hs.eg.db's ``uniprot`` table, which is
    read when the fetched files include it) with ``UniProtKB`` xrefs; an accession with no mapping
    stays a ``UniProtKB:<acc>`` stub (counted).
  * ``INDICATED_FOR`` edges Drug -> Disease ``MESH:<mesh_id>`` (stub named by the MeSH heading),
    ``max_phase`` = ``max_phase_for_ind``, references from ``indication_refs``. A row without
    MeSH id falls back to its EFO id (``HP:`` ids become Phenotype stubs).

Dropped (counted, logged once at INFO): mechanisms without a target or whose target has no
protein component (e.g. "unknown" or non-protein targets), indications without MeSH or usable
EFO id. Edges from a salt are attributed to its parent.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import tarfile
import zlib
from contextlib import closing
from pathlib import Path

import polars as pl

from biokg.core.curie import normalize_curie
from biokg.core.files import atomic_path
from biokg.errors import BiokgError, SourceFormatError
from biokg.ingest.offline.chembl import build_chembl_sqlite
from biokg.ingest.offline.go_corpus import ORG_HS_DB, debian_file
from biokg.ingest.online.download import download, mirrored
from biokg.ingest.records import Records, Release, finalize_edges, node_columns, provenance_columns
from biokg.ingest.sources.base import Fetched, SourceInfo, Upstream, fetched, json_field
from biokg.schema import GraphSchema, load_schema

log = logging.getLogger(__name__)

DB_FILE = "chembl.sqlite"
ORG_FILE = "org.Hs.eg.sqlite"
FTP_HOST = "https://ftp.ebi.ac.uk"
LISTING = FTP_HOST + "/pub/databases/chembl/ChEMBLdb/latest/"
CHECKSUMS = "checksums.txt"  # sha256sum lines, published beside each release's files

SOURCE = SourceInfo(
    name="chembl",
    infores="infores:chembl",
    drugs=True,
    license="https://creativecommons.org/licenses/by-sa/3.0/",
    urls={DB_FILE: LISTING + "chembl_NN_sqlite.tar.gz"},
    # the ChEMBL API's status; a mirror has the FTP layout, which the online fetch reads
    upstream=Upstream(
        "https://www.ebi.ac.uk/chembl/api/data/status.json",
        "status.json",
        json_field("chembl_db_version"),
    ),
    schedule="0 5 5 1,4,7,10 *",  # a few releases a year: quarterly
    # Rough sizes of a full release (ChEMBL 33-35: millions of molecules, ~7k mechanism rows,
    # ~50k indication rows); wide enough for a few releases, tight enough to catch a truncation.
    bounds={
        "nodes:Drug": (1_000, 3_000_000),
        "edges:TARGETS": (3_000, 30_000),
        "edges:INDICATED_FOR": (20_000, 150_000),
    },
    # the file server an online fetch reads; BIOKG_CHEMBL_URL names a mirror of its paths
    rest_url=FTP_HOST,
    parser_version="2",  # 2: Drug nodes only for notable molecules (_notable)
)

# Tables and columns read (schema documentation linked in the module docstring).
TABLES = {
    "molecule_dictionary": ("molregno", "pref_name", "chembl_id", "max_phase", "molecule_type"),
    "molecule_synonyms": ("molregno", "syn_type", "synonyms"),
    "compound_structures": ("molregno", "canonical_smiles", "standard_inchi_key"),
    "molecule_hierarchy": ("molregno", "parent_molregno"),
    "target_components": ("tid", "component_id"),
    "component_sequences": ("component_id", "component_type", "accession", "tax_id"),
    "drug_mechanism": ("mec_id", "molregno", "mechanism_of_action", "tid", "action_type"),
    "mechanism_refs": ("mec_id", "ref_type", "ref_id", "ref_url"),
    "drug_indication": (
        "drugind_id",
        "molregno",
        "max_phase_for_ind",
        "mesh_id",
        "mesh_heading",
        "efo_id",
        "efo_term",
    ),
    "indication_refs": ("drugind_id", "ref_type", "ref_id", "ref_url"),
}
# molecule_synonyms.syn_type -> Drug property (others only feed ``synonyms``).
BRAND_TYPES = ("TRADE_NAME",)
GENERIC_TYPES = ("INN", "USAN", "BAN", "JAN", "USP", "BNF")
# ref_type -> CURIE prefix for references (others keep their URL).
REF_PREFIXES = {"PubMed": "PMID", "DOI": "DOI"}


def fetch(
    cache_dir: Path,
    *,
    data_dir: Path | None = None,
    offline: bool = True,
    base_url: str = FTP_HOST,
) -> Fetched:
    """A local ChEMBL SQLite (plus org.Hs.eg.db for UniProt -> NCBIGene), with the version.

    Args:
        cache_dir: download, Debian package and offline-build cache.
        data_dir: take ``chembl.sqlite`` (or an extracted official
            ``chembl_NN/chembl_NN_sqlite/chembl_NN.db``) from this folder.
        offline: without ``data_dir``, build the offline SQLite
            (:mod:`biokg.ingest.offline.chembl`) into ``cache_dir/chembl`` instead of downloading.
        base_url: a mirror serving the FTP site's paths (:func:`~biokg.ingest.online.download.
            mirrored`); the tarball is checked against the release's ``checksums.txt``.

    Raises:
        ConfigError: ``data_dir`` holds neither file.
        FetchError: a download failed after retries (retryable), or the tarball does not match
            its published sha256.
        SourceFormatError: the tarball is truncated/corrupt or holds no ``.db``; no version.
        BiokgError: the Debian org.Hs.eg.db package cannot be fetched.
    """
    cache_dir = Path(cache_dir)
    if data_dir is not None:
        official = sorted(Path(data_dir).glob("chembl_*/chembl_*_sqlite/chembl_*.db"))
        db = official[-1] if official and not (Path(data_dir) / DB_FILE).is_file() else None
        db = db or SOURCE.files_in(data_dir)[DB_FILE]
    elif offline:
        db = build_chembl_sqlite(cache_dir / "chembl" / DB_FILE, cache_dir=cache_dir)
    else:
        listing = mirrored(LISTING, base_url, FTP_HOST)
        version = discover_release(cache_dir / "chembl", listing)
        name = f"chembl_{version}_sqlite.tar.gz"
        expected = _published_sha256(download(listing + CHECKSUMS, cache_dir / "chembl"), name)
        tarball = download(listing + name, cache_dir / "chembl", expected_sha256=expected)
        db = _extract_db(tarball, cache_dir / "chembl")
    files = {DB_FILE: db, ORG_FILE: debian_file(*ORG_HS_DB, cache_dir)}
    # The offline SQLite holds every approved drug but curated mechanisms for only a few dozen.
    return fetched(files, discover_version(files), sample=offline and data_dir is None)


def discover_release(cache_dir: Path, listing_url: str = LISTING) -> str:
    """The newest release number (``"35"``) named in the ``latest/`` listing.

    Raises:
        FetchError: the listing cannot be downloaded.
        SourceFormatError: it names no ``chembl_NN_sqlite.tar.gz``.
    """
    listing = download(listing_url, cache_dir)
    found = re.findall(r"chembl_(\d+)_sqlite\.tar\.gz", listing.read_text(errors="replace"))
    if not found:
        raise SourceFormatError(f"{listing_url} ({listing}): no chembl_NN_sqlite.tar.gz listed")
    return max(found, key=int)


def _published_sha256(checksums: Path, name: str) -> str:
    """The sha256 ``checksums.txt`` lists for ``name`` (``<hex>  <file>`` lines).

    Raises:
        SourceFormatError: the file does not list ``name``.
    """
    for line in checksums.read_text(errors="replace").splitlines():
        digest, _, file = line.strip().partition(" ")
        if file.strip().lstrip("*") == name:
            return digest
    raise SourceFormatError(f"{checksums}: no sha256 listed for {name}; is this ChEMBL's?")


def discover_version(files: dict[str, Path]) -> str:
    """The release name from the SQLite ``version`` table (``ChEMBL_35``).

    Raises:
        SourceFormatError: the file is not SQLite or has no ``version`` row.
    """
    path = files[DB_FILE]
    try:
        with closing(_connect(path)) as con:
            row = con.execute("SELECT name FROM version ORDER BY name LIMIT 1").fetchone()
    except sqlite3.DatabaseError as err:
        raise SourceFormatError(f"{path}: cannot read table 'version': {err}") from err
    if not row or not row[0]:
        raise SourceFormatError(f"{path}: table 'version' is empty; which ChEMBL is this?")
    return str(row[0])


def parse(fetched: Fetched) -> dict[str, pl.DataFrame]:
    """Read the :data:`TABLES` columns into frames (same names), plus ``uniprot_genes``.

    Raises:
        BiokgError: ``fetched`` lacks ``chembl.sqlite``.
        SourceFormatError: a table or column is missing; the message names file, table, column.
    """
    if DB_FILE not in fetched.files:
        raise BiokgError(f"chembl: parse needs {DB_FILE}; fetched only {sorted(fetched.files)}")
    path = fetched.files[DB_FILE]
    frames = {}
    with closing(_connect(path)) as con:
        for table, columns in TABLES.items():
            have = [r[1] for r in con.execute(f"PRAGMA table_info('{table}')")]
            if not have:
                raise SourceFormatError(f"{path}: table '{table}' is missing (ChEMBL schema)")
            missing = [c for c in columns if c not in have]
            if missing:
                raise SourceFormatError(
                    f"{path}: table '{table}' lacks column(s) {', '.join(missing)}"
                )
            query = f"SELECT {', '.join(columns)} FROM {table}"
            frames[table] = pl.read_database(query, con, infer_schema_length=None)
    frames["uniprot_genes"] = _uniprot_genes(fetched.files.get(ORG_FILE))
    return frames


def normalize(frames: dict[str, pl.DataFrame], *, release: Release) -> Records:
    """Drug nodes, Gene/Disease/Phenotype stubs, TARGETS and INDICATED_FOR edges, sorted.

    Raises:
        SchemaError: schema/ lacks a label or type used here.
    """
    schema = load_schema()
    dropped: dict[str, int] = {}
    parents = _parents(frames)
    every = _drugs(frames, parents, release)
    drugs = every.filter(pl.col("id").is_in(_notable(frames, parents).implode()))
    dropped["molecules without a name, phase, mechanism or indication"] = (
        every.height - drugs.height
    )
    targets, genes = _targets(frames, parents, release, schema, dropped)
    indications, diseases = _indications(frames, parents, release, schema, dropped)
    log.info(
        "chembl %s: dropped %s",
        release.version,
        ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items())),
    )
    stubs = {"Gene": genes, **diseases}
    return Records(
        nodes={"Drug": drugs},
        stubs=stubs,
        edges={"TARGETS": targets, "INDICATED_FOR": indications},
    )


# --- fetching and parsing helpers ---------------------------------------------------------


def _extract_db(tarball: Path, target: Path) -> Path:
    """The ``.db`` member of a ChEMBL SQLite tarball, extracted once next to it."""
    try:
        with tarfile.open(tarball, "r:gz") as tar:
            member = next((m for m in tar if m.isfile() and m.name.endswith(".db")), None)
            if member is None:
                raise SourceFormatError(f"{tarball}: no chembl_NN.db member in the tarball")
            out = target / Path(member.name).name
            if out.is_file() and out.stat().st_size == member.size:
                return out
            with (
                atomic_path(out) as partial,
                tar.extractfile(member) as src,  # type: ignore[union-attr]
                open(partial, "wb") as dst,
            ):
                while block := src.read(1 << 20):
                    dst.write(block)
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        raise SourceFormatError(
            f"{tarball}: truncated or corrupt ChEMBL tarball ({err}); delete it and fetch again"
        ) from err
    return out


def _connect(path: Path) -> sqlite3.Connection:
    if not Path(path).is_file():
        raise SourceFormatError(f"{path}: no such SQLite file")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _uniprot_genes(path: Path | None) -> pl.DataFrame:
    """UniProt accession -> NCBI gene id and symbol from org.Hs.eg.db (empty without it)."""
    schema = {"accession": pl.String, "gene_id": pl.String, "symbol": pl.String}
    if path is None:
        return pl.DataFrame(schema=schema)
    query = (
        "SELECT u.uniprot_id AS accession, g.gene_id, i.symbol FROM uniprot u "
        "JOIN genes g USING (_id) JOIN gene_info i USING (_id)"
    )
    try:
        with closing(_connect(path)) as con:
            rows = con.execute(query).fetchall()
    except sqlite3.DatabaseError as err:
        raise SourceFormatError(f"{path}: cannot read uniprot/genes/gene_info: {err}") from err
    return pl.DataFrame(rows, schema=schema, orient="row").unique().sort(pl.all())


# --- normalizing helpers ------------------------------------------------------------------


def _parents(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """molregno -> parent molregno and parent CURIE (a molecule is its own parent by default)."""
    mols = frames["molecule_dictionary"].select("molregno", "chembl_id")
    hier = frames["molecule_hierarchy"].select("molregno", "parent_molregno")
    out = mols.join(hier, on="molregno", how="left").with_columns(
        pl.col("parent_molregno").fill_null(pl.col("molregno"))
    )
    ids = mols.select(
        pl.col("molregno").alias("parent_molregno"),
        pl.format("CHEMBL.COMPOUND:{}", "chembl_id").alias("drug"),
    )
    return out.join(ids, on="parent_molregno", how="left").drop_nulls("drug")


def _notable(frames: dict[str, pl.DataFrame], parents: pl.DataFrame) -> pl.Series:
    """Parent CURIEs that become Drug nodes: a molecule of the family has a preferred name or
    a max_phase, or a mechanism or indication row (docs/decisions/0016-release-size.md: the
    other ~2.4M of a release are screening compounds no question names)."""
    mols = frames["molecule_dictionary"]
    named = mols.filter(pl.col("pref_name").is_not_null() | pl.col("max_phase").is_not_null())
    regs = pl.concat(
        [
            named.select("molregno"),
            frames["drug_mechanism"].select("molregno"),
            frames["drug_indication"].select("molregno"),
        ]
    ).unique()
    return regs.join(parents.select("molregno", "drug"), on="molregno")["drug"].unique()


def _drugs(
    frames: dict[str, pl.DataFrame], parents: pl.DataFrame, release: Release
) -> pl.DataFrame:
    mols = frames["molecule_dictionary"].join(parents, on=["molregno", "chembl_id"])
    syn = frames["molecule_synonyms"].join(parents.select("molregno", "drug"), on="molregno")
    names = syn.group_by("drug").agg(
        pl.col("synonyms").unique().sort().alias("synonyms"),
        pl.col("synonyms")
        .filter(pl.col("syn_type").is_in(BRAND_TYPES))
        .unique()
        .sort()
        .alias("brand_names"),
        pl.col("synonyms").filter(pl.col("syn_type").is_in(GENERIC_TYPES)).alias("generic"),
    )
    salts = (
        mols.filter(pl.col("molregno") != pl.col("parent_molregno"))
        .group_by("drug")
        .agg(pl.format("CHEMBL.COMPOUND:{}", "chembl_id").sort().alias("xrefs"))
    )
    own = mols.filter(pl.col("molregno") == pl.col("parent_molregno")).join(
        frames["compound_structures"], on="molregno", how="left"
    )
    empty = pl.lit([], dtype=pl.List(pl.String))
    return (
        own.join(names, on="drug", how="left")
        .join(salts, on="drug", how="left")
        .sort("drug")
        .select(
            pl.col("drug").alias("id"),
            pl.col("pref_name").alias("name"),
            pl.col("synonyms").fill_null(empty),
            pl.col("xrefs").fill_null(empty),
            *node_columns("Drug", release),
            pl.col("canonical_smiles").cast(pl.String).alias("smiles"),
            pl.col("standard_inchi_key").cast(pl.String).alias("inchikey"),
            pl.col("max_phase").cast(pl.Float64),
            pl.col("brand_names").fill_null(empty),
            pl.concat_list(pl.col("generic").fill_null(empty), pl.col("pref_name"))
            .list.drop_nulls()
            .list.unique()
            .list.sort()
            .alias("generic_names"),
        )
    )


def _drug_edges(
    rows: pl.DataFrame,
    table: str,
    key: str,
    object_label: pl.Expr,
    release: Release,
    *properties: str | pl.Expr,
) -> pl.DataFrame:
    """Drug → object edges from one ChEMBL table's rows, citing ``chembl.sqlite#<table>/<key>``."""
    return rows.sort("drug", "object", key).select(
        pl.col("drug").alias("subject"),
        "object",
        pl.lit("Drug").alias("subject_label"),
        object_label,
        *provenance_columns(release),
        pl.format(f"{{}}#{table}/{{}}", pl.lit(DB_FILE), key).alias("source_record"),
        *properties,
        pl.col("references").fill_null(pl.lit([], dtype=pl.List(pl.String))),
    )


def _references(refs: pl.DataFrame, key: str) -> pl.DataFrame:
    """``key`` -> sorted reference list: PMID:/DOI: CURIEs where possible, else the URL."""
    prefix = pl.col("ref_type").replace_strict(REF_PREFIXES, default=None)
    ref = (
        pl.when(prefix.is_not_null() & pl.col("ref_id").is_not_null())
        .then(pl.concat_str([prefix, pl.col("ref_id")], separator=":"))
        .otherwise(pl.coalesce("ref_url", pl.concat_str(["ref_type", "ref_id"], separator=":")))
    )
    return refs.group_by(key).agg(ref.drop_nulls().unique().sort().alias("references"))


def _targets(
    frames: dict[str, pl.DataFrame],
    parents: pl.DataFrame,
    release: Release,
    schema: GraphSchema,
    dropped: dict[str, int],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    mech = frames["drug_mechanism"].join(parents.select("molregno", "drug"), on="molregno")
    proteins = (
        frames["target_components"]
        .join(frames["component_sequences"], on="component_id")
        .filter((pl.col("component_type") == "PROTEIN") & pl.col("accession").is_not_null())
        .select("tid", "accession", "tax_id")
    )
    rows = mech.join(proteins, on="tid")
    dropped["mechanisms without a protein target"] = mech.height - rows["mec_id"].n_unique()
    mapping = frames["uniprot_genes"]
    rows = rows.join(mapping, on="accession", how="left").with_columns(
        pl.when(pl.col("gene_id").is_not_null())
        .then(pl.format("NCBIGene:{}", "gene_id"))
        .otherwise(pl.format("UniProtKB:{}", "accession"))
        .alias("object")
    )
    unmapped = rows.filter(pl.col("gene_id").is_null())["accession"].n_unique()
    if unmapped:
        log.info(
            "chembl: %d target accessions without NCBIGene mapping kept as UniProtKB", unmapped
        )
    refs = _references(frames["mechanism_refs"], "mec_id")
    edges = _drug_edges(
        rows.join(refs, on="mec_id", how="left"),
        "drug_mechanism",
        "mec_id",
        pl.lit("Gene").alias("object_label"),
        release,
        "action_type",
        pl.col("mechanism_of_action").alias("mechanism"),
    )
    return finalize_edges(edges, "TARGETS", schema), _genes(rows, release)


def _genes(rows: pl.DataFrame, release: Release) -> pl.DataFrame:
    return (
        rows.group_by("object")
        .agg(
            pl.col("symbol").drop_nulls().first(),
            pl.format("UniProtKB:{}", "accession").unique().sort().alias("xrefs"),
            pl.col("tax_id").drop_nulls().first(),
        )
        .sort("object")
        .select(
            pl.col("object").alias("id"),
            pl.col("symbol").alias("name"),
            "xrefs",
            *node_columns("Gene", release),
            "symbol",
            pl.format("NCBITaxon:{}", "tax_id").alias("taxon"),
        )
    )


def _disease_id(row: dict) -> tuple[str, str] | None:
    """(CURIE, label) of an indication: MeSH first, else its EFO-column id; None if neither."""
    if row["mesh_id"]:
        return f"MESH:{row['mesh_id']}", "Disease"
    if row["efo_id"]:
        try:
            curie = normalize_curie(row["efo_id"].replace("_", ":", 1))
        except ValueError:
            return None
        return curie, "Phenotype" if curie.startswith("HP:") else "Disease"
    return None


def _indications(
    frames: dict[str, pl.DataFrame],
    parents: pl.DataFrame,
    release: Release,
    schema: GraphSchema,
    dropped: dict[str, int],
) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    ind = frames["drug_indication"].join(parents.select("molregno", "drug"), on="molregno")
    keys = ind.select("mesh_id", "efo_id").unique().to_dicts()
    ids = {(k["mesh_id"], k["efo_id"]): _disease_id(k) for k in keys}
    lookup = pl.DataFrame(
        [(m, e, *v) for (m, e), v in ids.items() if v],
        schema={
            "mesh_id": pl.String,
            "efo_id": pl.String,
            "object": pl.String,
            "object_label": pl.String,
        },
        orient="row",
    )
    rows = ind.join(lookup, on=["mesh_id", "efo_id"], how="inner", nulls_equal=True)
    dropped["indications without MeSH or usable EFO id"] = ind.height - rows.height
    refs = _references(frames["indication_refs"], "drugind_id")
    edges = _drug_edges(
        rows.join(refs, on="drugind_id", how="left"),
        "drug_indication",
        "drugind_id",
        pl.col("object_label"),
        release,
        pl.col("max_phase_for_ind").cast(pl.Float64).alias("max_phase"),
    )
    stubs = {}
    for label, group in rows.group_by("object_label"):
        name = pl.when(pl.col("mesh_id").is_not_null()).then("mesh_heading").otherwise("efo_term")
        stubs[str(label[0])] = (
            group.sort("drugind_id")
            .group_by("object", maintain_order=True)
            .agg(name.first().alias("name"))
            .sort("object")
            .select(
                pl.col("object").alias("id"),
                "name",
                *node_columns(str(label[0]), release, schema),
            )
        )
    return finalize_edges(edges, "INDICATED_FOR", schema), stubs
