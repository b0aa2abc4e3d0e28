"""The gate's cartesian-product check: the MATCH patterns of a query must hang together.

``MATCH (a:Phenotype), (b:Drug) WHERE a.name < b.name RETURN count(*)`` pairs every phenotype
with every drug: 50 million rows on the quick-start graph, 25 s of a core, with nothing in the
text that looks dangerous. Such a query is recognised from its patterns alone: the node and
relationship variables of every MATCH (comma-separated parts and later MATCH clauses alike) are
joined when a pattern shares a variable, and each resulting group is *anchored* when it starts
from few rows: a node with an inline property map (``{id: $id}``), a variable compared for
equality with a parameter or literal in WHERE (``a.id = $id``, ``a.id IN $ids``), or one bound
by UNWIND, YIELD or ``WITH ... AS``. A query with two or more unanchored groups multiplies their
sizes and is refused, with the groups named. A comparison in WHERE (``a.name < b.name``) is not
a join that bounds anything, so it does not connect groups.

The check reads the lexed text (comments dropped, strings masked), is conservative (a harmless
product of an aggregate and a scan is refused too; the message says how to write it), and is one
of two bounds: the engine's time limit per query stops whatever passes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from biokg.errors import UnsafeCypherError

_CLAUSE = re.compile(
    r"\b(OPTIONAL\s+MATCH|MATCH|WHERE|WITH|RETURN|UNWIND|CALL|YIELD|UNION|ORDER|SKIP|LIMIT)\b",
    re.IGNORECASE,
)
_IDENT = re.compile(r"^\s*([A-Za-z_]\w*)")
_PATH_VAR = re.compile(r"^\s*([A-Za-z_]\w*)\s*=")
_ALIAS = re.compile(r"\bAS\s+([A-Za-z_]\w*)", re.IGNORECASE)
_YIELDED = re.compile(r"([A-Za-z_]\w*)(?:\s+AS\s+([A-Za-z_]\w*))?", re.IGNORECASE)
_VALUE = r"(?:\$|'|\"|-?\d|\[)"


@dataclass
class _Groups:
    """Union-find over pattern variables; each group remembers whether it is anchored."""

    parent: dict[str, str] = field(default_factory=dict)
    anchored: set[str] = field(default_factory=set)
    shown: dict[str, str] = field(default_factory=dict)  # a group's first pattern, for messages

    def find(self, name: str) -> str:
        self.parent.setdefault(name, name)
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def join(self, names: list[str], pattern: str, *, anchored: bool) -> None:
        roots = {self.find(n) for n in names}
        root = min(roots)
        for other in roots:
            self.parent[other] = root
            if other in self.anchored:
                self.anchored.add(root)
            self.shown.setdefault(root, self.shown.get(other, pattern))
        self.shown.setdefault(root, pattern)
        if anchored:
            self.anchored.add(root)

    def unanchored(self) -> list[str]:
        roots = {self.find(n) for n in self.parent}
        return sorted(self.shown[r] for r in roots if r not in self.anchored and r in self.shown)


def check_connected(code: str, depth: list[int]) -> None:
    """Refuse a query whose MATCH patterns form two or more unanchored groups.

    Args:
        code: the lexed query (comments dropped, strings masked).
        depth: bracket depth per offset of ``code`` (top level = 0).

    Raises:
        UnsafeCypherError: names the disconnected patterns and how to join or anchor them.
    """
    clauses = _clauses(code, depth)
    cuts = [i for i, (word, _, _) in enumerate(clauses) if word == "UNION"]
    for start, end in zip([0, *[c + 1 for c in cuts]], [*cuts, len(clauses)], strict=True):
        _check_part(code, clauses[start:end])


def _check_part(code: str, clauses: list[tuple[str, int, int]]) -> None:
    groups = _Groups()
    bound: set[str] = set()
    wheres = " ".join(code[s:e] for word, s, e in clauses if word == "WHERE")
    anonymous = 0
    for word, start, end in clauses:
        body = code[start:end]
        if word == "UNWIND" or word == "WITH":
            bound.update(_ALIAS.findall(body))
        elif word == "YIELD":
            bound.update(alias or name for name, alias in _YIELDED.findall(body))
        elif word.endswith("MATCH"):
            for part in _top_level_split(body):
                names, has_map = _pattern_names(part)
                anonymous += 1
                names.append(f" part{anonymous}")  # a variable-free part is a group of its own
                anchored = has_map or any(
                    n in bound or _compared_to_value(n, wheres) for n in names
                )
                groups.join(names, " ".join(part.split()), anchored=anchored)
    loose = groups.unanchored()
    if len(loose) >= 2:
        shown = " and ".join(loose[:3])
        raise UnsafeCypherError(
            f"disconnected patterns {shown} share no variable: the query would pair every row "
            "of one with every row of the other (a cartesian product); connect them with a "
            "relationship pattern, e.g. (a)-[r]-(b), or anchor all but one by id, e.g. "
            "(b:Drug {id: $id})"
        )


def _clauses(code: str, depth: list[int]) -> list[tuple[str, int, int]]:
    """(keyword, body start, body end) of each clause, at any depth (subqueries included);
    a clause ends at the next keyword of its own depth or where its depth closes."""
    marks = [(m.group(1).upper().split()[-1], m.start(), m.end()) for m in _CLAUSE.finditer(code)]
    out = []
    for i, (word, start, body) in enumerate(marks):
        level, end = depth[start], len(code)
        for _, later, _ in marks[i + 1 :]:
            if depth[later] == level:
                end = later
                break
        for j in range(body, end):
            if depth[j] < level:
                end = j
                break
        out.append((word, body, end))
    return out


def _top_level_split(pattern: str) -> list[str]:
    """The comma-separated parts of a MATCH pattern (commas inside brackets do not split)."""
    parts, level, start = [], 0, 0
    for i, ch in enumerate(pattern):
        level += (ch in "([{") - (ch in ")]}")
        if ch == "," and level == 0:
            parts.append(pattern[start:i])
            start = i + 1
    parts.append(pattern[start:])
    return [p for p in parts if p.strip()]


def _pattern_names(part: str) -> tuple[list[str], bool]:
    """Variables a pattern part binds (path, node, relationship) and whether a node carries an
    inline property map; property-map values that name variables (``{id: x}``) count too."""
    names: list[str] = []
    path = _PATH_VAR.match(part)
    if path:
        names.append(path.group(1))
    has_map = False
    for i, ch in enumerate(part):
        if ch not in "([":
            continue
        inner = _bracket_body(part, i)
        ident = _IDENT.match(inner)
        if ident and not part[max(0, i - 1)].isalnum():
            names.append(ident.group(1))
        if "{" in inner and ch == "(" and not inner.lstrip().startswith("("):
            has_map = True
            names += re.findall(r":\s*([A-Za-z_]\w*)\s*[,}]", inner[inner.index("{") :])
    return names, has_map


def _bracket_body(text: str, start: int) -> str:
    close = {"(": ")", "[": "]"}[text[start]]
    level, i = 0, start
    while i < len(text):
        level += (text[i] == text[start]) - (text[i] == close)
        if level == 0:
            return text[start + 1 : i]
        i += 1
    return text[start + 1 :]


def _compared_to_value(name: str, where: str) -> bool:
    """Whether WHERE compares ``name``'s property (or id) for equality with a parameter or
    literal, which bounds its rows as an inline map would."""
    prop = rf"(?:\b{re.escape(name)}\s*\.\s*\w+|\b(?:elementId|id)\s*\(\s*{re.escape(name)}\s*\))"
    forward = rf"{prop}\s*(?:=|\bIN\b)\s*{_VALUE}"
    backward = rf"(?:\$\w+|'[^']*'|\"[^\"]*\"|-?\d+)\s*=\s*{prop}"
    return (
        re.search(forward, where, re.IGNORECASE) is not None
        or re.search(backward, where, re.IGNORECASE) is not None
    )
