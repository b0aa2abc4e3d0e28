"""Cypher files by name: constraints, indexes, writes, saved queries and the Browser guide."""

import re
from functools import cache
from importlib.resources import files

#: A statement ends with ``;`` at the end of a line (our files never put one inside a string).
_STATEMENT_END = re.compile(r";[ \t]*$", re.MULTILINE)


@cache
def load(name: str) -> str:
    """The text of ``cypher/<name>.cypher``; a missing file is a KeyError naming it."""
    path = files(__name__) / f"{name}.cypher"
    if not path.is_file():
        raise KeyError(f"no cypher/{name}.cypher")
    return path.read_text(encoding="utf-8")


def names() -> list[str]:
    """Every ``cypher/<name>.cypher`` by name, sorted (what :func:`load` can load)."""
    found = (p.name for p in files(__name__).iterdir() if p.name.endswith(".cypher"))
    return sorted(name.removesuffix(".cypher") for name in found)


def statements(text: str) -> list[str]:
    """The statements of a Cypher file, split at line-ending semicolons; comment-only parts
    (a file's header) are dropped."""
    parts = (part.strip() for part in _STATEMENT_END.split(text))
    return [p for p in parts if any(_is_code(line) for line in p.splitlines())]


def _is_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("//")
