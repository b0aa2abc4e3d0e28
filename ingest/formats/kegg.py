"""KEGG's REST text formats and KGML, read as the API returns them.

Formats (https://www.kegg.jp/kegg/rest/keggapi.html, https://www.kegg.jp/kegg/xml/docs/):

* ``list`` answers: ``<id>\\t<description>`` per line (``list/pathway/hsa``: ``hsa00010\\t
  Glycolysis / Gluconeogenesis - Homo sapiens (human)``; older answers write ``path:hsa00010``);
* ``link`` and ``conv`` answers: ``<db:id>\\t<db:id>`` per line (``hsa:10327\\tpath:hsa00010``,
  ``hsa:351\\tncbi-geneid:351``, ``dr:D00001\\thsa:5742``); an empty answer is an empty text;
* DBGET flat entries (``get``): field names in columns 1-12, values from column 13, continuation
  lines blank in columns 1-12, sub-fields indented two spaces (``  PATHWAY   hsa00590 ...`` under
  ``TARGET``); each record ends with a line ``///``; a ``get`` of several entries returns them
  one after the other;
* KGML: ``<pathway name="path:hsa04010">`` with ``<entry id name="hsa:5604 hsa:5605"
  type="gene|ortholog|compound|group|map">`` (a group lists ``<component id>``) and
  ``<relation entry1 entry2 type="PPrel|GErel|PCrel|ECrel">`` with ``<subtype name value>``.

Every reader takes the text and ``where`` (the file and the URL it came from) and raises
:class:`~biokg.errors.SourceFormatError` naming ``where`` and the line.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from dataclasses import dataclass, field

from biokg.errors import SourceFormatError

#: Field names fill columns 1-12 of a flat entry; values start at column 13.
FIELD_WIDTH = 12
RECORD_END = "///"
#: KEGG appends the organism to each human pathway's name.
ORGANISM_SUFFIX = re.compile(r"\s+-\s+Homo sapiens \(human\)$")


@dataclass(frozen=True)
class Line:
    """One value line of a flat entry or tabular answer, with its 1-based line number."""

    number: int
    text: str


@dataclass(frozen=True)
class FlatEntry:
    """One DBGET record: its id, kind (``Drug``, ``Disease``, ``Pathway``), first line and
    fields. A sub-field is keyed ``PARENT/SUB`` (``TARGET/PATHWAY``)."""

    id: str
    kind: str
    line: int
    fields: dict[str, list[Line]] = field(default_factory=dict)

    def values(self, name: str) -> list[Line]:
        return self.fields.get(name, [])


def read_pairs(text: str, where: str) -> list[tuple[int, str, str]]:
    """``link``/``conv``/``list`` lines as (line number, left, right).

    Raises:
        SourceFormatError: a line without two tab-separated columns.
    """
    pairs = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        left, tab, right = raw.partition("\t")
        if not tab or not left.strip() or not right.strip():
            raise SourceFormatError(
                f"{where}:{number}: expected two tab-separated columns, found {raw[:80]!r}; "
                "the answer is cut short or not a KEGG list/link/conv answer"
            )
        pairs.append((number, left.strip(), right.strip()))
    return pairs


def local_id(text: str) -> str:
    """The id without its KEGG database prefix.

    >>> local_id("path:hsa00010"), local_id("hsa00010"), local_id("ncbi-geneid:351")
    ('hsa00010', 'hsa00010', '351')
    """
    return text.rpartition(":")[2]


def pathway_name(description: str) -> str:
    """A human pathway's name without KEGG's organism suffix.

    >>> pathway_name("Glycolysis / Gluconeogenesis - Homo sapiens (human)")
    'Glycolysis / Gluconeogenesis'
    """
    return ORGANISM_SUFFIX.sub("", description.strip())


def read_flat(text: str, where: str) -> list[FlatEntry]:
    """Every DBGET record of a ``get`` answer, in order.

    Raises:
        SourceFormatError: a record that does not start with ENTRY, or one without its
            closing ``///`` (cut short).
    """
    entries: list[FlatEntry] = []
    current: FlatEntry | None = None
    parent = key = "ENTRY"
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.rstrip() == RECORD_END:
            if current is None:
                raise SourceFormatError(f"{where}:{number}: '///' closes no record")
            entries.append(current)
            current = None
            continue
        if not raw.strip():
            continue
        name, value = raw[:FIELD_WIDTH], raw[FIELD_WIDTH:].strip()
        if current is None:
            current = _start_entry(name, value, where, number)
            parent = key = "ENTRY"
            continue
        if name.strip() == "ENTRY":
            raise SourceFormatError(
                f"{where}:{current.line}: record {current.id} has no closing '///' before the "
                f"next ENTRY (line {number}); it was cut short, fetch it again"
            )
        if name.strip() and not name.startswith(" "):
            parent = key = name.strip()
        elif name.strip():  # "  PATHWAY": a sub-field of the last field
            key = f"{parent}/{name.strip()}"
        current.fields.setdefault(key, []).append(Line(number, value))
    if current is not None:
        raise SourceFormatError(
            f"{where}:{current.line}: record {current.id} has no closing '///' (the answer ends "
            f"at line {len(text.splitlines())}); it was cut short, fetch it again"
        )
    return entries


def _start_entry(name: str, value: str, where: str, number: int) -> FlatEntry:
    words = value.split()
    if name.strip() != "ENTRY" or not words:
        raise SourceFormatError(
            f"{where}:{number}: a KEGG record starts with 'ENTRY <id> <kind>', found "
            f"{(name + value)[:80]!r}"
        )
    return FlatEntry(words[0], words[-1] if len(words) > 1 else "", number)


def names(entry: FlatEntry) -> list[str]:
    """The NAME field's names, in order (KEGG separates them with ``;``)."""
    joined = " ".join(line.text for line in entry.values("NAME"))
    return [n.strip() for n in joined.split(";") if n.strip()]


