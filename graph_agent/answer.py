"""Claims from findings: short statements, each citing only ids in the evidence graph.

Every claim is built by :meth:`EvidenceGraph.cite`, which refuses ids no query returned. A
negated edge (GO/HPO ``NOT``) becomes a negative claim; a pair asserted both ways is marked as a
conflict and says so. With no findings the answer is "not found in the graph", never a guess.

Entities are named as people name them: a gene by its symbol with its full name beside it
("PDE5A (phosphodiesterase 5A, NCBIGene:8654)"), a drug by its ingredient name with brand
names in brackets ("sildenafil (Viagra, Revatio; CHEMBL.COMPOUND:CHEMBL192)").
"""

from __future__ import annotations

import time

from biokg.graph_agent.evidence import EvidenceGraph
from biokg.graph_agent.findings import Finding
from biokg.graph_agent.models import Answer, Claim, EvidenceEdge, EvidenceNode, Mention
from biokg.graph_agent.runner import QueryRunner
from biokg.graph_agent.text import mention_key

MAX_CLAIMS = 25
MAX_BRANDS = 2
_QUALIFIERS = ("action_type", "mechanism", "frequency", "onset", "max_phase", "report_count")
_VERDICT = {"yes": "Yes", "no": "No"}


def verb(rel_type: str) -> str:
    """``HAS_PHENOTYPE`` → ``has phenotype``."""
    return rel_type.lower().replace("_", " ")


def spoken(node: EvidenceNode) -> str:
    """A node as people name it, with its id (module docstring)."""
    if node.label == "Gene" and node.symbol and node.name and node.symbol != node.name:
        return f"{node.symbol} ({node.name}, {node.id})"
    name = node.name or node.id
    if node.label == "Drug":
        ingredient = name.lower() if name.isupper() else name
        brands = _brands(node, name)
        return (
            f"{ingredient} ({', '.join(brands)}; {node.id})"
            if brands
            else f"{ingredient} ({node.id})"
        )
    return f"{name} ({node.id})" if node.name else node.id


def build_claims(
    evidence: EvidenceGraph, findings: list[Finding], versions: dict[str, str] | None = None
) -> list[Claim]:
    """One claim per finding (best first), capped at :data:`MAX_CLAIMS`."""
    claims = []
    conflicts = _conflicting_pairs(findings)
    for finding in findings[:MAX_CLAIMS]:
        text = finding.statement or _statement(evidence, finding)
        pair = (finding.seed, finding.node, finding.relation)
        edge_ids = list(finding.edge_ids)
        if pair in conflicts:
            edge_ids += [e for e in conflicts[pair] if e not in edge_ids]
            text += " (sources conflict: the graph holds this assertion both negated and not)"
        nodes = [finding.node, finding.seed, *finding.via, *finding.cited]
        if finding.statement is None:
            nodes = [finding.seed, *finding.via, *finding.cited, finding.node]
        claims.append(evidence.cite(text, nodes, edge_ids, versions=versions))
    return claims


def compose(
    question: str,
    runner: QueryRunner,
    *,
    planner: str,
    mentions: list[Mention],
    claims: list[Claim],
    answers: list[EvidenceNode],
    summary: str,
    verdict: str | None = None,
    timing: tuple[float, float],
    versions: list[dict],
) -> Answer:
    """The one way an :class:`Answer` is made, whichever research ran (the planned requests,
    the LLM's tools, the diagnosis ranker): the evidence and query log the question's runner
    gathered, and its timings. ``timing``: when answering started (``time.perf_counter``) and
    the milliseconds linking took."""
    started, link_ms = timing
    answered = bool(answers) or verdict is not None
    return Answer(
        question=question,
        status="answered" if answered else "not_found",
        verdict=verdict if answered else None,
        summary=summary,
        planner=planner,
        claims=claims,
        answers=answers,
        mentions=mentions,
        evidence=runner.evidence.view(),
        queries=runner.log,
        timings={
            "link_ms": link_ms,
            "graph_ms": round(runner.graph_ms, 2),
            "total_ms": elapsed_ms(started),
        },
        data_versions=versions,
    )


def elapsed_ms(since: float) -> float:
    """Milliseconds since ``since`` (``time.perf_counter``), as timings show them."""
    return round((time.perf_counter() - since) * 1000, 2)


