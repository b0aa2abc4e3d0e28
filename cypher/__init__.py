"""Cypher files by name: constraints, indexes, writes and saved queries."""

from functools import cache
from importlib.resources import files


@cache
def load(name: str) -> str:
    """The text of ``cypher/<name>.cypher``; a missing file is a KeyError naming it."""
    path = files(__name__) / f"{name}.cypher"
    if not path.is_file():
        raise KeyError(f"no cypher/{name}.cypher")
    return path.read_text(encoding="utf-8")