def text_of(entry: FlatEntry, field_name: str) -> str | None:
    """A free-text field (DESCRIPTION, EFFICACY) joined into one string."""
    lines = entry.values(field_name)
    return " ".join(line.text for line in lines) if lines else None


def dblinks(entry: FlatEntry) -> dict[str, list[tuple[int, str]]]:
    """DBLINKS as database → [(line, id)] (``OMIM: 104300 607822`` gives two ids)."""
    out: dict[str, list[tuple[int, str]]] = {}
    for line in entry.values("DBLINKS"):
        database, colon, ids = line.text.partition(":")
        if colon:
            out.setdefault(database.strip(), []).extend((line.number, i) for i in ids.split())
    return out


#: ``[HSA:5742 5743]``, ``[DR:D00670]``: bracketed KEGG ids of one database.
_BRACKET = re.compile(r"\[(?P<db>[A-Za-z]+):(?P<ids>[^\]]+)\]")


def bracketed(text: str, database: str) -> list[str]:
    """The ids a value line gives in ``[<database>:...]`` brackets.

    >>> bracketed("PTGS1 [HSA:5742 5743] [KO:K00509]", "HSA")
    ['5742', '5743']
    """
    return [
        i
        for m in _BRACKET.finditer(text)
        if m["db"].upper() == database.upper()
        for i in m["ids"].split()
    ]


def drug_id(text: str) -> str:
    """The drug a DRUG line names, or "": ``... [DR:D00670]`` (DISEASE) or ``D00043 ...``
    (PATHWAY).

    >>> drug_id("Donepezil hydrochloride [DR:D00670]"), drug_id("D00043  Allopurinol (JP18)")
    ('D00670', 'D00043')
    """
    found = bracketed(text, "DR") or re.findall(r"^(D\d{5})\b", text)
    return found[0] if found else ""


