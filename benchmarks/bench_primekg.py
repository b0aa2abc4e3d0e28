"""Benchmark: PrimeKG at full scale (8,100,498 kg.csv rows), from parse to engine load and export.

PrimeKG v2.1's kg.csv is not shipped, so this writes a file of its shape (once, cached under
``~/.cache/biokg/bench/primekg/``): the real per-relation row counts and display relations, node
types, sources, id formats (``MONDO_grouped`` included) and node counts; every undirected edge
as a forward row and, later, its mirror; 3,026 exact duplicate rows. Then, each step in a fresh
process so its peak RSS is its own:

1. ``parse`` (``read_kg``) + ``node_table`` (CURIEs) + ``collapse`` + ``orient``: rows/s per phase,
   total seconds and peak RSS against the must-hold target (30 s, 4 GB on 2 cores), and the
   collapse counts;
2. the full ``normalize`` (edge ids, node frames), then ``validate`` and the count bounds;
3. a 1,000,000-edge slice (every type in proportion, with the nodes its edges join) loaded into a
   fresh embedded engine: edges/s;
4. ``biokg export neo4j-admin``'s CSV writing of the full normalized records (the export reads
   records, not the graph; drug identity is not run, PrimeKG being the only source).

    python benchmarks/bench_primekg.py [--rows 200000] [--slice 1000000] [--no-load] [--no-export]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
from release_common import human_genes, pseudo_words

from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.core.store.embedded import free_port, stop_background
from biokg.export.neo4j_admin import merge_records, write_neo4j_admin_csv
from biokg.ingest.build import code_key
from biokg.ingest.formats.primekg import read_kg
from biokg.ingest.records import Records, Release, validate
from biokg.ingest.sources import primekg
from biokg.ingest.sources.base import Fetched
from biokg.ingest.writer import GraphWriter
from biokg.schema import load_schema

#: Raise when the generated file would change: a cached file of another version is rewritten.
GENERATOR_VERSION = "2"
SEED = 2023_02_02
CACHE = Path.home() / ".cache" / "biokg" / "bench" / "primekg"
FULL_ROWS = 8_100_498
DUPLICATE_ROWS = 3_026
TARGET_S, TARGET_GB = 30.0, 4.0
SLICE_EDGES = 1_000_000

#: kg.csv rows per relation in PrimeKG v2.1 (both directions, exact duplicates included).
RELATION_ROWS = {
    "anatomy_protein_present": 3_036_406,
    "drug_drug": 2_672_628,
    "protein_protein": 642_150,
    "disease_phenotype_positive": 300_634,
    "bioprocess_protein": 289_610,
    "cellcomp_protein": 166_804,
    "disease_protein": 160_822,
    "molfunc_protein": 139_060,
    "drug_effect": 129_568,
    "bioprocess_bioprocess": 105_772,
    "pathway_protein": 85_292,
    "disease_disease": 64_388,
    "contraindication": 61_350,
    "drug_protein": 51_306,
    "anatomy_protein_absent": 39_774,
    "phenotype_phenotype": 37_472,
    "anatomy_anatomy": 28_064,
    "molfunc_molfunc": 27_148,
    "indication": 18_776,
    "cellcomp_cellcomp": 9_690,
    "phenotype_protein": 6_660,
    "off-label use": 5_136,
    "pathway_pathway": 5_070,
    "exposure_disease": 4_608,
    "exposure_exposure": 4_140,
    "exposure_bioprocess": 3_250,
    "exposure_protein": 2_424,
    "disease_phenotype_negative": 2_386,
    "exposure_molfunc": 90,
    "exposure_cellcomp": 20,
}
#: relation → (display_relation, x_type of the forward row, y_type)
RELATION_ENDS = {
    "anatomy_protein_present": ("expression present", "anatomy", "gene/protein"),
    "drug_drug": ("synergistic interaction", "drug", "drug"),
    "protein_protein": ("ppi", "gene/protein", "gene/protein"),
    "disease_phenotype_positive": ("phenotype present", "disease", "effect/phenotype"),
    "bioprocess_protein": ("interacts with", "biological_process", "gene/protein"),
    "cellcomp_protein": ("interacts with", "cellular_component", "gene/protein"),
    "disease_protein": ("associated with", "disease", "gene/protein"),
    "molfunc_protein": ("interacts with", "molecular_function", "gene/protein"),
    "drug_effect": ("side effect", "drug", "effect/phenotype"),
    "bioprocess_bioprocess": ("parent-child", "biological_process", "biological_process"),
    "pathway_protein": ("interacts with", "pathway", "gene/protein"),
    "disease_disease": ("parent-child", "disease", "disease"),
    "contraindication": ("contraindication", "drug", "disease"),
    "drug_protein": ("target", "drug", "gene/protein"),  # actions: DRUG_PROTEIN_ACTIONS
    "anatomy_protein_absent": ("expression absent", "anatomy", "gene/protein"),
    "phenotype_phenotype": ("parent-child", "effect/phenotype", "effect/phenotype"),
    "anatomy_anatomy": ("parent-child", "anatomy", "anatomy"),
    "molfunc_molfunc": ("parent-child", "molecular_function", "molecular_function"),
    "indication": ("indication", "drug", "disease"),
    "cellcomp_cellcomp": ("parent-child", "cellular_component", "cellular_component"),
    "phenotype_protein": ("associated with", "effect/phenotype", "gene/protein"),
    "off-label use": ("off-label use", "drug", "disease"),
    "pathway_pathway": ("parent-child", "pathway", "pathway"),
    "exposure_disease": ("linked to", "exposure", "disease"),
    "exposure_exposure": ("parent-child", "exposure", "exposure"),
    "exposure_bioprocess": ("interacts with", "exposure", "biological_process"),
    "exposure_protein": ("interacts with", "exposure", "gene/protein"),
    "disease_phenotype_negative": ("phenotype absent", "disease", "effect/phenotype"),
    "exposure_molfunc": ("interacts with", "exposure", "molecular_function"),
    "exposure_cellcomp": ("interacts with", "exposure", "cellular_component"),
}
DRUG_PROTEIN_ACTIONS = {"target": 0.62, "enzyme": 0.21, "transporter": 0.13, "carrier": 0.04}
#: Relations whose mirror copies come at the end of the file (the others: in the second half of
#: their own block), so the collapse meets both layouts.
MIRRORS_AT_END = ("drug_protein", "disease_protein", "exposure_disease")
#: node type → (PrimeKG v2.1 node count, x_source); 129,375 nodes in all
NODE_TYPES = {
    "gene/protein": (27_671, "NCBI"),
    "drug": (7_957, "DrugBank"),
    "effect/phenotype": (15_311, "HPO"),
    "disease": (17_080, "MONDO"),
    "biological_process": (28_642, "GO"),
    "molecular_function": (11_169, "GO"),
    "cellular_component": (4_176, "GO"),
    "anatomy": (14_035, "UBERON"),
    "pathway": (2_516, "REACTOME"),
    "exposure": (818, "CTD"),
}
#: share of diseases that are MONDO_grouped (several MONDO ids under one name)
GROUPED_SHARE = 0.05
#: node type → (fewest, most) words in a name
NAME_WORDS = {
    "drug": (1, 2),
    "effect/phenotype": (2, 5),
    "disease": (2, 5),
    "biological_process": (3, 7),
    "molecular_function": (3, 6),
    "cellular_component": (2, 4),
    "anatomy": (1, 4),
    "pathway": (3, 8),
    "exposure": (1, 3),
}
KG_COLUMNS = (
    "relation",
    "display_relation",
    "x_index",
    "x_id",
    "x_type",
    "x_name",
    "x_source",
    "y_index",
    "y_id",
    "y_type",
    "y_name",
    "y_source",
)


# -- the generated kg.csv --------------------------------------------------------------------
def plan_rows(rows: int) -> tuple[dict[str, int], dict[str, int]]:
    """Per relation: undirected edges, and edges written twice more (exact duplicates, forward
    and mirror), scaled so the rows add up to about ``rows`` (exactly, at full size)."""
    scale = rows / FULL_ROWS
    dup_edges = round(DUPLICATE_ROWS * scale / 2)
    # duplicates in proportion to the relation's size; the rounding remainder to the largest
    shares = {r: int(dup_edges * n / FULL_ROWS) for r, n in RELATION_ROWS.items()}
    largest = max(RELATION_ROWS, key=RELATION_ROWS.__getitem__)
    shares[largest] += dup_edges - sum(shares.values())
    edges, dups = {}, {}
    for relation, n in RELATION_ROWS.items():
        total = round(n * scale / 2)  # undirected edges + duplicated ones
        dups[relation] = min(shares[relation], total // 2)
        edges[relation] = total - dups[relation]
    return edges, dups


def _vocabulary(rng: np.random.Generator, size: int = 4_000) -> pl.Series:
    """Pseudo-words for node names (names' lengths matter to the CSV's size, not their sense);
    none is an English word, so no name is a real entity's."""
    return pseudo_words(rng, size)


