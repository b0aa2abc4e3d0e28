"""OBO 1.4 reader (fastobo) returning term and relation frames, with errors naming file and line.

Spec: https://owlcollab.github.io/oboformat/doc/obo-syntax.html. Used by HPO (hp.obo) and GO
(go-basic.obo). Kept: id, name, namespace, def, comment, synonyms, xrefs, alt_ids, is_obsolete
with replaced_by and consider (where an obsolete term's users should go), is_a and relationship
clauses (with the line of each clause's term). Dropped: subsets, property
values, axioms (not used by the graph).

A truncated file is caught three ways: a last line without its newline, a relation to a term the
file does not define, and the source's count bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import fastobo
import polars as pl

from biokg.errors import SourceFormatError

TERM_SCHEMA = {
    "id": pl.String,
    "name": pl.String,
    "namespace": pl.String,
    "definition": pl.String,
    "comment": pl.String,
    "synonyms": pl.List(pl.String),
    "xrefs": pl.List(pl.String),
    "alt_ids": pl.List(pl.String),
    "obsolete": pl.Boolean,
    "replaced_by": pl.List(pl.String),
    "consider": pl.List(pl.String),
    "line": pl.Int64,
}
RELATION_SCHEMA = {
    "subject": pl.String,
    "predicate": pl.String,
    "object": pl.String,
    "line": pl.Int64,
}


@dataclass(frozen=True)
class OboFrames:
    """An ontology as two frames, plus its header's data-version."""

    terms: pl.DataFrame
    relations: pl.DataFrame
    data_version: str | None


def check_text(path: Path) -> list[str]:
    """Read a text file as UTF-8 lines; a bad byte or a missing final newline names the line.

    Raises:
        SourceFormatError: non-UTF-8 byte, or a last line cut off (truncated download).
    """
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise SourceFormatError(
            f"{path}:{line}: byte 0x{raw[err.start]:02x} is not UTF-8; the file is corrupt or in "
            "another encoding"
        ) from err
    if text and not text.endswith("\n"):
        line = text.count("\n") + 1
        raise SourceFormatError(
            f"{path}:{line}: file ends mid-line; it looks truncated, download it again"
        )
    return text.splitlines()


def read_obo(path: Path) -> OboFrames:
    """Parse an OBO file into term and relation frames.

    Raises:
        SourceFormatError: syntax error, bad encoding, truncation, or a dangling relation; the
            message names the file and line.
    """
    lines = check_text(path)
    term_lines = {
        line[4:].strip(): n for n, line in enumerate(lines, start=1) if line.startswith("id: ")
    }
    try:
        doc = fastobo.loads("\n".join(lines) + "\n")
    except SyntaxError as err:
        raise SourceFormatError(f"{path}:{err.lineno}: OBO syntax error: {err.msg}") from err
    data_version = next((c.raw_value() for c in doc.header if c.raw_tag() == "data-version"), None)
    terms, relations = [], []
    for frame in doc:
        if not isinstance(frame, fastobo.term.TermFrame):
            continue
        term_id = str(frame.id)
        term = {
            "id": term_id,
            "synonyms": [],
            "xrefs": [],
            "alt_ids": [],
            "obsolete": False,
            "replaced_by": [],
            "consider": [],
            "line": term_lines.get(term_id),
        }
        for clause in frame:
            _apply_clause(term, relations, clause, term_id)
        terms.append(term)
    for relation in relations:
        relation["line"] = term_lines.get(relation["subject"])
    term_frame = pl.DataFrame(terms, schema=TERM_SCHEMA)
    relation_frame = pl.DataFrame(relations, schema=RELATION_SCHEMA)
    dangling = relation_frame.filter(~pl.col("object").is_in(term_frame["id"].implode()))
    if dangling.height:
        row = dangling.row(0, named=True)
        raise SourceFormatError(
            f"{path}:{row['line']}: {row['subject']} {row['predicate']} {row['object']}, but "
            f"{row['object']} is not defined in the file ({dangling.height} such references); "
            "the file looks truncated or corrupt"
        )
    return OboFrames(term_frame, relation_frame, data_version)


def _apply_clause(term: dict, relations: list[dict], clause: object, term_id: str) -> None:
    if isinstance(clause, fastobo.term.NameClause):
        term["name"] = str(clause.name)
    elif isinstance(clause, fastobo.term.NamespaceClause):
        term["namespace"] = str(clause.namespace)
    elif isinstance(clause, fastobo.term.DefClause):
        term["definition"] = str(clause.definition)
    elif isinstance(clause, fastobo.term.CommentClause):
        term["comment"] = str(clause.comment)
    elif isinstance(clause, fastobo.term.SynonymClause):
        term["synonyms"].append(str(clause.synonym.desc))
    elif isinstance(clause, fastobo.term.XrefClause):
        term["xrefs"].append(str(clause.xref.id))
    elif isinstance(clause, fastobo.term.AltIdClause):
        term["alt_ids"].append(str(clause.alt_id))
    elif isinstance(clause, fastobo.term.IsObsoleteClause):
        term["obsolete"] = bool(clause.obsolete)
    elif isinstance(clause, fastobo.term.ReplacedByClause):
        term["replaced_by"].append(str(clause.term))
    elif isinstance(clause, fastobo.term.ConsiderClause):
        term["consider"].append(str(clause.term))
    elif isinstance(clause, fastobo.term.IsAClause):
        relations.append({"subject": term_id, "predicate": "is_a", "object": str(clause.term)})
    elif isinstance(clause, fastobo.term.RelationshipClause):
        relations.append(
            {"subject": term_id, "predicate": str(clause.typedef), "object": str(clause.term)}
        )


def retired_terms(terms: pl.DataFrame) -> pl.DataFrame:
    """The obsolete terms of a :func:`read_obo` frame: id, replaced_by, consider."""
    return terms.filter(pl.col("obsolete")).select("id", "replaced_by", "consider").sort("id")
