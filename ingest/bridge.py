"""The disease bridge: MONDO's curated exact matches join diseases that sources name by other ids.

HPO names diseases by OMIM, Orphanet and DECIPHER ids, ChEMBL's indications by MeSH, PrimeKG by
MONDO. MONDO publishes which of those are the same disease (SSSOM ``skos:exactMatch`` sets, CC0).
After the sources load, the bridge reads the Disease nodes they asserted and joins, with
``SAME_AS`` edges, the records one MONDO term maps to: from the MONDO node to each record where
PrimeKG holds the term, otherwise between the records themselves (OMIM ↔ Orphanet ↔ MeSH); ``mondo``
names the term. Each edge carries its mappings' provenance (set, file line, justification). The
bridge adds no nodes: a disease is found by the names its sources gave it, and no MONDO node
competes with them when questions are linked. It does give each record its MONDO term's label and
synonyms, as ``infores:mondo``'s facts about the record (a list property: a union beside the
sources' own synonyms, never their name): HPO's disease records carry one title each, and people
ask by the names MONDO collects ("Hunter syndrome" for OMIM's "Mucopolysaccharidosis, type II",
"Eagle-Barrett syndrome" for prune belly syndrome). A PrimeKG group node (diseases of one name,
``MONDO_grouped``) is joined to its members' records with ``grouped`` edges, which the agent
reaches but never crosses: the members are related diseases, not one.

Nodes are kept apart, not merged (docs/decisions/0012-bridges.md): each source's records keep
their own ids and citations, a Browser user sees where two sources met, and the agent crosses
``SAME_AS`` transparently. Only 1:1 mappings bridge: a MONDO term mapped to two of the graph's
ids of one prefix (``imperforate anus`` → two OMIM entries), an id mapped from two MONDO terms,
or a MONDO term in two PrimeKG groups is a conflict, reported and left unbridged.

The bridge is a load of its own (``infores:mondo``): keyed on the mapping files and on the
Disease ids the sources asserted, skipped when both are unchanged, and its edges replaced
(stale ones deleted) when either changes.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import zstandard

from biokg import cypher
from biokg.core.curie import normalize_curie
from biokg.core.files import sha256
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import ConfigError, SourceFormatError
from biokg.ingest.formats.sssom import MappingSet, read_metadata, read_sssom, set_version
from biokg.ingest.online.download import download
from biokg.ingest.records import (
    Records,
    Release,
    finalize_edges,
    provenance_columns,
    validate,
)
from biokg.ingest.writer import GraphWriter, LoadResult
from biokg.schema import load_schema

log = logging.getLogger(__name__)

INFORES = "infores:mondo"
LICENSE = "https://creativecommons.org/publicdomain/zero/1.0/"
TARGETS = ("omim", "orphanet", "mesh", "efo", "doid")
MAPPING_FILES = {t: f"mondo_exactmatch_{t}.sssom.tsv" for t in TARGETS}
MAPPINGS_URL = "http://purl.obolibrary.org/obo/mondo/mappings/"
#: MONDO's exact-match sets offline: this folder of the shared data (``Settings.shared_data``)
SHARED_FOLDER = "mondo"
EXAMPLES = 10
#: MONDO's terms (labels, synonyms): the release packaged as data in this distribution
TERMS_PACKAGE = "cellxgene-ontology-guide"


def mappings_dir(settings: Settings, *, offline: bool) -> Path | None:
    """Where the mapping sets are read from: ``BIOKG_MONDO_DIR``, else offline the shared
    copies (:data:`SHARED_FOLDER`), else None (downloaded)."""
    shared = settings.shared_data / SHARED_FOLDER if offline else None
    return settings.source_dir("mondo") or shared


def mapping_files(
    cache_dir: Path, *, data_dir: Path | None = None, offline: bool = True
) -> dict[str, Path]:
    """MONDO's exact-match sets: from ``data_dir`` (:func:`mappings_dir`), or downloaded.

    Raises:
        ConfigError: offline without ``data_dir``.
    """
    if data_dir is None and not offline:
        return {
            name: download(MAPPINGS_URL + name, cache_dir / "mondo")
            for name in MAPPING_FILES.values()
        }
    if data_dir is None:
        raise ConfigError(
            "mondo: no mapping folder to read offline; pass mappings_dir(settings, offline=True)"
        )
    return {name: Path(data_dir) / name for name in MAPPING_FILES.values()}


@dataclass
class BridgeReport:
    """What the bridge joined, and what it could not."""

    mappings: dict[str, int] = field(default_factory=dict)
    bridged: dict[str, int] = field(default_factory=dict)
    conflicts: dict[str, int] = field(default_factory=dict)
    conflict_examples: list[dict] = field(default_factory=list)
    #: graph Disease ids per prefix, and how many of them a bridge reaches
    diseases: dict[str, int] = field(default_factory=dict)
    diseases_bridged: dict[str, int] = field(default_factory=dict)
    #: graph Disease records given their MONDO term's names as synonyms
    named: int = 0

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def terms_file() -> Path:
    """MONDO's terms: the newest release packaged in :data:`TERMS_PACKAGE` (its JSON, zstd,
    ``{curie: {label, synonyms, deprecated, ...}}``). The same file offline and online: MONDO's
    own ``mondo.obo`` is not downloaded yet (docs/decisions/0012-bridges.md)."""
    dist = importlib.metadata.distribution(TERMS_PACKAGE)
    names = sorted(str(f) for f in dist.files or () if "MONDO-ontology" in str(f))
    if not names:
        raise ConfigError(f"{TERMS_PACKAGE} holds no MONDO release (reinstall it)")
    return Path(str(dist.locate_file(names[-1])))


def read_term_names(path: Path) -> pl.DataFrame:
    """Each current MONDO term's label and synonyms, as (mondo, names)."""
    return _term_names(path, sha256(path))