def answer_nodes(evidence: EvidenceGraph, findings: list[Finding]) -> list[EvidenceNode]:
    """The entities that answer the question, best first (negated findings excluded)."""
    ids = dict.fromkeys(f.node for f in findings if not f.negated)
    return [evidence.nodes[i] for i in ids]


def summarise(
    evidence: EvidenceGraph,
    findings: list[Finding],
    mentions: list[Mention],
    notes: list[str],
    verdict: str | None = None,
) -> str:
    """One paragraph: the verdict, ambiguity, then what was found (or that nothing was)."""
    positives = answer_nodes(evidence, findings)
    negated = [f for f in findings if f.negated]
    if not positives and negated and verdict in _VERDICT:
        # the source asserts the claim's negation (GO/HPO NOT): a verdict, not a miss
        denied = ", ".join(dict.fromkeys(_short(evidence.nodes[f.node]) for f in negated))
        return (
            f"{_VERDICT[verdict]}, according to the graph: its source asserts the negation "
            f"(NOT) for {denied}."
        )
    if not positives:  # names only: an answer that found nothing cites nothing
        reasons = "; ".join(dict.fromkeys(n for n in notes if n)) or "nothing matched"
        tried = [
            f"'{m.text}' matches {len(m.candidates)} nodes "
            f"({', '.join(c.name for c in m.candidates[:5])}); all were explored."
            for m in mentions
            if m.ambiguous
        ]
        return " ".join([f"Not found in the graph: {reasons}.", *tried])
    parts = [
        f"'{m.text}' matches {len(m.candidates)} nodes "
        f"({', '.join(f'{c.id} {c.name}' for c in m.candidates[:5])}); all were explored."
        for m in mentions
        if m.ambiguous
    ]
    if verdict in _VERDICT:
        parts.insert(0, f"{_VERDICT[verdict]}, according to the graph.")
    shown = [_short(evidence.nodes[n.id]) for n in positives[:10]]
    more = f" and {len(positives) - 10} more" if len(positives) > 10 else ""
    relations = sorted({_relation(f) for f in findings})
    parts.append(f"{len(positives)} found ({'; '.join(relations)}): {', '.join(shown)}{more}.")
    if negated:
        parts.append(f"{len(negated)} negated assertions (NOT) are listed as such.")
    parts += [f"Note: {n}." for n in dict.fromkeys(notes) if n]
    return " ".join(parts)


def _relation(finding: Finding) -> str:
    return verb(finding.relation.replace(">", " then ").replace("+", " and "))


def _short(node: EvidenceNode) -> str:
    """A node's name for the summary line: symbol for genes, ingredient for drugs."""
    if node.label == "Gene" and node.symbol:
        return f"{node.symbol} ({node.name})" if node.name != node.symbol else node.symbol
    name = node.name or node.id
    return name.lower() if node.label == "Drug" and name.isupper() else name


def _brands(node: EvidenceNode, name: str) -> list[str]:
    """Brand names other than the ingredient's own, one spelling each (mixed case first)."""
    seen: dict[str, str] = {}
    for brand in sorted(node.brand_names, key=lambda b: (b.isupper(), b)):
        key = mention_key(brand)
        if key and key != mention_key(name) and key not in seen:
            seen[key] = brand
    return list(seen.values())[:MAX_BRANDS]


def _statement(evidence: EvidenceGraph, finding: Finding) -> str:
    edges = [evidence.edges[e] for e in finding.edge_ids]
    if finding.cited:  # an intersection: one edge per constraint met
        met = "; ".join(
            f"{_name(evidence, e.subject)} {verb(e.type)} {_name(evidence, e.object)}"
            for e in edges
        )
        return f"{_name(evidence, finding.node)} meets {finding.support} constraint(s): {met}"
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
    first_path = _first_path(edges, finding.node)
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


def _first_path(edges: list[EvidenceEdge], end: str) -> list[EvidenceEdge]:
    """The leading edges of a finding up to the first that reaches ``end`` (its first path:
    a chain's two hops, with any bridge between sources' records crossed on the way)."""
    path = []
    for edge in edges:
        path.append(edge)
        if end in (edge.subject, edge.object):
            break
    return path


def _name(evidence: EvidenceGraph, node: str) -> str:
    found = evidence.nodes.get(node)
    return spoken(found) if found else node


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