def _names(kind: str, n: int, vocab: pl.Series, rng: np.random.Generator) -> pl.Series:
    """``n`` names for nodes of one type, with a few commas and apostrophes (CSV quoting)."""
    low, high = NAME_WORDS[kind]
    count = rng.integers(low, high + 1, n)
    columns = [
        pl.when(pl.lit(pl.Series(count > j))).then(
            pl.lit(vocab.gather(rng.integers(0, len(vocab), n)))
        )
        for j in range(high)
    ]
    names = pl.select(pl.concat_str(columns, separator=" ", ignore_nulls=True)).to_series()
    marked = pl.Series(rng.random(n))
    names = pl.select(
        pl.when(pl.lit(marked) < 0.02)
        .then(pl.concat_str(pl.lit("2,4-"), pl.lit(names)))
        .when(pl.lit(marked) < 0.04)
        .then(pl.concat_str(pl.lit(names), pl.lit("'s disease")))
        .otherwise(pl.lit(names))
    ).to_series()
    return names.str.slice(0, 1).str.to_uppercase() + names.str.slice(1)


def _unique_ints(rng: np.random.Generator, low: int, high: int, n: int) -> np.ndarray:
    return rng.choice(high - low, size=n, replace=False) + low


def _ids(kind: str, n: int, rng: np.random.Generator, go_pool: np.ndarray) -> pl.DataFrame:
    """``x_id`` and ``x_source`` of ``n`` nodes of one type, in PrimeKG's spelling.

    Genes are real NCBI genes (their real symbols: :func:`generate_nodes`); every other id is
    from a range no real record uses (MONDO/HP/GO/UBERON 9000000+, DB90000+, R-HSA-90000000+,
    MeSH C9......../D9........), so nothing invented takes a real id."""
    source = NODE_TYPES[kind][1]
    if kind == "drug":
        ids = "DB" + pl.Series(_unique_ints(rng, 90_000, 100_000, n)).cast(pl.String)
    elif kind == "disease":
        return _disease_ids(n, rng)
    elif source == "GO":
        ids = pl.Series(go_pool[:n]).cast(pl.String)
    elif kind == "pathway":
        ids = "R-HSA-" + pl.Series(_unique_ints(rng, 90_000_000, 99_999_999, n)).cast(pl.String)
    elif kind == "exposure":  # CTD exposures: MeSH C/D ids, 9 digits
        ids = pl.Series(_unique_ints(rng, 900_000_000, 999_999_999, n)).cast(pl.String)
        ids = pl.Series(rng.choice(["C", "D"], n, p=[0.6, 0.4])) + ids
    else:  # effect/phenotype (HP), anatomy (UBERON): 7 digits from 9000000
        ids = pl.Series(_unique_ints(rng, 9_000_000, 9_999_999, n)).cast(pl.String)
    return pl.DataFrame({"id": ids, "source": pl.Series([source] * n)})