@functools.lru_cache(maxsize=2)
def _term_names(path: Path, checksum: str) -> pl.DataFrame:
    """:func:`read_term_names` once per release file (``checksum`` keys it) and process: a
    second bridge of one process, such as a refresh after a build, does not parse the 28,000
    terms again (1 s each)."""
    try:
        with path.open("rb") as raw:
            terms = json.loads(zstandard.ZstdDecompressor().stream_reader(raw).read())
    except (OSError, ValueError, zstandard.ZstdError) as err:
        raise SourceFormatError(
            f"{path}: not a MONDO release as {TERMS_PACKAGE} packages it: {err}"
        ) from err
    rows = [
        (curie, _names(term))
        for curie, term in terms.items()
        if curie.startswith("MONDO:") and not term.get("deprecated") and term.get("label")
    ]
    return pl.DataFrame(
        rows, schema={"mondo": pl.String, "names": pl.List(pl.String)}, orient="row"
    )


def _names(term: dict) -> list[str]:
    """A term's label and synonyms, once each; an abbreviation's lower-case copy ("rich" beside
    "RICH") is the abbreviation, not an English word."""
    names = list(dict.fromkeys([term["label"], *(term.get("synonyms") or ())]))
    written_upper = {n for n in names if n.isupper()}
    return [n for n in names if not (n.islower() and n.upper() in written_upper)]


def read_mappings(files: dict[str, Path]) -> pl.DataFrame:
    """Every exact match as (mondo, other, justification, mapping_set, source_record)."""
    sets: list[MappingSet] = [read_sssom(path) for path in files.values()]
    frames = []
    for mapping_set in sets:
        rows = mapping_set.mappings.filter(pl.col("predicate_id") == "skos:exactMatch")
        rows = rows.filter(~pl.col("subject_label").str.starts_with("obsolete "))
        frames.append(
            rows.select(
                pl.col("subject_id").alias("mondo"),
                pl.col("object_id").map_elements(normalize_curie, pl.String).alias("other"),
                pl.col("mapping_justification").alias("justification"),
                pl.lit(
                    str(mapping_set.metadata.get("mapping_set_id") or mapping_set.path.name)
                ).alias("mapping_set"),
                pl.format(f"{mapping_set.path.name}:{{}}", "line").alias("source_record"),
            )
        )
    return pl.concat(frames)


def mondo_release(files: dict[str, Path]) -> str:
    """The MONDO release the mapping sets come from (newest set version), from their headers."""
    versions = sorted({set_version(read_metadata(path)) for path in files.values()} - {""})
    return versions[-1] if versions else "unknown"


def graph_diseases(store: GraphStore) -> pl.DataFrame:
    """Every Disease node's id, name and xrefs, sorted by id: what the bridge joins. Every build
    reads them (its bridge may have changed): on the embedded engine with its paged SQL scan,
    3-4 times the rate of the Cypher read (``benchmarks/bench_graph_reads.py``)."""
    if store.http_api:
        rows = list(store.scan_nodes("Disease", ["id", "name", "xrefs"]))
    else:
        rows = store.read(cypher.load("bridge_diseases"))
    return pl.DataFrame(
        {
            "id": [r["id"] for r in rows],
            "name": [r["name"] for r in rows],
            "xrefs": [r["xrefs"] or [] for r in rows],
        },
        schema={"id": pl.String, "name": pl.String, "xrefs": pl.List(pl.String)},
    ).sort("id")


