"""Offline Gene Ontology corpus rendered from Debian's Bioconductor annotation packages.

Why: the official ``go-basic.obo`` and ``goa_human.gaf`` live behind hosts that are not
reachable from every build machine, but Debian mirrors are.  Debian ships Bioconductor's
``GO.db`` and ``org.Hs.eg.db`` SQLite databases, which carry the same GO release; this module
renders them back into the official file formats (OBO 1.2, GAF 2.2) so the rest of the pipeline
can use one code path online and offline.  Output is deterministic (byte-identical re-runs).

Known losses versus the official files: GO.db stores no synonym scopes (all are written as
RELATED, OBO's default), no definition references, subsets or xrefs; org.Hs.eg.db (NCBI gene2go)
stores no per-annotation references, with/from, NOT qualifiers or assigning group.

Licences: Gene Ontology data are CC BY 4.0 (http://geneontology.org/docs/go-citation-policy/);
the Bioconductor annotation packages GO.db, org.Hs.eg.db and GSEABase are Artistic-2.0.
Redistributed outputs must keep the GO attribution carried in the file headers.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import sqlite3
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path

from biokg.core.files import atomic_path
from biokg.errors import BiokgError, SourceFormatError

R_LIB = "usr/lib/R/site-library"
GO_DB = ("r-bioc-go.db", f"{R_LIB}/GO.db/extdata/GO.sqlite")
ORG_HS_DB = ("r-bioc-org.hs.eg.db", f"{R_LIB}/org.Hs.eg.db/extdata/org.Hs.eg.sqlite")
GOSLIM_PLANT = ("r-bioc-gseabase", f"{R_LIB}/GSEABase/extdata/goslim_plant.obo")
RENDER_VERSION = "1"  # bump when the rendering changes, to invalidate cached outputs
ORG_DOI = "DOI:10.18129/B9.bioc.org.Hs.eg.db"

NAMESPACES = {"BP": "biological_process", "MF": "molecular_function", "CC": "cellular_component"}
RELATIONS = {  # GO.db relationship_type -> OBO relation id (None = is_a)
    "isa": None,
    "part of": "part_of",
    "regulates": "regulates",
    "negatively regulates": "negatively_regulates",
    "positively regulates": "positively_regulates",
}
TYPEDEFS = "".join(  # as in go-basic.obo
    f"[Typedef]\nid: {i}\nname: {i.replace('_', ' ')}\nnamespace: external\nxref: {x}\n{extra}\n"
    for i, x, extra in (
        ("negatively_regulates", "RO:0002212", "is_a: regulates ! regulates\n"),
        ("part_of", "BFO:0000050", "is_transitive: true\n"),
        ("positively_regulates", "RO:0002213", "is_a: regulates ! regulates\n"),
        ("regulates", "RO:0002211", "transitive_over: part_of ! part of\n"),
    )
)
GAF_ASPECTS = (("bp", "P", "involved_in"), ("mf", "F", "enables"), ("cc", "C", "located_in"))
_WS = str.maketrans("\t\r\n", "   ")
_LIST_ERRORS = ("Unable to locate package", "has no installation candidate", "Failed to fetch")


def _apt_download(package: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["apt-get", "download", package],
            cwd=workdir,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError as exc:
        raise BiokgError(
            f"cannot fetch Debian package {package!r}: apt-get not found "
            "(this offline corpus needs a Debian/Ubuntu host)"
        ) from exc


@functools.cache
def _apt_update() -> None:
    """Refresh the package lists at most once per process."""
    subprocess.run(["apt-get", "update"], capture_output=True, text=True, check=False)


def debian_file(package: str, member: str, cache_dir: Path) -> Path:
    """Path of ``member`` inside Debian ``package``, downloaded and unpacked once into the cache.

    Why: Debian mirrors are the one package source reachable offline-ish; ``apt-get download``
    needs no root and no install, ``dpkg -x`` unpacks without touching the system.
    """
    base = Path(cache_dir) / "debian" / package
    target = base / "root" / member
    if target.is_file():
        return target
    base.mkdir(parents=True, exist_ok=True)
    # one download per package at a time: sources are fetched in threads (GO and HPO both read
    # org.Hs.eg.db), and each clears the download folder first
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_file():  # another thread or process unpacked it meanwhile
            return target
        return _download_and_unpack(package, member, base)


def _download_and_unpack(package: str, member: str, base: Path) -> Path:
    target = base / "root" / member
    debdir = base / "deb"
    shutil.rmtree(debdir, ignore_errors=True)
    debdir.mkdir(parents=True)
    proc = _apt_download(package, debdir)
    if proc.returncode != 0 and any(m in proc.stderr for m in _LIST_ERRORS) and os.geteuid() == 0:
        _apt_update()  # fresh machine (empty /var/lib/apt/lists) or stale lists
        proc = _apt_download(package, debdir)
    debs = sorted(debdir.glob("*.deb"))
    if proc.returncode != 0 or len(debs) != 1:
        shutil.rmtree(debdir, ignore_errors=True)
        tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
        raise BiokgError(
            f"apt-get download {package} failed (exit {proc.returncode}): {tail}\n"
            f"Run `apt-get update` (as root) so the package lists know {package!r}, "
            "and check that a Debian mirror is reachable; then retry."
        )
    tmp = Path(tempfile.mkdtemp(prefix="extract-", dir=base))
    try:
        res = subprocess.run(
            ["dpkg", "-x", str(debs[0]), str(tmp)], capture_output=True, text=True, check=False
        )
        if res.returncode != 0:
            raise BiokgError(f"dpkg -x {debs[0].name} failed: {res.stderr.strip()[-500:]}")
        if not (tmp / member).is_file():
            raise BiokgError(f"Debian package {package!r} ({debs[0].name}) has no {member!r}")
        shutil.rmtree(base / "root", ignore_errors=True)
        tmp.rename(base / "root")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(debdir, ignore_errors=True)  # the unpacked tree is all we keep
    return target


def _connect(path: Path, tables: tuple[str, ...]) -> sqlite3.Connection:
    if not Path(path).is_file():
        raise SourceFormatError(f"{path}: no such SQLite file")
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    missing = sorted(set(tables) - have)
    if missing:
        con.close()
        raise SourceFormatError(f"{path}: not the expected Bioconductor schema, missing {missing}")
    return con


def _meta(con: sqlite3.Connection, name: str, path: Path) -> str:
    row = con.execute("SELECT value FROM metadata WHERE name = ?", (name,)).fetchone()
    if row is None or not row[0]:
        raise SourceFormatError(f"{path}: metadata has no {name}")
    return str(row[0])


def _flat(text: str) -> str:
    """Single-line text (GAF columns, OBO values): tab/CR/LF become spaces."""
    return text.translate(_WS)


def _obo(text: str) -> str:
    """OBO 1.4 unquoted value: one line, backslash escaped."""
    return _flat(text).replace("\\", "\\\\")


def _quoted(text: str) -> str:
    """OBO 1.4 quoted string: escape backslash and double quote."""
    return '"' + _obo(text).replace('"', '\\"') + '"'


def _atomic_write(out: Path, lines: list[str]) -> None:
    with (
        atomic_path(Path(out)) as partial,
        open(partial, "w", encoding="utf-8", newline="\n") as fh,
    ):
        fh.writelines(lines)


def write_go_basic_obo(go_sqlite: Path, out: Path) -> dict[str, int]:
    """Render GO.db's SQLite as go-basic.obo (OBO 1.2); returns term/edge/synonym counts.

    Why: downstream parsers expect the official go-basic.obo; GO.db holds the same release
    (is_a, part_of, regulates edges only, i.e. exactly the go-basic relation set).
    """
    tables = (
        "go_term",
        "go_synonym",
        "go_obsolete",
        "metadata",
        "go_bp_parents",
        "go_mf_parents",
        "go_cc_parents",
    )
    con = _connect(go_sqlite, tables)
    try:
        release = _meta(con, "GOSOURCEDATE", go_sqlite)
        terms = {
            r[0]: r[1:]
            for r in con.execute(
                "SELECT _id, go_id, term, ontology, definition FROM go_term "
                "WHERE ontology IN ('BP', 'MF', 'CC')"
            )
        }
        obsolete = con.execute(
            "SELECT go_id, term, ontology, definition FROM go_obsolete "
            "WHERE ontology IN ('BP', 'MF', 'CC')"
        ).fetchall()
        syns: dict[int, set[str]] = {}
        alts: dict[int, set[str]] = {}
        for tid, syn, like_go_id in con.execute("SELECT _id, synonym, like_go_id FROM go_synonym"):
            (alts if like_go_id == 1 else syns).setdefault(tid, set()).add(syn)
        edges: dict[int, set[tuple[str, str]]] = {}
        counts = dict.fromkeys(
            ("is_a", "part_of", "regulates", "negatively_regulates", "positively_regulates"), 0
        )
        for ont in ("bp", "mf", "cc"):
            for child, parent, rtype in con.execute(
                f"SELECT _id, _parent_id, relationship_type FROM go_{ont}_parents"
            ):
                if child not in terms or parent not in terms:
                    continue  # edges to the pseudo-root 'all' (ontology 'universal')
                if rtype not in RELATIONS:
                    raise SourceFormatError(f"{go_sqlite}: unknown relationship {rtype!r}")
                rel = RELATIONS[rtype] or "is_a"
                edges.setdefault(child, set()).add((rel, terms[parent][0]))
    finally:
        con.close()
    for rels in edges.values():
        for rel, _ in rels:
            counts[rel] += 1
    names = {go_id: _flat(name) for go_id, name, _, _ in terms.values()}
    lines = [
        "format-version: 1.2\n",
        f"data-version: releases/{release}\n",
        "default-namespace: gene_ontology\n",
        "ontology: go\n",
        f"remark: Rendered by biokg from Bioconductor GO.db (GO release {release}, source "
        "go-basic.obo); GO.db does not store synonym scopes, so all synonyms are RELATED "
        "(the OBO default), and definition references, subsets and xrefs are absent.\n",
        "remark: Gene Ontology data (c) Gene Ontology Consortium, licensed CC BY 4.0 "
        "(http://creativecommons.org/licenses/by/4.0/); GO.db is Artistic-2.0.\n",
    ]
    stanzas: list[tuple[str, list[str]]] = []
    for tid, (go_id, name, ont, definition) in terms.items():
        st = [f"id: {go_id}\n", f"name: {_obo(name)}\n", f"namespace: {NAMESPACES[ont]}\n"]
        st += [f"alt_id: {a}\n" for a in sorted(alts.get(tid, ()))]
        if definition:
            st.append(f"def: {_quoted(definition)} []\n")
        # GO.db has no synonym scope column: RELATED is the OBO 1.2/1.4 default scope.
        st += [f"synonym: {_quoted(s)} RELATED []\n" for s in sorted(syns.get(tid, ()))]
        rels = sorted(edges.get(tid, ()), key=lambda e: (e[0] != "is_a", e))
        st += [
            f"is_a: {p} ! {names[p]}\n"
            if rel == "is_a"
            else f"relationship: {rel} {p} ! {names[p]}\n"
            for rel, p in rels
        ]
        stanzas.append((go_id, st))
    for go_id, name, ont, definition in obsolete:
        st = [f"id: {go_id}\n", f"name: {_obo(name)}\n", f"namespace: {NAMESPACES[ont]}\n"]
        if definition:
            st.append(f"def: {_quoted(definition)} []\n")
        stanzas.append((go_id, [*st, "is_obsolete: true\n"]))
    for _, st in sorted(stanzas):
        lines += ["\n", "[Term]\n", *st]
    lines += ["\n", TYPEDEFS.rstrip("\n") + "\n"]
    _atomic_write(out, lines)
    return {
        "terms": len(terms),
        "obsolete": len(obsolete),
        **counts,
        "synonyms": sum(map(len, syns.values())),
        "alt_ids": sum(map(len, alts.values())),
    }


def _gaf_date(value: str) -> str:
    for fmt in ("%Y-%b%d", "%Y-%m-%d", "%Y%m%d"):
        try:
            return datetime.strptime(value.strip(), fmt).strftime("%Y%m%d")
        except ValueError:
            continue
    raise SourceFormatError(f"unrecognised GOEGSOURCEDATE {value!r}")


def write_gaf(org_sqlite: Path, out: Path, *, slice_genes: int | None = None) -> dict[str, int]:
    """Render org.Hs.eg.db's GO tables as a GAF 2.2 file; returns line/gene/term counts.

    Why: the annotation loader reads GAF; org.Hs.eg.db carries NCBI gene2go for human, the
    gene-keyed counterpart of goa_human.gaf.  ``slice_genes`` keeps the first N genes by id.
    """
    tables = ("genes", "gene_info", "alias", "go_bp", "go_mf", "go_cc", "metadata")
    con = _connect(org_sqlite, tables)
    try:
        date = _gaf_date(_meta(con, "GOEGSOURCEDATE", org_sqlite))
        taxid = _meta(con, "TAXID", org_sqlite)
        genes = sorted((int(g), i) for i, g in con.execute("SELECT _id, gene_id FROM genes"))
        if slice_genes is not None:
            genes = genes[:slice_genes]
        keep = {i: g for g, i in genes}
        info = {
            i: (_flat(s), _flat(n))
            for i, n, s in con.execute("SELECT _id, gene_name, symbol FROM gene_info")
        }
        aliases: dict[int, set[str]] = {}
        for i, a in con.execute("SELECT _id, alias_symbol FROM alias"):
            aliases.setdefault(i, set()).add(_flat(a))
        rows: set[tuple[int, str, str, str]] = set()
        for table, aspect, _ in GAF_ASPECTS:
            for i, go_id, ev in con.execute(f"SELECT _id, go_id, evidence FROM go_{table}"):
                if i in keep:
                    rows.add((keep[i], go_id, ev, aspect))
    finally:
        con.close()
    by_id = {g: i for i, g in keep.items()}
    relation = {aspect: rel for _, aspect, rel in GAF_ASPECTS}
    lines = [
        "!gaf-version: 2.2\n",
        "!generated-by: biokg\n",
        f"!date-generated: {date[:4]}-{date[4:6]}-{date[6:]}\n",
        "!Rendered from Bioconductor org.Hs.eg.db (NCBI gene2go); that database does not carry "
        f"the original references, so DB:Reference is the package itself ({ORG_DOI}).\n",
        "!GO annotations (c) Gene Ontology Consortium, CC BY 4.0; org.Hs.eg.db is Artistic-2.0.\n",
    ]
    for gene, go_id, ev, aspect in sorted(rows):
        symbol, name = info.get(by_id[gene], ("", ""))
        syn = "|".join(sorted(aliases.get(by_id[gene], ())))
        cols = (
            "NCBIGene",
            str(gene),
            symbol,
            relation[aspect],
            go_id,
            ORG_DOI,
            ev,
            "",
            aspect,
            name,
            syn,
            "gene",
            f"taxon:{taxid}",
            date,
            "NCBI",
            "",
            "",
        )
        lines.append("\t".join(cols) + "\n")
    _atomic_write(out, lines)
    return {
        "lines": len(rows),
        "genes": len({r[0] for r in rows}),
        "go_terms": len({r[1] for r in rows}),
    }


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def build_offline_corpus(
    cache_dir: Path, out_dir: Path, *, slice_genes: int | None = None
) -> dict[str, Path]:
    """Fetch the Debian sources and write go-basic.obo + goa_human.gaf into ``out_dir``.

    Why: one call gives the pipeline an official-format GO corpus without network access to
    geneontology.org; outputs are reused while the ``.sha256`` sidecar matches their inputs.
    """
    go_sqlite = debian_file(*GO_DB, cache_dir)
    org_sqlite = debian_file(*ORG_HS_DB, cache_dir)
    slim = debian_file(*GOSLIM_PLANT, cache_dir)
    out_dir = Path(out_dir)
    jobs = (
        ("go-basic.obo", go_sqlite, "", lambda p: write_go_basic_obo(go_sqlite, p)),
        (
            "goa_human.gaf",
            org_sqlite,
            f"slice_genes={slice_genes}\n",
            lambda p: write_gaf(org_sqlite, p, slice_genes=slice_genes),
        ),
    )
    result: dict[str, Path] = {}
    for name, src, params, render in jobs:
        out = out_dir / name
        sidecar = out_dir / f"{name}.sha256"
        expected = f"{_sha256(src)}  {src.name}\nrender-version={RENDER_VERSION}\n{params}"
        if not (out.is_file() and sidecar.is_file() and sidecar.read_text() == expected):
            render(out)
            sidecar.write_text(expected)
        result[name.replace("-", "_").replace(".", "_")] = out
    result["goslim_plant_obo"] = slim
    return result
