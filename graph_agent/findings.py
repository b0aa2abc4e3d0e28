"""What a research step returns: findings that point into the evidence graph by id.

Apart from :mod:`biokg.graph_agent.research` so that ranking, answering and the LLM tools can
read findings without importing the strategies that make them (no import cycle).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Finding:
    """An entity reached from a seed, and the evidence ids that connect them.

    ``statement``: a claim text the strategy wrote itself (an attribute's values, a quoted
    passage), else the answer step words it from the edges. ``cited``: further nodes the claim
    rests on (the label a quoted section belongs to).
    """

    node: str
    seed: str
    relation: str
    edge_ids: list[str]
    via: list[str] = field(default_factory=list)
    support: int = 1
    negated: bool = False
    score: float = 0.0
    statement: str | None = None
    cited: list[str] = field(default_factory=list)


@dataclass
class StepResult:
    """What one step found; ``verdict`` for a claim check ("yes", "no"), ``note`` says what the
    step could not do ("no label for X")."""

    step: str
    findings: list[Finding]
    survey: list[dict] = field(default_factory=list)
    ms: float = 0.0
    verdict: str | None = None
    note: str | None = None


def verdict_of(findings: list[Finding], negated_claim: bool) -> str | None:
    """A claim's verdict from the edges found for it: an edge supports "yes" for a positive
    claim and "no" for a negated one; only negated edges (GO/HPO ``NOT``) reverse that. None
    when nothing was found: the graph holds nothing either way."""
    if not findings:
        return None
    holds = any(not f.negated for f in findings)
    return "yes" if holds != negated_claim else "no"