def label_before_brackets(text: str) -> str:
    """A value line's text before its first bracket: a target's or drug's name."""
    return text.split("[", 1)[0].strip()


@dataclass(frozen=True)
class KgmlEntry:
    """A KGML ``entry``: its KEGG ids (genes: ``hsa:5604``), type and group components."""

    id: str
    names: tuple[str, ...]
    type: str
    components: tuple[str, ...] = ()


@dataclass(frozen=True)
class KgmlRelation:
    """A KGML ``relation`` between two entries, with its subtype names and its line."""

    entry1: str
    entry2: str
    type: str
    subtypes: tuple[str, ...]
    line: int


@dataclass
class Kgml:
    """One pathway's KGML: its KEGG id (``hsa04010``), title, entries by id, relations."""

    pathway: str
    title: str
    entries: dict[str, KgmlEntry]
    relations: list[KgmlRelation]


def read_kgml(data: bytes, where: str) -> Kgml:
    """Parse a KGML document (expat: element line numbers for citations).

    Raises:
        SourceFormatError: not XML, or XML that is not a KGML pathway (file and line named).
    """
    parser = xml.parsers.expat.ParserCreate()
    reader = _KgmlReader(where, parser)
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as err:
        reason = xml.parsers.expat.errors.messages[err.code]
        raise SourceFormatError(
            f"{where}:{err.lineno}: not a KGML document ({reason}); the answer is not XML or "
            "was cut short"
        ) from err
    if reader.pathway is None:
        raise SourceFormatError(f"{where}:1: no <pathway> element; not a KGML document")
    return reader.pathway


class _KgmlReader:
    """Expat callbacks that build a :class:`Kgml`; elements KGML does not need are ignored."""

    def __init__(self, where: str, parser: xml.parsers.expat.XMLParserType) -> None:
        self.where, self.parser = where, parser
        self.pathway: Kgml | None = None
        self._entry: KgmlEntry | None = None
        self._relation: KgmlRelation | None = None

    def _required(self, tag: str, attrs: dict[str, str], *names: str) -> list[str]:
        missing = [n for n in names if not attrs.get(n)]
        if missing:
            raise SourceFormatError(
                f"{self.where}:{self.parser.CurrentLineNumber}: <{tag}> without "
                f"{', '.join(missing)}; not a KGML document"
            )
        return [attrs[n] for n in names]

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag == "pathway":
            [name] = self._required(tag, attrs, "name")
            self.pathway = Kgml(local_id(name), attrs.get("title", ""), {}, [])
        elif self.pathway is None:
            raise SourceFormatError(
                f"{self.where}:{self.parser.CurrentLineNumber}: <{tag}> before <pathway>; "
                "not a KGML document"
            )
        elif tag == "entry":
            entry_id, names_, kind = self._required(tag, attrs, "id", "name", "type")
            self._entry = KgmlEntry(entry_id, tuple(names_.split()), kind)
        elif tag == "component" and self._entry is not None:
            [component] = self._required(tag, attrs, "id")
            components = (*self._entry.components, component)
            self._entry = KgmlEntry(self._entry.id, self._entry.names, self._entry.type, components)
        elif tag == "relation":
            one, two, kind = self._required(tag, attrs, "entry1", "entry2", "type")
            self._relation = KgmlRelation(one, two, kind, (), self.parser.CurrentLineNumber)
        elif tag == "subtype" and self._relation is not None:
            [name] = self._required(tag, attrs, "name")
            r = self._relation
            self._relation = KgmlRelation(r.entry1, r.entry2, r.type, (*r.subtypes, name), r.line)

    def end(self, tag: str) -> None:
        if self.pathway is None:
            return
        if tag == "entry" and self._entry is not None:
            self.pathway.entries[self._entry.id] = self._entry
            self._entry = None
        elif tag == "relation" and self._relation is not None:
            self.pathway.relations.append(self._relation)
            self._relation = None
