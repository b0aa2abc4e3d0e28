"""A KEGG snapshot folder read into frames: every REST answer by its request path, each row
with the URL and line it came from (``https://rest.kegg.jp/get/dr:D09996#line=6``, RFC 5147).

The text formats are read by :mod:`biokg.ingest.formats.kegg`; this module turns list/link/conv
answers, DBGET entries (PATHWAY, DRUG, DISEASE) and KGML documents into the frames
:func:`biokg.ingest.sources.kegg.normalize` reads. DBLINKS outside :data:`DRUG_LINKS` and
:data:`DISEASE_LINKS`, and KGML relations that are not :data:`GENE_RELATIONS`, are not kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import polars as pl

from biokg.ingest.formats import kegg as fmt

#: Where a snapshot keeps the tabular answers, by REST path.
LISTS = {
    "pathways": "list/pathway/hsa",
    "gene_pathways": "link/pathway/hsa",
    "ncbi": "conv/ncbi-geneid/hsa",
    "uniprot": "conv/uniprot/hsa",
    "drug_genes": "link/hsa/drug",
    "gene_diseases": "link/disease/hsa",
}
INFO = "info/kegg"
#: Written last by a fetch: the snapshot is complete (release, base URL, sample flag).
MANIFEST = "manifest.json"
#: KGML relation types between two gene products that carry regulation (ECrel: enzymes sharing
#: a compound; PCrel: protein-compound, are not gene-to-gene).
GENE_RELATIONS = ("PPrel", "GErel")
#: DBLINKS databases kept, as the CURIE prefix of their ids (schema/prefixes.yaml).
DRUG_LINKS = {"ChEMBL": "CHEMBL.COMPOUND", "DrugBank": "DRUGBANK"}
DISEASE_LINKS = {"OMIM": "OMIM", "MeSH": "MESH"}
#: ``Aspirin (JP18/USP/INN)``: pharmacopoeia and name-list tags after a drug name.
_TAGS = re.compile(r"\s*\(([A-Z]{2,5}\d*(?:/[A-Z]{2,5}\d*)*)\)$")
#: (answer path, line) -> the REST URL citing that line
UrlOf = Callable[[str, int], str]
Entries = list[tuple[str, fmt.FlatEntry]]


def read_snapshot(files: dict[str, Path], base_url: str) -> dict[str, pl.DataFrame]:
    """Frames of a snapshot's answers (``files`` by request path; ``base_url`` for citations).

    Raises:
        SourceFormatError: a malformed answer, naming its file, URL and line.
    """

    def url(path: str, line: int) -> str:
        return f"{base_url.rstrip('/')}/{path}#line={line}"

    def text(path: str) -> tuple[str, str]:
        return files[path].read_text(encoding="utf-8"), f"{files[path]} ({base_url}/{path})"

    frames = {
        name: _pairs(*text(path), path, url, describes=name == "pathways")
        for name, path in LISTS.items()
    }
    entries: dict[str, Entries] = {kind: [] for kind in ("Pathway", "Drug", "Disease")}
    regulation: list[dict] = []
    for path in files:
        if path.endswith("/kgml"):
            kgml = fmt.read_kgml(files[path].read_bytes(), f"{files[path]} ({base_url}/{path})")
            regulation += _relations(kgml, lambda line, p=path: url(p, line))
        elif path.startswith("get/"):
            for entry in fmt.read_flat(*text(path)):
                entries.setdefault(entry.kind, []).append((path, entry))
    frames |= _pathway_frames(entries["Pathway"], url)
    frames |= _drug_frames(entries["Drug"], url)
    frames |= _disease_frames(entries["Disease"], url)
    frames["regulation"] = pl.DataFrame(
        regulation,
        schema={
            "subject": pl.String,
            "object": pl.String,
            "pathway": pl.String,
            "relation": pl.String,
            "subtypes": pl.List(pl.String),
            "record": pl.String,
        },
    )
    return frames


def _pairs(text: str, where: str, path: str, url: UrlOf, *, describes: bool) -> pl.DataFrame:
    """A list/link/conv answer as ``left``, ``right`` (KEGG prefixes dropped; a ``list``
    answer's right column is a description, kept whole) and ``record``."""
    rows = [
        (fmt.local_id(a), b if describes else fmt.local_id(b), url(path, n))
        for n, a, b in fmt.read_pairs(text, where)
    ]
    return pl.DataFrame(rows, schema=["left", "right", "record"], orient="row")


def _relations(kgml: fmt.Kgml, url: Callable[[int], str]) -> list[dict]:
    """One row per (gene, gene) of each gene-to-gene KGML relation (module docstring)."""

    def genes(entry_id: str) -> set[str]:
        entry = kgml.entries.get(entry_id)
        if entry is None:
            return set()
        if entry.type == "group":
            return set().union(*(genes(c) for c in entry.components))
        if entry.type != "gene":
            return set()
        return {fmt.local_id(n) for n in entry.names if n.startswith("hsa:")}

    rows = []
    for relation in kgml.relations:
        if relation.type not in GENE_RELATIONS:
            continue
        for subject in sorted(genes(relation.entry1)):
            for object_ in sorted(genes(relation.entry2) - {subject}):
                rows.append(
                    {
                        "subject": subject,
                        "object": object_,
                        "pathway": kgml.pathway,
                        "relation": relation.type,
                        "subtypes": list(relation.subtypes),
                        "record": url(relation.line),
                    }
                )
    return rows


Entries = list[tuple[str, fmt.FlatEntry]]


def _lines(entries: Entries, field: str, url: UrlOf) -> Iterator[tuple[str, fmt.Line, str]]:
    """(entry id, value line, record URL) for every line of ``field`` in ``entries``."""
    for path, entry in entries:
        for line in entry.values(field):
            yield entry.id, line, url(path, line.number)


def _frame(rows: Iterable[tuple], columns: list[str]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema={c: pl.String for c in columns}, orient="row")


def _pathway_frames(entries: Entries, url: UrlOf) -> dict[str, pl.DataFrame]:
    """PATHWAY entries: description and classes, gene symbols, drugs."""
    info = pl.DataFrame(
        [
            {
                "id": entry.id,
                "description": fmt.text_of(entry, "DESCRIPTION"),
                "classes": [
                    c.strip() for c in (fmt.text_of(entry, "CLASS") or "").split(";") if c.strip()
                ],
            }
            for _, entry in entries
        ],
        schema={"id": pl.String, "description": pl.String, "classes": pl.List(pl.String)},
    )
    symbols = _frame(
        (
            (line.text.split()[0], line.text.split()[1].rstrip(";"))
            for _, line, _ in _lines(entries, "GENE", url)
            if len(line.text.split()) > 1
        ),
        ["gene", "symbol"],
    ).unique("gene", keep="first", maintain_order=True)
    drugs = _frame(
        ((pid, fmt.drug_id(line.text), rec) for pid, line, rec in _lines(entries, "DRUG", url)),
        ["pathway", "drug", "record"],
    )
    return {"pathway_info": info, "symbols": symbols, "pathway_drugs": drugs}


def _drug_frames(entries: Entries, url: UrlOf) -> dict[str, pl.DataFrame]:
    """DRUG entries: names, efficacy, ChEMBL/DrugBank links; TARGET lines."""
    drugs = []
    for path, entry in entries:
        named = [_TAGS.sub("", n) for n in fmt.names(entry)]
        brands = [_TAGS.sub("", n) for n in fmt.names(entry) if n.endswith("(TN)")]
        links = fmt.dblinks(entry)
        drugs.append(
            {
                "id": entry.id,
                "name": named[0] if named else None,
                "synonyms": [n for n in dict.fromkeys(named[1:]) if n not in brands],
                "brand_names": brands,
                "description": fmt.text_of(entry, "EFFICACY"),
                "xrefs": sorted(
                    f"{prefix}:{i}"
                    for database, prefix in DRUG_LINKS.items()
                    for _, i in links.get(database, [])
                ),
                "record": url(path, entry.line),
            }
        )
    targets = _frame(
        (
            (drug, gene, fmt.label_before_brackets(line.text), rec)
            for drug, line, rec in _lines(entries, "TARGET", url)
            for gene in fmt.bracketed(line.text, "HSA")
        ),
        ["drug", "gene", "mechanism", "record"],
    )
    lists = {c: pl.List(pl.String) for c in ("synonyms", "brand_names", "xrefs")}
    schema = {"id": pl.String, "name": pl.String, "description": pl.String, "record": pl.String}
    return {"drugs": pl.DataFrame(drugs, schema=schema | lists), "drug_targets": targets}


def _disease_frames(entries: Entries, url: UrlOf) -> dict[str, pl.DataFrame]:
    """DISEASE entries: names, description; GENE, DRUG lines; OMIM/MeSH DBLINKS."""
    diseases = pl.DataFrame(
        [
            {
                "id": entry.id,
                "name": (fmt.names(entry) or [None])[0],
                "synonyms": fmt.names(entry)[1:],
                "description": fmt.text_of(entry, "DESCRIPTION"),
                "record": url(path, entry.line),
            }
            for path, entry in entries
        ],
        schema={
            "id": pl.String,
            "name": pl.String,
            "synonyms": pl.List(pl.String),
            "description": pl.String,
            "record": pl.String,
        },
    )
    genes = _frame(
        (
            (disease, gene, rec)
            for disease, line, rec in _lines(entries, "GENE", url)
            for gene in fmt.bracketed(line.text, "HSA")
        ),
        ["disease", "gene", "record"],
    )
    drugs = _frame(
        ((d, fmt.drug_id(line.text), rec) for d, line, rec in _lines(entries, "DRUG", url)),
        ["disease", "drug", "record"],
    )
    links = _frame(
        (
            (entry.id, f"{prefix}:{i}", url(path, number))
            for path, entry in entries
            for database, prefix in DISEASE_LINKS.items()
            for number, i in fmt.dblinks(entry).get(database, [])
        ),
        ["disease", "xref", "record"],
    )
    return {
        "diseases": diseases,
        "disease_genes": genes,
        "disease_drugs": drugs,
        "disease_links": links,
    }