def bridge_records(
    diseases: pl.DataFrame, mappings: pl.DataFrame, terms: pl.DataFrame, release: Release
) -> tuple[Records, BridgeReport]:
    """SAME_AS edges between the graph's ``diseases`` (id, name, xrefs) that MONDO says are
    one, and each record's MONDO names (``terms``: mondo, names) as its synonyms."""
    schema = load_schema()
    report = BridgeReport()
    report.mappings = dict(mappings.group_by("mapping_set").len().sort("mapping_set").iter_rows())
    prefix = pl.col("id").str.split(":").list.first()
    report.diseases = dict(diseases.group_by(prefix.alias("p")).len().sort("p").iter_rows())
    ids = diseases.select("id")
    matched = mappings.join(ids, left_on="other", right_on="id", how="semi")
    other_prefix = pl.col("other").str.split(":").list.first()
    one_to_many = matched.filter(pl.len().over("mondo", other_prefix) > 1)
    many_to_one = matched.filter(pl.col("mondo").n_unique().over("other") > 1)
    # PrimeKG's group nodes (one node for diseases of one name) list their MONDO members
    groups = (
        diseases.explode("xrefs")
        .filter(pl.col("xrefs").str.starts_with("MONDO:"))
        .select(pl.col("id").alias("group"), pl.col("xrefs").alias("mondo"))
    )
    group_ids = groups["group"].unique()
    in_two_groups = groups.filter(pl.col("mondo").is_duplicated())
    report.conflicts = {
        "mondo term mapped to two ids of one prefix": one_to_many["mondo"].n_unique(),
        "id mapped from two mondo terms": many_to_one["other"].n_unique(),
        "mondo term in two primekg groups": in_two_groups["mondo"].n_unique(),
    }
    for kind, frame, column in (
        ("mondo term mapped to two ids of one prefix", one_to_many, "mondo"),
        ("id mapped from two mondo terms", many_to_one, "other"),
    ):
        for key, group in list(frame.group_by(column, maintain_order=True))[:EXAMPLES]:
            report.conflict_examples.append(
                {
                    "conflict": kind,
                    "id": key[0],
                    "with": sorted(set(group["mondo"]) | set(group["other"]) - {key[0]}),
                }
            )
    bad = pl.concat([one_to_many, many_to_one]).select("mondo", "other").unique()
    kept = matched.join(bad, on=["mondo", "other"], how="anti").filter(
        pl.col("mondo") != pl.col("other")
    )
    evidence = ["justification", "mapping_set", "source_record"]
    # a MONDO term that is a node (PrimeKG's) is the hub of its records
    hubbed = kept.join(ids, left_on="mondo", right_on="id", how="semi").select(
        pl.col("mondo").alias("subject"), pl.col("other").alias("object"), "mondo", *evidence
    )
    # otherwise its records are joined to each other, each edge citing both mapping rows
    loose = kept.join(ids, left_on="mondo", right_on="id", how="anti")
    pairs = (
        loose.join(loose, on="mondo", suffix="_b")
        .filter(pl.col("other") < pl.col("other_b"))
        .select(
            pl.col("other").alias("subject"),
            pl.col("other_b").alias("object"),
            "mondo",
            *(
                pl.concat_str(pl.col(c), pl.col(f"{c}_b"), separator=" + ").alias(c)
                for c in evidence
            ),
        )
    )
    # a group node reaches each member's records (grouped: the agent never crosses through it)
    grouped = (
        groups.join(in_two_groups.select("mondo").unique(), on="mondo", how="anti")
        .join(kept, on="mondo")
        .filter(pl.col("group") != pl.col("other"))
        .select(
            pl.col("group").alias("subject"), pl.col("other").alias("object"), "mondo", *evidence
        )
    )
    edges = pl.concat([hubbed, pairs, grouped]).unique(["subject", "object"], keep="first")
    edges = edges.with_columns(pl.col("subject").is_in(group_ids.implode()).alias("grouped"))
    report.bridged = {
        "records of one MONDO term (pairs)": pairs.height,
        "MONDO node to its records": hubbed.height,
        "PrimeKG group to its members' records": grouped.height,
    }
    bridged_ids = pl.concat([edges["subject"], edges["object"]]).unique()
    report.diseases_bridged = dict(
        ids.filter(pl.col("id").is_in(bridged_ids.implode()))
        .group_by(prefix.alias("p"))
        .len()
        .sort("p")
        .iter_rows()
    )
    edges = edges.select(
        "subject",
        "object",
        pl.lit("Disease").alias("subject_label"),
        pl.lit("Disease").alias("object_label"),
        "mondo",
        "grouped",
        *evidence,
        *provenance_columns(release),
    )
    same_as = finalize_edges(edges, "SAME_AS", schema).sort("subject", "object", "id")
    named = _term_synonyms(diseases, kept, terms)
    report.named = named.height
    stubs = (
        ids.filter(
            pl.col("id").is_in(bridged_ids.implode()) | pl.col("id").is_in(named["id"].implode())
        )
        .join(named, on="id", how="left")
        .sort("id")
    )
    records = Records(stubs={"Disease": stubs}, edges={"SAME_AS": same_as})
    validate(records, schema, source=INFORES)
    return records, report


