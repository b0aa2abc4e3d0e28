"""Benchmark: KEGG at realistic size, from a snapshot folder through parse, normalize and load.

KEGG may not be redistributed, so the snapshot is generated (once, cached under
``~/.cache/biokg/bench/kegg/<scale>/``) in KEGG's exact REST and KGML formats around real ids:
the gene → pathway links of Debian's ``org.Hs.eg.db`` (table ``kegg``, KEGG's 2011 human map:
16,312 links, 229 pathways, 5,868 genes) with the genes' NCBI ids, symbols and UniProt
accessions from the same package, plus invented pathways (ids ``hsa9xxxx``, which KEGG does not
use) of that map's genes up to the current release's shape (:data:`RELEASE_PATHWAYS`,
:data:`RELEASE_LINKS`, times ``--scale`` up to 1: the source's count bounds hold at scale 1).
Everything KEGG writes about them is invented: pathway names
and texts, one KGML per pathway (its genes in entries of one to three, ~1.5 relations per
entry with a realistic subtype mix), drugs (each targeting one to three genes, a third with a
ChEMBL DBLINK) and diseases (one to five genes, OMIM and MeSH DBLINKS). ``--scale`` multiplies
drugs, diseases and relations per pathway.

Printed: rows and seconds of ``parse`` and ``normalize`` (+ validate), the load into a fresh
embedded engine (edges/s), and how many REST requests a fetch of this snapshot makes (at KEGG's
3 a second that, not parsing, is what a first fetch costs).

    python benchmarks/bench_kegg.py [--scale 1] [--no-load]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import resource
import sqlite3
import tempfile
import time
from pathlib import Path

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import free_port, stop_background
from biokg.ingest.build import code_key
from biokg.ingest.formats.kegg_tables import INFO, LISTS, MANIFEST
from biokg.ingest.online.kegg import BATCH, PER_SECOND
from biokg.ingest.records import Release, validate
from biokg.ingest.sources import kegg
from biokg.ingest.writer import GraphWriter
from biokg.schema import load_schema

#: Raise when the generated snapshot would change: a cached one of another version is rewritten.
GENERATOR_VERSION = "2"
SEED = 113
CACHE = Path.home() / ".cache" / "biokg" / "bench" / "kegg"
ORG_HS = (
    Path.home()
    / ".cache/biokg/test-data/debian/r-bioc-org.hs.eg.db/root/usr/lib/R/site-library"
    / "org.Hs.eg.db/extdata/org.Hs.eg.sqlite"
)
DRUGS, DISEASES, RELATIONS_PER_ENTRY = 3_000, 2_000, 1.5
#: KEGG 113 (2025): ~370 human pathways, ~40,000 gene-pathway links (the source's bounds)
RELEASE_PATHWAYS, RELEASE_LINKS = 370, 40_000
#: KGML subtype sets and their weights (activation-heavy, as KEGG's signalling maps are).
SUBTYPE_MIX = [
    (["activation"], 30),
    (["activation", "phosphorylation"], 15),
    (["inhibition"], 12),
    (["inhibition", "dephosphorylation"], 3),
    (["binding/association"], 15),
    (["expression"], 10),
    (["repression"], 2),
    (["indirect effect"], 8),
    (["phosphorylation"], 5),
]


def _flat(fields: list[tuple[str, list[str]]]) -> str:
    lines = [
        (name if i == 0 else "").ljust(12) + value
        for name, values in fields
        for i, value in enumerate(values)
    ]
    return "\n".join(lines) + "\n///\n"


def _org_hs() -> tuple[dict[str, list[str]], dict[str, str], dict[str, list[str]]]:
    """(pathway → genes, gene → symbol, gene → UniProt accessions) from org.Hs.eg.db."""
    if not ORG_HS.is_file():
        raise SystemExit(f"{ORG_HS} missing: run the test suite once (it fetches org.Hs.eg.db)")
    db = sqlite3.connect(ORG_HS)
    rows = db.execute(
        "SELECT 'hsa' || k.path_id, g.gene_id FROM kegg k JOIN genes g USING (_id) ORDER BY 1, 2"
    )
    members: dict[str, list[str]] = {}
    for pathway, gene in rows:
        members.setdefault(pathway, []).append(gene)
    symbols = dict(
        db.execute("SELECT g.gene_id, i.symbol FROM genes g JOIN gene_info i USING (_id)")
    )
    uniprot: dict[str, list[str]] = {}
    for gene, accession in db.execute(
        "SELECT g.gene_id, u.uniprot_id FROM genes g JOIN uniprot u USING (_id) ORDER BY 1, 2"
    ):
        uniprot.setdefault(gene, []).append(accession)
    return members, symbols, uniprot


def generate(folder: Path, scale: float) -> dict[str, int]:
    """Write the snapshot (module docstring); returns its counts."""
    rng = random.Random(SEED)
    members, symbols, uniprot = _org_hs()
    genes = sorted({g for gs in members.values() for g in gs}, key=int)
    share = min(scale, 1.0)
    invented = round((RELEASE_PATHWAYS - len(members)) * share)
    missing = RELEASE_LINKS * share - sum(map(len, members.values()))
    for n in range(1, invented + 1):
        size = max(1, min(len(genes), round(missing / invented)))
        members[f"hsa9{n:04d}"] = sorted(rng.sample(genes, size), key=int)

    def write(path: str, text: str) -> None:
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    write(
        INFO,
        "kegg             Kyoto Encyclopedia of Genes and Genomes\n"
        "kegg             Release 113.0+/bench, Jan 25\n",
    )
    names = {p: f"Benchmark pathway {p[3:]}" for p in members}
    write(
        LISTS["pathways"], "".join(f"{p}\t{n} - Homo sapiens (human)\n" for p, n in names.items())
    )
    write(
        LISTS["gene_pathways"],
        "".join(f"hsa:{g}\tpath:{p}\n" for p, gs in members.items() for g in gs),
    )
    write(LISTS["ncbi"], "".join(f"hsa:{g}\tncbi-geneid:{g}\n" for g in genes))
    write(
        LISTS["uniprot"],
        "".join(f"hsa:{g}\tup:{u}\n" for g in genes for u in uniprot.get(g, [])),
    )
    drugs = {
        f"D{n:05d}": rng.sample(genes, rng.randint(1, 3)) for n in range(1, int(DRUGS * scale) + 1)
    }
    write(LISTS["drug_genes"], "".join(f"dr:{d}\thsa:{g}\n" for d, gs in drugs.items() for g in gs))
    diseases = {
        f"H{n:05d}": rng.sample(genes, rng.randint(1, 5))
        for n in range(1, int(DISEASES * scale) + 1)
    }
    write(
        LISTS["gene_diseases"],
        "".join(f"hsa:{g}\tds:{d}\n" for d, gs in diseases.items() for g in gs),
    )
    for pathway, gs in members.items():
        write(
            f"get/path:{pathway}",
            _flat(
                [
                    ("ENTRY", [f"{pathway}                    Pathway"]),
                    ("NAME", [f"{names[pathway]} - Homo sapiens (human)"]),
                    ("DESCRIPTION", [f"Benchmark text for {pathway}."]),
                    ("CLASS", ["Benchmark; Generated"]),
                    ("DRUG", [f"{d}  Benchmark drug {d}" for d in rng.sample(sorted(drugs), 3)]),
                    (
                        "GENE",
                        [f"{g}  {symbols.get(g, 'G' + g)}; benchmark gene [KO:K00001]" for g in gs],
                    ),
                ]
            ),
        )
    for drug, gs in drugs.items():
        links = [f"ChEMBL: CHEMBL{900000 + int(drug[1:])}"] if rng.random() < 1 / 3 else []
        write(
            f"get/dr:{drug}",
            _flat(
                [
                    ("ENTRY", [f"{drug}                      Drug"]),
                    ("NAME", [f"Benchmark drug {drug} (INN);", f"Brand{drug} (TN)"]),
                    ("EFFICACY", ["Benchmark efficacy"]),
                    ("TARGET", [f"{symbols.get(g, g)} [HSA:{g}] [KO:K00001]" for g in gs]),
                    ("DBLINKS", [f"PubChem: {int(drug[1:]) + 7000}", *links]),
                ]
            ),
        )
    for disease, gs in diseases.items():
        omim = " ".join(str(100000 + rng.randrange(500000)) for _ in range(rng.randint(1, 3)))
        write(
            f"get/ds:{disease}",
            _flat(
                [
                    ("ENTRY", [f"{disease}                      Disease"]),
                    ("NAME", [f"Benchmark disease {disease}"]),
                    ("DESCRIPTION", ["Benchmark text."]),
                    ("GENE", [f"{symbols.get(g, g)} [HSA:{g}] [KO:K00001]" for g in gs]),
                    (
                        "DRUG",
                        [f"Benchmark drug {d} [DR:{d}]" for d in rng.sample(sorted(drugs), 2)],
                    ),
                    ("DBLINKS", [f"MeSH: D{rng.randrange(1, 99999):06d}", f"OMIM: {omim}"]),
                ]
            ),
        )
    relations = 0
    for pathway, gs in members.items():
        entries = [gs[i : i + rng.randint(1, 3)] for i in range(0, len(gs), 2)]
        lines = [
            '<?xml version="1.0"?>',
            '<!DOCTYPE pathway SYSTEM "https://www.kegg.jp/kegg/xml/KGML_v0.7.2_.dtd">',
            f'<pathway name="path:{pathway}" org="hsa" number="{pathway[3:]}"',
            f'         title="{names[pathway]}">',
        ]
        for n, entry in enumerate(entries, start=1):
            lines += [
                f'    <entry id="{n}" name="{" ".join("hsa:" + g for g in entry)}" type="gene">',
                f'        <graphics name="{symbols.get(entry[0], entry[0])}..." type="rectangle"/>',
                "    </entry>",
            ]
        subtypes, weights = zip(*SUBTYPE_MIX, strict=True)
        for _ in range(int(len(entries) * RELATIONS_PER_ENTRY * scale) if len(entries) > 1 else 0):
            a, b = rng.sample(range(1, len(entries) + 1), 2)
            lines.append(f'    <relation entry1="{a}" entry2="{b}" type="PPrel">')
            lines += [
                f'        <subtype name="{s}" value="--&gt;"/>'
                for s in rng.choices(subtypes, weights)[0]
            ]
            lines.append("    </relation>")
            relations += 1
        write(f"get/{pathway}/kgml", "\n".join([*lines, "</pathway>"]) + "\n")
    manifest = {"release": "113.0+/bench", "base_url": "https://rest.kegg.jp", "sample": True}
    write(MANIFEST, json.dumps(manifest))
    return {
        "pathways": len(members),
        "gene-pathway links": sum(map(len, members.values())),
        "genes": len(genes),
        "drugs": len(drugs),
        "diseases": len(diseases),
        "KGML relations": relations,
    }


def snapshot(scale: float) -> tuple[Path, dict[str, int]]:
    folder = CACHE / f"scale-{scale:g}"
    stamp = folder / "generated.json"
    if stamp.exists() and json.loads(stamp.read_text()).get("version") == GENERATOR_VERSION:
        return folder / "snapshot", json.loads(stamp.read_text())["counts"]
    counts = generate(folder / "snapshot", scale)
    stamp.write_text(json.dumps({"version": GENERATOR_VERSION, "counts": counts}))
    return folder / "snapshot", counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--no-load", action="store_true")
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    started = time.perf_counter()
    folder, counts = snapshot(args.scale)
    print(f"snapshot {folder} ({time.perf_counter() - started:.1f} s): {counts}")
    requests = (
        1
        + len(LISTS)
        + counts["pathways"]
        + sum(math.ceil(counts[k] / BATCH) for k in ("pathways", "drugs", "diseases"))
    )
    print(
        f"a fetch of it: {requests:,} REST requests, {requests / PER_SECOND / 60:.1f} min "
        f"at KEGG's {PER_SECOND:g}/s"
    )

    t = time.perf_counter()
    fetched = kegg.fetch(folder, data_dir=folder)
    frames = kegg.parse(fetched)
    parsed = time.perf_counter() - t
    rows = sum(f.height for f in frames.values())
    print(
        f"parse: {len(fetched.files):,} files, {rows:,} rows in {parsed:.2f} s "
        f"({rows / parsed:,.0f} rows/s; {frames['regulation'].height:,} KGML gene pairs)"
    )
    info = kegg.SOURCE
    release = Release(
        info.infores, fetched.version, info.license, fetched.checksums, code=code_key(kegg)
    )
    t = time.perf_counter()
    records = kegg.normalize(frames, release=release)
    validate(records, load_schema(), source=info.infores)
    normalized = time.perf_counter() - t
    edges = sum(f.height for f in records.edges.values())
    nodes = sum(f.height for f in (*records.nodes.values(), *records.stubs.values()))
    print(
        f"normalize + validate: {nodes:,} nodes, {edges:,} edges in {normalized:.2f} s "
        f"({edges / normalized:,.0f} edges/s): {records.counts()}"
    )
    if not args.no_load:
        with tempfile.TemporaryDirectory() as home:
            env = {
                "BIOKG_HOME": home,
                "BIOKG_BOLT_PORT": str(free_port()),
                "BIOKG_HTTP_PORT": str(free_port()),
            }
            settings = Settings.from_env(env)
            with GraphStore.connect(settings) as store:
                store.apply_schema(load_schema())
                t = time.perf_counter()
                GraphWriter(store, load_schema(), batch_size=settings.batch_size).load(
                    records, release
                )
                loaded = time.perf_counter() - t
            stop_background(settings)
        print(
            f"load into a fresh embedded engine: {loaded:.1f} s, {edges / loaded:,.0f} edges/s "
            f"(with {nodes:,} node writes)"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"total {time.perf_counter() - started:.1f} s, peak RSS {peak:,.0f} MB")


if __name__ == "__main__":
    main()