def _disease_ids(n: int, rng: np.random.Generator) -> pl.DataFrame:
    """MONDO numbers without padding; ~5% ``MONDO_grouped`` (``1200_1134_15512``)."""
    grouped = int(n * GROUPED_SHARE)
    extra = rng.integers(1, 6, grouped)  # members besides the first
    ints = _unique_ints(rng, 9_000_000, 9_999_999, n + int(extra.sum()))
    firsts = pl.Series(ints[:n]).cast(pl.String)
    members = pl.DataFrame(
        {
            "node": np.repeat(np.arange(grouped), extra),
            "member": pl.Series(ints[n:]).cast(pl.String),
        }
    )
    joined = members.group_by("node", maintain_order=True).agg(pl.col("member").str.join("_"))
    ids = pl.concat([firsts.slice(0, grouped) + "_" + joined["member"], firsts.slice(grouped)])
    source = ["MONDO_grouped"] * grouped + ["MONDO"] * (n - grouped)
    order = rng.permutation(n)
    return _take(pl.DataFrame({"id": ids, "source": pl.Series(source)}), order)


def _take(frame: pl.DataFrame, rows: np.ndarray | pl.Series) -> pl.DataFrame:
    return frame.select(pl.all().gather(rows))


def generate_nodes(rng: np.random.Generator) -> pl.DataFrame:
    """Every node: PrimeKG's ``index`` (row position), id, type, name and source."""
    vocab = _vocabulary(rng)
    go_total = sum(n for kind, (n, source) in NODE_TYPES.items() if source == "GO")
    go_pool = _unique_ints(rng, 9_000_000, 9_999_999, go_total)
    genes = human_genes()
    frames = []
    for kind, (n, source) in NODE_TYPES.items():
        if kind == "gene/protein":  # real genes under their real symbols
            picked = genes.sample(n, seed=SEED).sort("gene_id")
            frames.append(
                picked.select(
                    pl.col("gene_id").alias("id"),
                    pl.lit(kind).alias("type"),
                    pl.col("symbol").alias("name"),
                    pl.lit(source).alias("source"),
                )
            )
            continue
        ids = _ids(kind, n, rng, go_pool)
        if source == "GO":
            go_pool = go_pool[n:]
        frames.append(
            ids.with_columns(
                pl.lit(kind).alias("type"), _names(kind, n, vocab, rng).alias("name")
            ).select("id", "type", "name", "source")
        )
    return pl.concat(frames).with_row_index("index")


