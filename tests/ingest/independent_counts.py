"""Counts computed straight from source files with plain Python, sharing no code with biokg.

Integration tests compare what the graph holds with these numbers, so a parser bug cannot hide
behind itself.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

OBO_RELATIONS = {
    "is_a": "IS_A",
    "part_of": "PART_OF",
    "regulates": "REGULATES",
    "negatively_regulates": "NEGATIVELY_REGULATES",
    "positively_regulates": "POSITIVELY_REGULATES",
}


def obo_counts(path: Path) -> tuple[set[str], Counter]:
    """Live (non-obsolete) term ids, and edges per type among live terms."""
    stanzas: list[dict] = []
    current: dict | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            current = {"kind": line.strip(), "rels": []}
            stanzas.append(current)
        elif current is not None and line.startswith("id: "):
            current["id"] = line[4:].strip()
        elif current is not None and line.startswith("is_obsolete: true"):
            current["obsolete"] = True
        elif current is not None and line.startswith("is_a: "):
            current["rels"].append(("is_a", line[6:].split("!")[0].strip()))
        elif current is not None and line.startswith("relationship: "):
            kind, target = line[14:].split("!")[0].split()[:2]
            current["rels"].append((kind, target))
    live = {s["id"] for s in stanzas if s["kind"] == "[Term]" and not s.get("obsolete")}
    edges: Counter = Counter()
    for stanza in stanzas:
        if stanza.get("id") in live:
            for kind, target in set(stanza["rels"]):
                if kind in OBO_RELATIONS and target in live:
                    edges[OBO_RELATIONS[kind]] += 1
    return live, edges


def gaf_annotation_edges(path: Path, live_terms: set[str]) -> int:
    """Distinct (gene, term, relation, negated) among GAF lines whose term is live."""
    keys = set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("!"):
                continue
            cols = line.rstrip("\n").split("\t")
            if cols[4] in live_terms:
                keys.add((cols[0], cols[1], cols[4], cols[3]))
    return len(keys)


def hpoa_counts(path: Path, live_terms: set[str]) -> dict[str, int]:
    """Disease nodes and disease edges per type from phenotype.hpoa (by header)."""
    with open(path, encoding="utf-8") as handle:
        rows = [line for line in handle if not line.startswith("#")]
    reader = csv.DictReader(rows, delimiter="\t", quoting=csv.QUOTE_NONE)
    diseases, phenotype, inheritance = set(), set(), set()
    for row in reader:
        if row["hpo_id"] not in live_terms:
            continue
        diseases.add(row["database_id"])
        negated = row["qualifier"] == "NOT"
        if row["aspect"] == "I":
            inheritance.add((row["database_id"], row["hpo_id"], negated))
        else:
            phenotype.add(
                (
                    row["database_id"],
                    row["hpo_id"],
                    negated,
                    row["frequency"],
                    row["onset"],
                    row["sex"],
                    row["modifier"],
                )
            )
    return {
        "diseases": len(diseases),
        "HAS_PHENOTYPE": len(phenotype),
        "HAS_MODE_OF_INHERITANCE": len(inheritance),
    }


def genes_to_phenotype_counts(path: Path, live_terms: set[str]) -> dict[str, int]:
    """Genes, gene→phenotype edges (per frequency) and gene→disease pairs (by header)."""
    with open(path, encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        genes, phenotype, disease = set(), set(), set()
        for row in reader:
            genes.add(row["ncbi_gene_id"])
            disease.add((row["ncbi_gene_id"], row["disease_id"]))
            if row["hpo_id"] in live_terms:
                phenotype.add((row["ncbi_gene_id"], row["hpo_id"], row["frequency"]))
    return {"genes": len(genes), "HAS_PHENOTYPE": len(phenotype), "ASSOCIATED_WITH": len(disease)}