def _term_synonyms(diseases: pl.DataFrame, kept: pl.DataFrame, terms: pl.DataFrame) -> pl.DataFrame:
    """(id, synonyms): each record's MONDO term's names (a MONDO node's: its own), but the
    record's own name, for the records MONDO maps one to one."""
    records = pl.concat(
        [
            kept.select(pl.col("other").alias("id"), "mondo"),
            diseases.filter(pl.col("id").str.starts_with("MONDO:")).select(
                "id", pl.col("id").alias("mondo")
            ),
        ]
    ).unique()
    return (
        records.join(terms, on="mondo")
        .join(diseases.select("id", "name"), on="id")
        .explode("names")
        .filter(pl.col("names").str.to_lowercase() != pl.col("name").str.to_lowercase())
        .group_by("id", maintain_order=True)
        .agg(pl.col("names").unique(maintain_order=True).alias("synonyms"))
        .sort("id")
    )


def _code_digest() -> str:
    """The bridge's rules are this module: a change to it re-bridges."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def bridge_diseases(
    store: GraphStore,
    writer: GraphWriter,
    cache_dir: Path,
    *,
    data_dir: Path | None = None,
    offline: bool = True,
    force: bool = False,
) -> LoadResult:
    """Bridge the graph's Disease nodes (module docstring); skipped when nothing changed."""
    planned = plan_bridge(store, cache_dir, data_dir=data_dir, offline=offline)
    current = None if force else writer.current(planned.release)
    if current is not None:
        log.info("disease bridge unchanged (same mappings, same diseases); skipped")
        return current
    records, report = planned.records()
    return writer.load(records, planned.release, identity=report.as_dict(), rewrite=force)


@dataclass(frozen=True)
class PlannedBridge:
    """The bridge's load key (mapping files, MONDO's terms and the graph's diseases) before
    anything is read further: a build or refresh skips the bridge when its release is the
    current load."""

    release: Release
    diseases: pl.DataFrame
    files: dict[str, Path]
    terms: Path

    def records(self) -> tuple[Records, BridgeReport]:
        """The SAME_AS records and the records' MONDO synonyms (reads the mapping sets and the
        terms, only when the bridge is rebuilt)."""
        terms = _term_names(self.terms, self.release.checksums[self.terms.name])
        records, report = bridge_records(
            self.diseases, read_mappings(self.files), terms, self.release
        )
        log.info("disease bridge: %s", report.as_dict())
        return records, report


def plan_bridge(
    store: GraphStore, cache_dir: Path, *, data_dir: Path | None = None, offline: bool = True
) -> PlannedBridge:
    """The bridge's release: mapping files' and terms' checksums, the graph's diseases, the
    bridge code."""
    files = mapping_files(cache_dir, data_dir=data_dir, offline=offline)
    terms = terms_file()
    diseases = graph_diseases(store)
    graph_key = hashlib.sha256(diseases.write_ndjson().encode()).hexdigest()[:16]
    checksums = {name: sha256(path) for name, path in sorted(files.items())}
    checksums[terms.name] = sha256(terms)
    checksums["graph:diseases"] = graph_key
    release = Release(
        INFORES,
        mondo_release(files),
        LICENSE,
        checksums,
        code={"bridge": _code_digest(), "schema": load_schema().records_digest},
    )
    return PlannedBridge(release, diseases, files, terms)
