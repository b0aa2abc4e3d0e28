"""A ChEMBL release of real size and shape: the SQLite dump in ChEMBL's schema, packaged as
``chembl_NN_sqlite.tar.gz`` with the release's ``checksums.txt``.

The file starts from the real offline SQLite (:func:`biokg.ingest.offline.chembl.
build_chembl_sqlite`: 2,628 approved drugs with their real ids and names, curated mechanisms
and indications) and adds generated molecules up to the release's counts. The counts
(:data:`FULL`) are those of ChEMBL 35 (December 2024) as its release notes and the schema's
tables give them, rounded: 2.5M molecules, of which ~42,000 have a preferred name and ~17,600 a
max_phase (4,200 approved), ~190,000 synonym rows (a third trade names), 7,330 drug_mechanism
rows on ~1,700 targets, 55,400 drug_indication rows on ~4,000 MeSH headings. Generated
molecules are CHEMBL90000000+ with pseudo-word names; targets are real human UniProt accessions
(org.Hs.eg.db), so mechanisms land on real genes; MeSH ids are D900000000+, PMIDs 90000000+.
Only the tables and columns of :data:`biokg.ingest.offline.chembl.TABLES` are written.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import tarfile
from contextlib import closing
from pathlib import Path

import numpy as np
import polars as pl
from release_common import human_genes, out_of_range_ids, pseudo_words, stamped

from biokg.ingest.offline.chembl import build_chembl_sqlite

GENERATOR_VERSION = "1"
SEED = 35
RELEASE = "36"
FULL = {
    "molecules": 2_496_335,
    "named": 42_000,
    "synonyms": 190_000,
    "mechanisms": 7_330,
    "targets": 1_700,
    "indications": 55_442,
    "mesh": 4_000,
}
PHASES = {4.0: 4_200, 3.0: 2_900, 2.0: 4_700, 1.0: 3_300, 0.5: 1_900, -1.0: 600}
SALT_SHARE = 0.04  # molecules whose parent is another molecule (salts, hydrates)
SYN_TYPES = {
    "TRADE_NAME": 33,
    "RESEARCH_CODE": 30,
    "OTHER": 12,
    "INN": 9,
    "USAN": 7,
    "BAN": 4,
    "JAN": 3,
    "FDA": 2,
}
ACTIONS = {
    "INHIBITOR": 45,
    "ANTAGONIST": 15,
    "AGONIST": 12,
    "BLOCKER": 6,
    "MODULATOR": 5,
    "POSITIVE ALLOSTERIC MODULATOR": 4,
    "OPENER": 2,
    "ACTIVATOR": 3,
    "BINDING AGENT": 8,
}
SUFFIXES = [
    "mab",
    "nib",
    "zole",
    "pril",
    "statin",
    "olol",
    "sartan",
    "vir",
    "cillin",
    "tide",
    "parin",
    "dronate",
    "afil",
    "setron",
    "triptan",
    "caine",
    "oxacin",
    "platin",
]
NO_TARGET_SHARE = 0.08  # mechanisms without a tid ("unknown" targets)
EFO_ONLY_SHARE = 0.01  # indications with an EFO id but no MeSH id


def counts(scale: float) -> dict[str, int]:
    """The release's counts at ``scale`` (at least one of each)."""
    return {k: max(1, round(v * scale)) for k, v in FULL.items()}


def generate(folder: Path, scale: float) -> dict:
    """The SQLite, tarball and checksums under ``folder`` (cached by version, seed, scale)."""
    key = {"version": GENERATOR_VERSION, "seed": SEED, "scale": scale, "release": RELEASE}
    return stamped(folder, key, lambda out: _write(out, scale))


