"""Ranking what a step found: the kind asked for, the question's own words, how often, how much
support.

* **kind**: when a question asks for a kind (a GO aspect, a label section) and some answers are
  of that kind, the others are dropped ("What is the function of X?": molecular functions, not
  the cellular components X is located in).
* **words**: answers whose names share the question's content words rank first ("Is LAMP1 a
  lysosomal marker?": *lysosomal membrane* before *plasma membrane*); words are compared by
  their first five letters, so "lysosomal" meets "lysosome" and "damage" meets "damaged".
* **frequency**: HPO annotations carry how often a phenotype occurs in a disease (Obligate,
  Very frequent, 4/5, 30%); the frequent ones are the characteristic features.
* **support**: the number of paths or constraints behind an answer.
"""

from __future__ import annotations

import re

from biokg.graph_agent.evidence import EvidenceGraph
from biokg.graph_agent.findings import Finding
from biokg.graph_agent.requests import Focus
from biokg.graph_agent.text import STOP_WORDS, mention_key

#: HPO frequency terms (HP:0040279 subtree) as the middle of the range each one names.
HPO_FREQUENCIES = {
    "HP:0040280": 1.0,  # Obligate
    "HP:0040281": 0.9,  # Very frequent (80-99%)
    "HP:0040282": 0.55,  # Frequent (30-79%)
    "HP:0040283": 0.17,  # Occasional (5-29%)
    "HP:0040284": 0.025,  # Very rare (1-4%)
    "HP:0040285": 0.0,  # Excluded
}
#: An annotation without a frequency: neither characteristic nor rare.
UNKNOWN_FREQUENCY = 0.5
_RATIO = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
_PERCENT = re.compile(r"^\s*([\d.]+)\s*%\s*$")
_STEM = 5


def frequency(value: object) -> float:
    """An annotation's frequency as a fraction: an HPO term, "n/m" or "x%".

    >>> frequency("HP:0040281"), frequency("3/4"), frequency("30%"), frequency(None)
    (0.9, 0.75, 0.3, 0.5)
    """
    if not isinstance(value, str):
        return UNKNOWN_FREQUENCY
    if value in HPO_FREQUENCIES:
        return HPO_FREQUENCIES[value]
    if match := _RATIO.match(value):
        n, m = int(match[1]), int(match[2])
        return n / m if m else UNKNOWN_FREQUENCY
    if match := _PERCENT.match(value):
        return min(1.0, float(match[1]) / 100)
    return UNKNOWN_FREQUENCY


def stems(text: str) -> set[str]:
    """Stems of the content words of a name or phrase: lower case, first five letters; stop
    words dropped."""
    return {w[:_STEM] for w in mention_key(text).split() if len(w) > 2 and w not in STOP_WORDS}


def relevance(words: tuple[str, ...], name: str | None) -> float:
    """The share of the question's content words that the name shares (by stem)."""
    asked = stems(" ".join(words))
    if not asked or not name:
        return 0.0
    return len(asked & stems(name)) / len(asked)


def ranked(evidence: EvidenceGraph, findings: list[Finding], focus: Focus) -> list[Finding]:
    """Findings of the asked kind (when any are), best first (see module docstring)."""
    if focus.kinds:
        of_kind = [f for f in findings if _kind(evidence, f.node) in focus.kinds]
        findings = of_kind or findings
    scored = []
    for f in findings:
        node = evidence.nodes.get(f.node)
        related = relevance(focus.words, node.name if node else None)
        if focus.only_relevant and not related:
            continue
        often = max(
            (frequency(evidence.edges[e].properties.get("frequency")) for e in f.edge_ids),
            default=UNKNOWN_FREQUENCY,
        )
        f.score = round(related + often / 2, 4)
        scored.append(f)
    return sorted(scored, key=lambda f: (f.negated, -f.score, -f.support, _name(evidence, f)))


def _kind(evidence: EvidenceGraph, node_id: str) -> str | None:
    node = evidence.nodes.get(node_id)
    return node.kind if node else None


def _name(evidence: EvidenceGraph, finding: Finding) -> str:
    node = evidence.nodes.get(finding.node)
    return (node.name or node.id) if node else finding.node