def _pairs(
    rng: np.random.Generator, nx: int, ny: int, n: int, *, same: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` distinct random (x, y) local node positions; unordered pairs and no loops when both
    ends are of one type (x/y swapped would be the mirror, not another edge)."""
    xs, ys = np.empty(0, np.int64), np.empty(0, np.int64)
    while xs.size < n:
        m = int((n - xs.size) * 1.3) + 64
        xs = np.concatenate([xs, rng.integers(0, nx, m)])
        ys = np.concatenate([ys, rng.integers(0, ny, m)])
        if same:
            loop = xs == ys
            xs, ys = xs[~loop], ys[~loop]
            key = np.minimum(xs, ys) * ny + np.maximum(xs, ys)
        else:
            key = xs * ny + ys
        _, first = np.unique(key, return_index=True)
        first.sort()  # first occurrences, in drawing order: a random subset
        xs, ys = xs[first], ys[first]
    return xs[:n], ys[:n]


def generate_rows(nodes: pl.DataFrame, rows: int, rng: np.random.Generator) -> pl.DataFrame:
    """kg.csv's rows as (relation, display_relation, x node, y node) in file order."""
    edges, dups = plan_rows(rows)
    offsets = nodes.group_by("type").agg(pl.col("index").min(), pl.len())
    where = {t: (int(i), int(n)) for t, i, n in offsets.iter_rows()}
    blocks, tail = [], []
    for relation, n_edges in edges.items():
        if n_edges == 0:
            continue
        display, x_type, y_type = RELATION_ENDS[relation]
        (x0, nx), (y0, ny) = where[x_type], where[y_type]
        xs, ys = _pairs(rng, nx, ny, n_edges, same=x_type == y_type)
        if relation == "drug_protein":
            actions = list(DRUG_PROTEIN_ACTIONS)
            shares = list(DRUG_PROTEIN_ACTIONS.values())
            shown = pl.Series(actions).gather(rng.choice(len(actions), n_edges, p=shares))
        else:
            shown = pl.Series([display]).gather(np.zeros(n_edges, np.int64))
        forward = pl.DataFrame(
            {"display_relation": shown, "x": xs + x0, "y": ys + y0}
        ).with_columns(pl.lit(relation).alias("relation"))
        mirror = forward.select("relation", "display_relation", x="y", y="x")
        forward = forward.select("relation", "display_relation", "x", "y")
        picked = np.sort(rng.choice(n_edges, dups[relation], replace=False))
        copies = pl.concat([_take(forward, picked), _take(mirror, picked)])
        copies = _take(copies, rng.permutation(copies.height))
        if relation in MIRRORS_AT_END:
            blocks.append(forward)
            tail += [mirror, copies]
        else:
            blocks += [forward, mirror, copies]
    return pl.concat(blocks + tail)


def write_kg(folder: Path, rows: int) -> dict:
    """Write kg.csv (and the DrugBank → ChEMBL map beside it) unless this generator version
    already did; returns the stamp (row and node counts)."""
    stamp_path = folder / "generator.json"
    if stamp_path.is_file() and (folder / primekg.KG_FILE).is_file():
        stamp = json.loads(stamp_path.read_text())
        if stamp.get("version") == GENERATOR_VERSION and stamp.get("seed") == SEED:
            stamp["reused"] = True
            return stamp
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rng = np.random.default_rng(SEED)
    nodes = generate_nodes(rng)
    order = generate_rows(nodes, rows, rng)
    ends = {
        side: _take(nodes, order[side]).select(
            pl.col("index").alias(f"{side}_index"),
            *(pl.col(c).alias(f"{side}_{c}") for c in ("id", "type", "name", "source")),
        )
        for side in ("x", "y")
    }
    frame = pl.concat(
        [order.select("relation", "display_relation"), ends["x"], ends["y"]], how="horizontal"
    ).select(KG_COLUMNS)
    partial = folder / (primekg.KG_FILE + ".part")
    frame.write_csv(partial)
    partial.replace(folder / primekg.KG_FILE)
    drug_map = folder / primekg.DRUG_MAP_FILE
    # the real UniChem map: some DB ids get ChEMBL xrefs
    shared_map = primekg.SOURCE.fetch_options(Settings.from_env())["shared"][primekg.DRUG_MAP_FILE]
    if shared_map.is_file():
        shutil.copyfile(shared_map, drug_map)
    else:
        drug_map.write_text("drugbank_id\tchembl_id\nDB00014\tCHEMBL1200501\n")
    stamp = {
        "version": GENERATOR_VERSION,
        "seed": SEED,
        "rows": frame.height,
        "relations": dict(frame.group_by("relation").len().iter_rows()),
        "nodes": dict(nodes.group_by("type").len().sort("type").iter_rows()),
        "seconds": round(time.perf_counter() - started, 1),
        "bytes": (folder / primekg.KG_FILE).stat().st_size,
    }
    stamp_path.write_text(json.dumps(stamp, indent=1))
    return {**stamp, "reused": False}


# -- the measured steps (each in its own process) --------------------------------------------
def fetched_from(folder: Path) -> tuple[Fetched, Release]:
    """The generated files as a fetch would hand them over, and their release (no sha256 of
    the 1 GB file: it is not what is measured)."""
    files = {
        primekg.KG_FILE: folder / primekg.KG_FILE,
        primekg.DRUG_MAP_FILE: folder / primekg.DRUG_MAP_FILE,
    }
    checksums = {name: f"bench-{folder.name}" for name in files}
    fetched = Fetched(files, primekg.RELEASE, checksums, sample=False)
    info = primekg.SOURCE
    release = Release(
        info.infores, fetched.version, info.license, checksums, code=code_key(primekg)
    )
    return fetched, release


def peak_rss_gb() -> float:
    """This process's peak resident memory (Linux ru_maxrss is in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def _report(name: str, seconds: float, count: int, unit: str) -> None:
    rate = count / seconds if seconds else float("inf")
    print(f"  {name:<28} {seconds:6.2f} s  {count:>10,} {unit:<9} {rate:>11,.0f}/s", flush=True)


def step_pipeline(folder: Path) -> None:
    """Phase timings of parse → node table → collapse → orient, peak RSS, collapse counts."""
    gc.collect()
    fetched, _ = fetched_from(folder)
    print(
        f"[pipeline] fresh process, polars {pl.__version__}, {pl.thread_pool_size()} threads, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    started = clock = time.perf_counter()

    def lap() -> float:
        nonlocal clock
        now = time.perf_counter()
        seconds, clock = now - clock, now
        return seconds

    frames = primekg.parse(fetched)
    n = frames["edges"].height
    _report("parse (read_kg + checks)", lap(), n, "rows")
    rows = frames["edges"]
    nodes = primekg.node_table(rows)
    _report("node table + CURIEs", lap(), n, "rows")
    kept, counts = primekg.collapse(rows, nodes)
    _report("collapse", lap(), n, "rows")
    edges = primekg.orient(kept)
    _report("orient", lap(), kept.height, "edges")
    total = time.perf_counter() - started
    rss = peak_rss_gb()
    ok = "within" if total <= TARGET_S and rss <= TARGET_GB else "OVER"
    print(
        f"  total: {total:.2f} s for {n:,} rows ({n / total:,.0f} rows/s), {edges.height:,} edges"
    )
    print(f"  peak RSS: {rss:.2f} GB ({ok} the must-hold {TARGET_S:.0f} s / {TARGET_GB:.0f} GB)")
    print(f"  collapse counts: {counts}", flush=True)
    del frames, rows, nodes, kept, edges
    gc.collect()
    lap()
    read_kg(fetched.files[primekg.KG_FILE])
    print(f"  (read_kg alone, run again after: {lap():.2f} s)", flush=True)


def edge_slice(records: Records, n: int) -> Records:
    """About ``n`` edges, every type in proportion (a seeded sample, in the records' order), with
    the node and stub rows their endpoints need."""
    total = sum(f.height for f in records.edges.values())
    takes = {t: min(f.height, n * f.height // total) for t, f in records.edges.items()}
    largest = max(takes, key=takes.__getitem__)  # the rounding remainder
    takes[largest] = min(records.edges[largest].height, takes[largest] + n - sum(takes.values()))
    edges = {
        rel_type: frame.sample(takes[rel_type], seed=SEED).sort("subject", "object", "id")
        for rel_type, frame in records.edges.items()
    }
    ends = pl.concat(
        [
            f.select(pl.col(end).alias("id"), pl.col(f"{end}_label").alias("label"))
            for f in edges.values()
            for end in ("subject", "object")
        ]
    ).unique()
    needed = {str(k[0]): p["id"] for k, p in ends.partition_by("label", as_dict=True).items()}

    def keep(frames: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
        return {
            label: frame.filter(pl.col("id").is_in(needed[label].implode()))
            for label, frame in frames.items()
            if label in needed
        }

    return Records(nodes=keep(records.nodes), stubs=keep(records.stubs), edges=edges)


def load_slice(records: Records, release: Release, n: int) -> None:
    """Load the slice into a fresh embedded engine (temporary BIOKG_HOME) and stop it."""
    sliced = edge_slice(records, n)
    schema = load_schema()
    validate(sliced, schema, source=release.source)
    home = Path(tempfile.mkdtemp(prefix="biokg-bench-primekg-"))
    ports = {"BIOKG_BOLT_PORT": str(free_port()), "BIOKG_HTTP_PORT": str(free_port())}
    settings = Settings.from_env({**os.environ, **ports, "BIOKG_HOME": str(home)})
    nodes = sum(f.height for f in (*sliced.nodes.values(), *sliced.stubs.values()))
    edges = sum(f.height for f in sliced.edges.values())
    print(f"[load] slice: {edges:,} edges, {nodes:,} nodes and stubs; BIOKG_HOME {home}")
    started = time.perf_counter()
    store = GraphStore.connect(settings)
    try:
        store.apply_schema(schema)
        print(f"  engine start + schema: {time.perf_counter() - started:.1f} s", flush=True)
        writer = GraphWriter(store, schema, batch_size=settings.batch_size, bulk=settings.bulk_load)
        marks: dict[str, float] = {}

        def progress(what: str, done: int, total: int) -> None:
            marks["edges" if what.endswith(" edges") else "nodes"] = time.perf_counter()

        clock = time.perf_counter()
        result = writer.load(sliced, release, progress=progress)
        end = time.perf_counter()
        node_s = marks.get("nodes", clock) - clock
        edge_s = end - marks.get("nodes", clock)
        written = result.edges_written
        print(
            f"  nodes: {result.nodes_created:,} created in {node_s:.1f} s "
            f"({result.nodes_created / max(node_s, 1e-9):,.0f}/s, Cypher)"
        )
        print(
            f"  edges: {written:,} in {edge_s:.1f} s ({written / edge_s:,.0f} edges/s, "
            f"bulk={writer.bulk}); whole load {end - clock:.1f} s, "
            f"{written / (end - clock):,.0f} edges/s with the node writes"
        )
        server = embedded.running_server(settings)
        if server is not None:
            print(f"  engine peak RSS: {_proc_peak_gb(server.pid):.2f} GB")
    finally:
        store.close()
        stop_background(settings)
        shutil.rmtree(home, ignore_errors=True)


def _proc_peak_gb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024**2
    return float("nan")


def export_csv(records: Records) -> None:
    """``biokg export neo4j-admin``'s merge and CSV writing, on the full normalized records."""
    out = Path(tempfile.mkdtemp(prefix="biokg-bench-primekg-export-"))
    try:
        clock = time.perf_counter()
        merged = merge_records([records])
        merge_s = time.perf_counter() - clock
        write_neo4j_admin_csv(merged, load_schema(), out)
        write_s = time.perf_counter() - clock - merge_s
        nodes = sum(f.height for f in merged.nodes.values())
        edges = sum(f.height for f in merged.edges.values())
        size = sum(p.stat().st_size for p in out.iterdir()) / 1024**2
        print(
            f"[export] neo4j-admin CSVs of the full records: merge {merge_s:.1f} s, write "
            f"{write_s:.1f} s: {nodes:,} node + {edges:,} edge rows, "
            f"{(nodes + edges) / write_s:,.0f} rows/s ({edges / write_s:,.0f} edge rows/s); "
            f"{size:,.0f} MB in {len(list(out.iterdir()))} files"
        )
    finally:
        shutil.rmtree(out, ignore_errors=True)


def step_records(folder: Path, slice_edges: int, load: bool, export: bool) -> None:
    """Full normalize (and validate, bounds), then the engine load and the export."""
    gc.collect()
    fetched, release = fetched_from(folder)
    schema = load_schema()
    clock = time.perf_counter()
    frames = primekg.parse(fetched)
    parse_s = time.perf_counter() - clock
    n = frames["edges"].height
    print(
        f"[normalize] fresh process, load average {os.getloadavg()[0]:.1f}; parse {parse_s:.2f} s "
        "(not counted below)",
        flush=True,
    )
    clock = time.perf_counter()
    records = primekg.normalize(frames, release=release)
    normalize_s = time.perf_counter() - clock
    del frames
    edges = sum(f.height for f in records.edges.values())
    print(
        f"  normalize: {normalize_s:.2f} s ({n / normalize_s:,.0f} rows/s, "
        f"{edges:,} edges); peak RSS so far (parse + normalize) {peak_rss_gb():.2f} GB"
    )
    print(f"  records: {records.counts()}")
    print(f"  stubs: { {k: v.height for k, v in sorted(records.stubs.items())} }")
    clock = time.perf_counter()
    validate(records, schema, source=release.source)
    validate_s = time.perf_counter() - clock
    bounds = "met"
    try:
        primekg.SOURCE.check_bounds(records, scale_ok=n < FULL_ROWS)
    except Exception as err:  # reported, not fatal: the numbers are what this run is for
        bounds = f"NOT met: {err}"
    print(f"  validate: {validate_s:.2f} s; count bounds {bounds}", flush=True)
    if load:
        load_slice(records, release, slice_edges)
    if export:
        export_csv(records)
    print(f"  peak RSS of this process: {peak_rss_gb():.2f} GB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=FULL_ROWS, help="kg.csv rows to generate")
    parser.add_argument("--slice", type=int, default=SLICE_EDGES, help="edges to load")
    parser.add_argument("--no-load", action="store_true", help="skip the engine load")
    parser.add_argument("--no-export", action="store_true", help="skip the neo4j-admin export")
    parser.add_argument("--cache-dir", type=Path, default=CACHE)
    parser.add_argument("--step", choices=("pipeline", "records"), help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step == "pipeline":
        return step_pipeline(args.data)
    if args.step == "records":
        return step_records(args.data, args.slice, not args.no_load, not args.no_export)
    total = sum(RELATION_ROWS.values())
    print(
        f"{os.cpu_count()} cores; PrimeKG v2.1 relation rows sum to {total:,} "
        f"({'=' if total == FULL_ROWS else '!='} {FULL_ROWS:,}) over {len(RELATION_ROWS)} relations"
    )
    folder = args.cache_dir / f"v{GENERATOR_VERSION}-{args.rows}"
    clock = time.perf_counter()
    stamp = write_kg(folder, args.rows)
    how = "reused" if stamp["reused"] else f"generated in {time.perf_counter() - clock:.1f} s"
    print(
        f"kg.csv: {stamp['rows']:,} rows, {stamp['bytes'] / 1024**2:,.0f} MB, {how} "
        f"({folder}); nodes {sum(stamp['nodes'].values()):,}: {stamp['nodes']}",
        flush=True,
    )
    me = [sys.executable, str(Path(__file__).resolve()), "--data", str(folder)]
    subprocess.run([*me, "--step", "pipeline"], check=True)
    flags = ["--slice", str(args.slice)] + ["--no-load"] * args.no_load
    flags += ["--no-export"] * args.no_export
    subprocess.run([*me, "--step", "records", *flags], check=True)


if __name__ == "__main__":
    main()
