"""Benchmark: refresh of the full offline corpus with nothing changed, and with 1% of GO's
annotation lines changed, beside a full reload of GO.

The offline files of HPO, GO, ChEMBL and PrimeKG are published by a loopback HTTP mirror
(Last-Modified / If-Modified-Since) with a release marker per source; openFDA has no mirror and
is read from its offline folder (its checksums decide, no request). ChEMBL, PrimeKG and openFDA
are samples (only upper count bounds apply). Steps, on a fresh embedded graph: a first refresh
loads everything whole (and keeps the snapshots), a second finds every marker unchanged, then
every 100th GAF annotation line gets another evidence code and a new release date, and GO is
refreshed as a delta; last, the same GO release is reloaded whole (``biokg build --force``) for
comparison. Writes are the engine's own count of committed write transactions (``writeTx``).

    python benchmarks/bench_refresh.py [--every 100]

Offline inputs are made once in ~/.cache/biokg/bench (as bench_build.py does).

``--release-scale S`` measures the drug sources instead (issue 23: "a 1% change refreshed in
time proportional to the change"): ChEMBL, PrimeKG and KEGG generated at ``S`` of release size
(bench_release.py's generators and loopback mirror, cached) are built online, openFDA from its
offline files (a refresh asks a mirror for the offline layout's files, which the generated bulk
release does not have), then
refreshed with nothing changed (twice: the first refresh after a build records each upstream
marker), then with 1% of PrimeKG's edges taken out (all between non-drug nodes: no drug's
identity changes; :func:`change_primekg`) and a new Dataverse version; last, once more
unchanged. Each refresh
prints its report (which sources were reloaded), seconds and the engine's write transactions.

    python benchmarks/bench_refresh.py --release-scale 0.01 [--no-kegg]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import platform
import shutil
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import polars as pl

from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.core.store.embedded import free_port, write_transactions
from biokg.ingest.bridge import mappings_dir
from biokg.ingest.build import build, fetch_source
from biokg.ingest.refresh import markdown_report, refresh
from biokg.ingest.upstream import upstream_of

SOURCES = ("hpo", "go", "chembl", "primekg", "openfda")
MIRRORED = ("hpo", "go", "chembl", "primekg")
MARKERS = {
    "hpo": lambda v: {"tag_name": f"v{v}"},
    "go": lambda v: {"date": v},
    "chembl": lambda v: {"chembl_db_version": v},
    "primekg": lambda v: {"data": {"versionNumber": v, "versionMinorNumber": 0}},
}


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def publish_offline(mirror: Path, bench_cache: Path) -> None:
    """The offline files of each source under its standard names, and its release marker."""
    offline = Settings.from_env({"BIOKG_HOME": str(bench_cache.parent / "bench-home")})
    offline.home.mkdir(parents=True, exist_ok=True)
    if not (offline.home / "cache").exists():
        (offline.home / "cache").symlink_to(bench_cache)
    for name in MIRRORED:
        folder = mirror / name
        folder.mkdir(parents=True)
        planned = fetch_source(name, offline, offline=True)
        for file in upstream_of(name).files:
            source = planned.fetched.files[file.removesuffix(".gz")]
            if file.endswith(".gz"):
                (folder / file).write_bytes(gzip.compress(source.read_bytes(), 1, mtime=0))
            else:
                shutil.copy(source, folder / file)
        marker = folder / upstream_of(name).marker_name
        marker.write_text(json.dumps(MARKERS[name](planned.fetched.version)))


def change_go(mirror: Path, every: int) -> int:
    """Give every ``every``-th annotation line another evidence code; a new release date."""
    path = mirror / "go" / "goa_human.gaf.gz"
    lines = gzip.decompress(path.read_bytes()).decode().splitlines(keepends=True)
    changed = 0
    for n, line in enumerate(lines):
        if not line.startswith("!") and n % every == 0:
            fields = line.split("\t")
            fields[6] = "TAS" if fields[6] != "TAS" else "IDA"
            lines[n] = "\t".join(fields)
            changed += 1
    path.write_bytes(gzip.compress("".join(lines).encode(), 1, mtime=0))
    (mirror / "go" / "release-date.json").write_text(json.dumps({"date": "2099-01-01"}))
    later = time.time() + 10
    for file in (path, mirror / "go" / "release-date.json"):
        os.utime(file, (later, later))
    return changed


def timed(settings: Settings, what: str, work) -> object:
    writes, started = write_transactions(settings), time.perf_counter()
    result = work()
    seconds = time.perf_counter() - started
    print(f"{what}: {seconds:.2f} s, {write_transactions(settings) - writes} write transactions")
    return result


def change_primekg(folder: Path, every: int) -> int:
    """Take one in ``every`` of kg.csv's edges out (``1/every`` of its edge keys: relation and
    unordered pair), all of them between non-drug nodes, so no drug's identity changes: each
    row of a key taken out (both directions) becomes a copy of row 0, so no other row moves
    (edges cite their row). The Dataverse marker names a new version. Returns the keys taken."""
    rows = pl.read_csv(folder / "kg.csv", infer_schema=False)
    pair = pl.concat_str(
        [pl.col("relation"), pl.min_horizontal("x_id", "y_id"), pl.max_horizontal("x_id", "y_id")],
        separator="|",
    )
    keyed = rows.with_columns(pair.alias("key"))
    drug = (pl.col("x_type") == "drug") | (pl.col("y_type") == "drug")
    every_key = keyed["key"].n_unique()
    candidates = keyed.filter(~drug)["key"].unique(maintain_order=True)
    step = max(1, candidates.len() * every // every_key)
    gone = set(candidates.gather_every(step).to_list()) - {keyed["key"][0]}
    mask = keyed["key"].is_in(list(gone))
    result = rows.with_columns(
        pl.when(mask).then(pl.lit(v)).otherwise(pl.col(c)).alias(c)
        for c, v in zip(rows.columns, rows.row(0), strict=True)
    )
    result.write_csv(folder / "kg.csv")
    (folder / "dataset.json").write_text(
        json.dumps({"data": {"versionNumber": 2, "versionMinorNumber": 2}})
    )
    print(f"PrimeKG: {every_key:,} edge keys, {len(gone):,} taken out ({int(mask.sum()):,} rows)")
    return len(gone)


def release_scale(scale: float, every: int, kegg: bool) -> None:
    """The drug sources at ``scale`` of release size (module docstring, --release-scale)."""
    from release_common import TEST_DATA
    from release_mirror import Mirror, publish

    sources = ("chembl", "primekg", "openfda") + (("kegg",) if kegg else ())
    work = Path(tempfile.mkdtemp(prefix="biokg-bench-refresh-release-"))
    with Mirror() as mirror:
        # openFDA from its offline files, not the mirror: a refresh asks a mirror for the files
        # of the offline layout (harmonized_small.json, ...), which the bulk mirror lacks (404)
        folders = publish(mirror, tuple(s for s in sources if s != "openfda"), scale)
        primekg = work / "primekg-mirror"  # a copy: the 1% change must not touch the cache
        shutil.copytree(folders["primekg"], primekg)
        mirror.routes |= {
            k: primekg / v.name for k, v in mirror.routes.items() if k.startswith("/primekg/")
        }
        home = work / "home"
        (home / "cache").mkdir(parents=True)
        for shared in ("debian", "models"):
            (TEST_DATA / shared).mkdir(parents=True, exist_ok=True)
            (home / "cache" / shared).symlink_to(TEST_DATA / shared)
        settings = Settings.from_env(
            {
                **mirror.env(tuple(s for s in sources if s != "openfda")),
                "BIOKG_HOME": str(home),
                "BIOKG_BOLT_PORT": str(free_port()),
                "BIOKG_HTTP_PORT": str(free_port()),
                "BIOKG_MONDO_DIR": str(mappings_dir(Settings.from_env(), offline=True)),
                "BIOKG_KEGG_ACCEPT_LICENSE": "1",
            }
        )
        # below release size, only the upper count bounds apply (sample)
        run = functools.partial(refresh, sources=sources, offline=True, sample=True, embed=False)
        try:
            embedded.start_background(settings, timeout_s=600)  # a busy machine starts it slowly
            with GraphStore.connect(settings) as store:
                for part, offline in (
                    (("chembl", "primekg"), False),
                    (("openfda",), True),  # refresh reads openFDA's offline files (see above)
                    (("kegg",) if kegg else (), False),
                ):
                    if part:
                        what = f"build of {', '.join(part)} at scale {scale:g}"
                        if offline:
                            what = f"build of {', '.join(part)} (offline files)"
                        timed(
                            settings,
                            what,
                            lambda p=part, o=offline: build(
                                store, settings, p, offline=o, sample=True
                            ),
                        )
                for what in ("first refresh after the build", "refresh, nothing changed"):
                    print(markdown_report(timed(settings, what, lambda: run(store, settings))))
                change_primekg(primekg, every)
                print(
                    markdown_report(
                        timed(
                            settings,
                            "refresh of primekg, 1% changed",
                            lambda: run(store, settings, sources=("primekg",)),
                        )
                    )
                )
                print(
                    markdown_report(
                        timed(settings, "refresh, nothing changed", lambda: run(store, settings))
                    )
                )
        finally:
            embedded.stop_background(settings)
            shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=100, help="change every N-th line/row")
    parser.add_argument(
        "--release-scale", type=float, help="the drug sources at this share of release size"
    )
    parser.add_argument("--no-kegg", action="store_true", help="with --release-scale")
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    if args.release_scale:
        release_scale(args.release_scale, args.every, kegg=not args.no_kegg)
        return
    bench_cache = Path.home() / ".cache" / "biokg" / "bench"
    bench_cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="biokg-bench-refresh-"))
    mirror = work / "mirror"
    publish_offline(mirror, bench_cache)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(mirror)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    env = {f"BIOKG_{name.upper()}_URL": f"{base}/{name}" for name in MIRRORED}
    settings = Settings.from_env(
        {
            **env,
            "BIOKG_HOME": str(work / "home"),
            "BIOKG_BOLT_PORT": str(free_port()),
            "BIOKG_HTTP_PORT": str(free_port()),
        }
    )
    (work / "home" / "cache").mkdir(parents=True)
    (work / "home" / "cache" / "debian").symlink_to(bench_cache / "debian")
    run = functools.partial(refresh, sources=SOURCES, offline=True, sample=True, embed=False)
    try:
        with GraphStore.connect(settings) as store:
            first = timed(
                settings, "first refresh (every source loaded whole)", lambda: run(store, settings)
            )
            print(markdown_report(first))
            same = timed(settings, "refresh, nothing changed", lambda: run(store, settings))
            print(markdown_report(same))
            lines = change_go(mirror, args.every)
            print(f"changed {lines:,} GO annotation lines (every {args.every}th)")
            delta = timed(settings, "refresh, GO changed", lambda: run(store, settings))
            print(markdown_report(delta))
            folder = settings.cache_dir / "refresh" / "go"
            timed(
                settings,
                "full reload of the same GO release (biokg build --force)",
                lambda: build(store, settings, ("go",), data_dir=folder, force=True),
            )
    finally:
        server.shutdown()
        embedded.stop_background(settings)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
