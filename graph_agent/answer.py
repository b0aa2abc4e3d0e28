"""Claims from findings: short statements, each citing only ids in the evidence graph.

Every claim is built by :meth:`EvidenceGraph.cite`, which refuses ids no query returned. A
negated edge (GO/HPO ``NOT``) becomes a negative claim; a pair asserted both ways is marked as a
conflict and says so. With no findings the answer is "not found in the graph", never a guess.
"""

from __future__ import annotations

from biokg.graph_agent.evidence import EvidenceGraph
from biokg.graph_agent.models import Claim, EvidenceNode, Mention
from biokg.graph_agent.research import Finding

MAX_CLAIMS = 25
_QUALIFIERS = ("action_type", "mechanism", "frequency", "onset", "max_phase", "report_count")


def verb(rel_type: str) -> str:
    """``HAS_PHENOTYPE`` → ``has phenotype``."""
    return rel_type.lower().replace("_", " ")


def build_claims(evidence: EvidenceGraph, findings: list[Finding]) -> list[Claim]:
    """One claim per finding (best first), capped at :data:`MAX_CLAIMS`."""
    claims = []
    conflicts = _conflicting_pairs(findings)
    for finding in findings[:MAX_CLAIMS]:
        text = _statement(evidence, finding)
        pair = (finding.seed, finding.node, finding.relation)
        edge_ids = list(finding.edge_ids)
        if pair in conflicts:
            edge_ids += [e for e in conflicts[pair] if e not in edge_ids]
            text += " (sources conflict: the graph holds this assertion both negated and not)"
        nodes = [finding.seed, *finding.via, finding.node]
        claims.append(evidence.cite(text, nodes, edge_ids))
    return claims


def answer_nodes(evidence: EvidenceGraph, findings: list[Finding]) -> list[EvidenceNode]:
    """The entities that answer the question, best first (negated findings excluded)."""
    ids = dict.fromkeys(f.node for f in findings if not f.negated)
    return [evidence.nodes[i] for i in ids]


def summarise(
    evidence: EvidenceGraph, findings: list[Finding], mentions: list[Mention], why_empty: str
) -> str:
    """One paragraph: ambiguity first, then what was found (or that nothing was)."""
    parts = [
        f"'{m.text}' matches {len(m.candidates)} nodes "
        f"({', '.join(f'{c.id} {c.name}' for c in m.candidates[:5])}); all were explored."
        for m in mentions
        if m.ambiguous
    ]
    positives = answer_nodes(evidence, findings)
    if not positives and not findings:
        parts.append(f"Not found in the graph: {why_empty}")
        return " ".join(parts)
    names = ", ".join(n.name or n.id for n in positives[:10])
    more = f" and {len(positives) - 10} more" if len(positives) > 10 else ""
    relations = sorted({verb(f.relation.replace(">", " then ")) for f in findings})
    parts.append(f"{len(positives)} found ({'; '.join(relations)}): {names}{more}.")
    negated = [f for f in findings if f.negated]
    if negated:
        parts.append(f"{len(negated)} negated assertions (NOT) are listed as such.")
    return " ".join(parts)


def _statement(evidence: EvidenceGraph, finding: Finding) -> str:
    edges = [evidence.edges[e] for e in finding.edge_ids]
    if not finding.via and ">" in finding.relation:  # shared neighbour: one edge per side
        left, right = (e.subject if e.object == finding.node else e.object for e in edges)
        return (
            f"{_name(evidence, left)} and {_name(evidence, right)} both "
            f"{verb(edges[0].type)} {_name(evidence, finding.node)}"
        )
    if not finding.via:
        edge = edges[0]
        subject, obj = _name(evidence, edge.subject), _name(evidence, edge.object)
        negation = "NOT " if finding.negated else ""
        qualifiers = ", ".join(
            f"{k}: {edge.properties[k]}" for k in _QUALIFIERS if edge.properties.get(k)
        )
        tail = f" [{qualifiers}]" if qualifiers else ""
        sources = len({e.source for e in edges})
        support = f" ({len(edges)} edges, {sources} sources)" if len(edges) > 1 else ""
        return f"{subject} {negation}{verb(edge.type)} {obj}{tail}{support}"
    first_path = edges if finding.support == 1 else edges[:2]
    hops = [
        f"{_name(evidence, e.subject)} {verb(e.type)} {_name(evidence, e.object)}"
        for e in first_path
    ]
    via = ", ".join(_name(evidence, v) for v in finding.via[:3])
    support = f"{finding.support} paths" if finding.support > 1 else "1 path"
    return (
        f"{_name(evidence, finding.seed)} reaches {_name(evidence, finding.node)} "
        f"via {via} ({support}; e.g. {'; '.join(hops)})"
    )


def _name(evidence: EvidenceGraph, node: str) -> str:
    found = evidence.nodes.get(node)
    return f"{found.name} ({node})" if found and found.name else node


def _conflicting_pairs(findings: list[Finding]) -> dict[tuple[str, str, str], list[str]]:
    """(seed, node, relation) asserted both negated and positive → the edges of both."""
    by_pair: dict[tuple[str, str, str], dict[bool, list[str]]] = {}
    for f in findings:
        by_pair.setdefault((f.seed, f.node, f.relation), {})[f.negated] = f.edge_ids
    return {
        pair: [e for ids in sides.values() for e in ids]
        for pair, sides in by_pair.items()
        if len(sides) == 2
    }