def _write(folder: Path, scale: float) -> dict:
    db = folder / f"chembl_{RELEASE}.db"
    real = build_chembl_sqlite(folder / "offline.sqlite", cache_dir=folder)
    shutil.copyfile(real, db)
    rng = np.random.default_rng(SEED)
    with closing(sqlite3.connect(db)) as con:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("UPDATE version SET name = ?", (f"ChEMBL_{RELEASE}",))
        written = _fill(con, rng, counts(scale))
        con.commit()
        totals = {
            t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in (
                "molecule_dictionary",
                "molecule_synonyms",
                "drug_mechanism",
                "drug_indication",
            )
        }
    tarball = folder / f"chembl_{RELEASE}_sqlite.tar.gz"
    with tarfile.open(tarball, "w:gz", compresslevel=1) as tar:
        tar.add(db, arcname=f"chembl_{RELEASE}/chembl_{RELEASE}_sqlite/chembl_{RELEASE}.db")
    digest = hashlib.sha256()
    with open(tarball, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    (folder / "checksums.txt").write_text(f"{digest.hexdigest()}  {tarball.name}\n")
    (folder / "offline.sqlite").unlink()
    return {
        "generated": written,
        "tables": totals,
        "db_bytes": db.stat().st_size,
        "tarball_bytes": tarball.stat().st_size,
    }


def _pick(rng: np.random.Generator, weights: dict, n: int) -> list:
    keys = list(weights)
    p = np.array(list(weights.values()), dtype=float)
    return [keys[i] for i in rng.choice(len(keys), size=n, p=p / p.sum())]


def _fill(con: sqlite3.Connection, rng: np.random.Generator, want: dict[str, int]) -> dict:
    """Generated rows after the real ones, up to ``want``; returns what was added per table."""
    start = con.execute("SELECT MAX(molregno) FROM molecule_dictionary").fetchone()[0] + 1
    real = con.execute("SELECT COUNT(*) FROM molecule_dictionary").fetchone()[0]
    n = max(0, want["molecules"] - real)
    regs = np.arange(start, start + n)
    phase = _phases(rng, n, want, real)
    named = phase.is_not_null() | pl.Series(rng.random(n) < want["named"] / max(n, 1) * 0.6)
    words = pseudo_words(rng, max(100, int(named.sum() * 1.3)), syllables=(2, 4))
    names = (
        words.gather(rng.permutation(len(words))[: int(named.sum())])
        + pl.Series(_pick(rng, dict.fromkeys(SUFFIXES, 1), int(named.sum())))
    ).str.to_uppercase()
    pref = pl.Series([None] * n, dtype=pl.String).scatter(np.flatnonzero(named.to_numpy()), names)
    chembl = "CHEMBL" + pl.Series(regs + 90_000_000).cast(pl.String)
    mols = pl.DataFrame(
        {
            "molregno": regs,
            "pref_name": pref,
            "chembl_id": chembl,
            "max_phase": phase,
            "molecule_type": "Small molecule",
        }
    )
    con.executemany(
        "INSERT INTO molecule_dictionary (molregno, pref_name, chembl_id, max_phase, "
        "molecule_type) VALUES (?, ?, ?, ?, ?)",
        mols.iter_rows(),
    )
    con.executemany("INSERT INTO compound_structures VALUES (?, ?, ?)", _structures(rng, regs))
    salt = rng.random(n) < SALT_SHARE
    parents = np.where(salt, rng.choice(regs[~salt], n) if n else regs, regs)
    con.executemany(
        "INSERT INTO molecule_hierarchy VALUES (?, ?, ?)",
        zip(regs.tolist(), parents.tolist(), parents.tolist(), strict=True),
    )
    notable = mols.filter(pl.col("pref_name").is_not_null())
    synonyms = _synonyms(con, rng, notable, want["synonyms"])
    drugs = mols.filter(pl.col("max_phase").is_not_null())["molregno"].to_numpy()
    mechanisms = _mechanisms(con, rng, drugs, want)
    indications = _indications(con, rng, drugs, want)
    return {
        "molecules": n,
        "synonyms": synonyms,
        "mechanisms": mechanisms,
        "indications": indications,
    }


def _phases(rng: np.random.Generator, n: int, want: dict[str, int], real: int) -> pl.Series:
    """max_phase per generated molecule: the release's phase counts, less the real approved."""
    scale = want["molecules"] / FULL["molecules"]
    phases = np.full(n, np.nan)
    slots = rng.permutation(n)
    at = 0
    for value, count in PHASES.items():
        k = max(0, round(count * scale) - (real if value == 4.0 else 0))
        phases[slots[at : at + k]] = value
        at += k
    return pl.Series(phases).fill_nan(None)


def _structures(rng: np.random.Generator, regs: np.ndarray) -> list[tuple]:
    """(molregno, SMILES, InChIKey) with real lengths (SMILES ~45 characters, keys 27)."""
    atoms = np.array(list("CCCCCCNNOOc1c1(=O)"))
    pool = ["".join(rng.choice(atoms, size=rng.integers(12, 80))) for _ in range(5_000)]
    letters = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", dtype="S1")
    raw = rng.choice(letters, size=(len(regs), 24)).view("S24").ravel()
    keys = [f"{k[:14].decode()}-{k[14:24].decode()[:8]}SA-N" for k in raw]
    smiles = rng.choice(len(pool), size=len(regs))
    return [(int(r), pool[s], k) for r, s, k in zip(regs, smiles, keys, strict=True)]


def _synonyms(
    con: sqlite3.Connection, rng: np.random.Generator, notable: pl.DataFrame, want: int
) -> int:
    """Synonym rows over the named molecules: trade names, research codes, INN/USAN/..."""
    if notable.is_empty():
        return 0
    start = con.execute("SELECT MAX(molsyn_id) FROM molecule_synonyms").fetchone()[0] + 1
    owners = rng.choice(notable.height, size=want)
    kinds = _pick(rng, SYN_TYPES, want)
    trade = pseudo_words(rng, max(50, want // 2), syllables=(2, 4))
    names = notable["pref_name"].to_list()
    rows = []
    for i, (owner, kind) in enumerate(zip(owners.tolist(), kinds, strict=True)):
        if kind == "TRADE_NAME":
            text = trade[int(rng.integers(len(trade)))].capitalize()
        elif kind == "RESEARCH_CODE":
            text = f"QZ-{int(rng.integers(10_000, 99_999))}"
        else:
            text = names[owner]
        rows.append((int(notable["molregno"][owner]), kind, start + i, text))
    con.executemany("INSERT INTO molecule_synonyms VALUES (?, ?, ?, ?)", rows)
    return len(rows)


def _mechanisms(
    con: sqlite3.Connection, rng: np.random.Generator, drugs: np.ndarray, want: dict[str, int]
) -> int:
    """Targets on real UniProt accessions, mechanism rows and their references."""
    if not len(drugs):
        return 0
    genes = human_genes().drop_nulls("accession")
    picked = genes.sample(want["targets"], seed=SEED)
    tid0 = con.execute("SELECT COALESCE(MAX(tid), 0) FROM target_dictionary").fetchone()[0] + 1
    tids = list(range(tid0, tid0 + picked.height))
    con.executemany(
        "INSERT INTO target_dictionary VALUES (?, 'SINGLE PROTEIN', ?, 9606, 'Homo sapiens', NULL)",
        zip(tids, picked["symbol"].to_list(), strict=True),
    )
    con.executemany(
        "INSERT INTO component_sequences VALUES (?, 'PROTEIN', ?, NULL, 'Homo sapiens', 9606, ?)",
        zip(tids, picked["accession"].to_list(), picked["symbol"].to_list(), strict=True),
    )
    con.executemany("INSERT INTO target_components VALUES (?, ?, ?, 0)", [(t, t, t) for t in tids])
    mec0 = con.execute("SELECT COALESCE(MAX(mec_id), 0) FROM drug_mechanism").fetchone()[0] + 1
    n = want["mechanisms"]
    actions = _pick(rng, ACTIONS, n)
    rows, refs = [], []
    for i in range(n):
        tid = None if rng.random() < NO_TARGET_SHARE else tids[int(rng.integers(len(tids)))]
        reg = int(drugs[int(rng.integers(len(drugs)))])
        text = f"{picked['symbol'][tids.index(tid)] if tid else 'Unknown'} {actions[i].lower()}"
        rows.append((mec0 + i, mec0 + i, reg, text, tid, actions[i], 1))
        pmid = str(90_000_000 + int(rng.integers(9_999_999)))
        refs.append((mec0 + i, "PubMed", pmid, f"http://europepmc.org/abstract/MED/{pmid}"))
    con.executemany("INSERT INTO drug_mechanism VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    ref0 = con.execute("SELECT COALESCE(MAX(mecref_id), 0) FROM mechanism_refs").fetchone()[0]
    con.executemany(
        "INSERT INTO mechanism_refs VALUES (?, ?, ?, ?, ?)",
        [(ref0 + 1 + i, *r) for i, r in enumerate(refs)],
    )
    return n


def _indications(
    con: sqlite3.Connection, rng: np.random.Generator, drugs: np.ndarray, want: dict[str, int]
) -> int:
    """Indication rows on pseudo MeSH headings (D9........), a few with an EFO id only."""
    if not len(drugs):
        return 0
    mesh = "D" + out_of_range_ids(rng, want["mesh"], 9)
    words = pseudo_words(rng, want["mesh"] * 2)
    headings = [f"{words[2 * i].capitalize()} {words[2 * i + 1]}" for i in range(want["mesh"])]
    efo = "EFO_" + out_of_range_ids(rng, want["mesh"], 7)
    ind0 = con.execute("SELECT COALESCE(MAX(drugind_id), 0) FROM drug_indication").fetchone()[0]
    rows, refs = [], []
    for i in range(want["indications"]):
        d = int(rng.integers(want["mesh"]))
        reg = int(drugs[int(rng.integers(len(drugs)))])
        phase = float(rng.choice([4.0, 3.0, 2.0, 1.0, 0.5], p=[0.3, 0.2, 0.25, 0.2, 0.05]))
        has_mesh = rng.random() >= EFO_ONLY_SHARE
        rows.append(
            (
                ind0 + 1 + i,
                ind0 + 1 + i,
                reg,
                phase,
                mesh[d] if has_mesh else None,
                headings[d] if has_mesh else None,
                efo[d],
                headings[d],
            )
        )
        nct = f"NCT9{int(rng.integers(10_000_000)):07d}"
        refs.append(
            (ind0 + 1 + i, "ClinicalTrials", nct, f"https://clinicaltrials.gov/search?id={nct}")
        )
    con.executemany("INSERT INTO drug_indication VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    ref0 = con.execute("SELECT COALESCE(MAX(indref_id), 0) FROM indication_refs").fetchone()[0]
    con.executemany(
        "INSERT INTO indication_refs VALUES (?, ?, ?, ?, ?)",
        [(ref0 + 1 + i, *r) for i, r in enumerate(refs)],
    )
    return len(rows)
