"""What the release-size generators share: pseudo-words that are no real name, the cache stamp,
and the real gene and protein ids they reuse.

Generated names must not collide with real entity names (a question about a real drug must not
find an invented one), so every pseudo-word is checked against wordfreq's English word list,
which holds common drug, gene and disease names too; ids that exist for real are used only for
real records (the genes and UniProt accessions of Debian's org.Hs.eg.db, with their real
symbols). Everything else is drawn from id ranges no real record uses (``9`` followed by
digits: CHEMBL90000000+, MONDO:9000000+, ...).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import numpy as np
import polars as pl
from wordfreq import zipf_frequency

from biokg.ingest.offline.go_corpus import ORG_HS_DB, debian_file

CACHE = Path.home() / ".cache" / "biokg" / "bench"
#: Debian packages are fetched once per machine and shared with the tests (own_graph.TEST_DATA).
TEST_DATA = Path.home() / ".cache" / "biokg" / "test-data"
SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"] + ["in", "ase", "ol", "yl"]


def pseudo_words(
    rng: np.random.Generator, size: int, *, syllables: tuple[int, int] = (2, 5)
) -> pl.Series:
    """``size`` distinct pronounceable words that wordfreq does not know as English (sorted)."""
    words: set[str] = set()
    while len(words) < size:
        parts = rng.choice(len(SYLLABLES), size=rng.integers(*syllables))
        word = "".join(SYLLABLES[i] for i in parts)
        if zipf_frequency(word, "en") == 0.0:
            words.add(word)
    return pl.Series(sorted(words))


def stamped(folder: Path, key: dict, make: Callable[[Path], dict]) -> dict:
    """Run ``make(folder)`` unless ``folder`` holds the output of the same ``key`` (generator
    version, seed, scale); returns its stamp (what ``make`` returned, plus ``reused``)."""
    stamp_path = folder / "generator.json"
    if stamp_path.is_file():
        stamp = json.loads(stamp_path.read_text())
        if stamp.get("key") == key:
            return {**stamp, "reused": True}
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    stamp = {"key": key, **make(folder), "seconds": round(time.perf_counter() - started, 1)}
    stamp_path.write_text(json.dumps(stamp, indent=1))
    return {**stamp, "reused": False}


def human_genes() -> pl.DataFrame:
    """Real human genes: NCBI gene id, symbol and (when it has one) a UniProt accession."""
    path = debian_file(*ORG_HS_DB, TEST_DATA)
    query = (
        "SELECT g.gene_id, i.symbol, MIN(u.uniprot_id) FROM genes g JOIN gene_info i USING (_id) "
        "LEFT JOIN uniprot u USING (_id) GROUP BY g.gene_id, i.symbol"
    )
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as con:
        rows = con.execute(query).fetchall()
    schema = {"gene_id": pl.String, "symbol": pl.String, "accession": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row").sort("gene_id")


def out_of_range_ids(rng: np.random.Generator, n: int, digits: int) -> pl.Series:
    """``n`` distinct ``digits``-digit numbers starting with 9 (no real MONDO, HP, GO, EFO, ...
    id is that high), as strings."""
    low = 9 * 10 ** (digits - 1)
    return pl.Series(rng.choice(10 ** (digits - 1), size=n, replace=False) + low).cast(pl.String)
