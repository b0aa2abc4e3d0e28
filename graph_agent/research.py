"""Research strategies: one class per request kind, each filling one :meth:`search` method.

* :class:`BreadthSearch` (BFRS, :class:`Neighbours`): a survey of the seeds' one-hop
  neighbourhoods (counts per relationship type, direction and neighbour label: one query), then
  rows for the relevant groups, each group capped so one huge group cannot starve the rest.
* :class:`ChainSearch` (DFRS, :class:`ChainWalk`): ends of a typed two-hop chain, ranked by how
  many paths support each end.
* :class:`PathSearch` (DFRS, :class:`PathBetween`): the shortest path between two seeds.

The others (claims, intersections, attributes, label text) live in their own modules. All run
through the question's :class:`QueryRunner`, so every query is logged and everything it returns
lands in the evidence graph; steps return :class:`Finding` objects that point into that
evidence by id.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from biokg.core.names import name_key
from biokg.graph_agent.findings import Finding, StepResult, verdict_of
from biokg.graph_agent.ranking import ranked
from biokg.graph_agent.requests import (
    ChainWalk,
    Neighbours,
    PathBetween,
    Relation,
    Request,
)
from biokg.graph_agent.runner import QueryRunner

R = TypeVar("R", bound=Request)


class ResearchStep(ABC, Generic[R]):
    """A strategy: :meth:`run` times it; subclasses implement :meth:`search` for one request
    type."""

    name: str

    def run(self, runner: QueryRunner, request: R) -> StepResult:
        start = time.perf_counter()
        result = self.search(runner, request)
        result.ms = round((time.perf_counter() - start) * 1000, 2)
        return result

    @abstractmethod
    def search(self, runner: QueryRunner, request: R) -> StepResult: ...


class BreadthSearch(ResearchStep[Neighbours]):
    """One-hop neighbourhoods of the seeds over the requested relations (all when none)."""

    name = "breadth"

    def __init__(self, *, rows_per_group: int = 200) -> None:
        self.rows_per_group = rows_per_group

    def search(self, runner: QueryRunner, request: Neighbours) -> StepResult:
        seeds = list(request.seeds)
        same = same_as(runner, seeds).equivalents
        ids = seeds + list(same)
        survey = runner.template("agent_neighbour_counts", {"ids": ids}, step="breadth:survey")
        asked = {relation.type for relation in request.relations}
        survey = [
            {**row, "seed": same[row["seed"]].seed if row["seed"] in same else row["seed"]}
            for row in survey
            if row["type"] != BRIDGE or BRIDGE in asked
        ]
        groups = _relevant_groups(survey, list(request.relations))
        findings: list[Finding] = []
        for relation in groups:
            if runner.remaining_queries <= 1:
                break
            rows = runner.template(
                "agent_neighbours",
                {
                    "ids": ids,
                    "type": relation.type,
                    "labels": list(relation.labels),
                    "outgoing": relation.outgoing,
                    "limit": self.rows_per_group,
                },
                step=f"breadth:{relation.type}",
            )
            for row in rows:
                edge = runner.evidence.edges[row["edge"]["id"]]
                reached, node = row["seed"]["id"], row["node"]["id"]
                bridge = same.get(reached)
                if node in seeds or (node in same and relation.type != BRIDGE):
                    continue
                findings.append(
                    Finding(
                        node=node,
                        seed=bridge.seed if bridge else reached,
                        relation=relation.type,
                        edge_ids=[*bridge.edges, edge.id] if bridge else [edge.id],
                        via=[reached] if bridge else [],
                        negated=bool(edge.properties.get("negated")),
                    )
                )
        found = ranked(runner.evidence, _merge(findings), request.focus)
        verdict = verdict_of(found, request.negated) if request.decides else None
        if request.values:
            nodes = runner.evidence.nodes
            named = [f for f in found if _named_by(nodes[f.node].name or "", request.values)]
            verdict = verdict_of(named, request.negated)
        note = request.caveat if found and verdict is None else None
        return StepResult(self.name, found, survey=survey, note=note, verdict=verdict)


def _named_by(name: str, values: tuple[str, ...]) -> bool:
    """Every value word is a word of ``name``, or one of its words of four letters or more
    begins it ("recessively": "Autosomal recessive inheritance")."""
    words = name_key(name).split()
    return all(
        any(part == w or (len(w) >= 4 and part.startswith(w)) for w in words)
        for value in values
        for part in name_key(value).split()
    )


class ChainSearch(ResearchStep[ChainWalk]):
    """Typed two-hop chains from the seeds, ends ranked by supporting paths."""

    name = "depth"

    def __init__(self, *, rows: int = 100) -> None:
        self.rows = rows

    def search(self, runner: QueryRunner, request: ChainWalk) -> StepResult:
        chain = request.chain
        relation = f"{chain.first}>{chain.second}"
        findings: list[Finding] = []
        same = same_as(runner, list(request.seeds)).equivalents
        starts = [(seed, seed) for seed in request.seeds] + [(n, e.seed) for n, e in same.items()]
        for start, seed in starts:
            if runner.remaining_queries <= 1:
                break
            bridge = same[start].edges if start in same else ()
            rows = runner.template(
                "agent_chain",
                {
                    "seed": start,
                    "first_out": chain.first_out,
                    "via": chain.via,
                    "second_out": chain.second_out,
                    "targets": list(chain.targets),
                    "kinds": list(request.focus.kinds),
                    "limit": self.rows,
                },
                step=f"depth:{relation}",
                types={"first": chain.first, "second": chain.second},
            )
            for row in rows:
                paths = row["paths"]
                if row["node"]["id"] in request.seeds:
                    continue
                edge_ids = [
                    e
                    for p in paths
                    for e in (
                        *bridge,
                        p["first"]["id"],
                        *(b["id"] for b in p["bridge_edges"]),
                        p["second"]["id"],
                    )
                ]
                findings.append(
                    Finding(
                        node=row["node"]["id"],
                        seed=seed,
                        relation=relation,
                        edge_ids=list(dict.fromkeys(edge_ids)),
                        via=list(dict.fromkeys(v for p in paths for v in _via(p, start, bridge))),
                        support=row["support"],
                    )
                )
        return StepResult(self.name, ranked(runner.evidence, _merge(findings), request.focus))


class PathSearch(ResearchStep[PathBetween]):
    """The shortest path (≤ 4 hops) from each seed to the target."""

    name = "path"

    def search(self, runner: QueryRunner, request: PathBetween) -> StepResult:
        findings = []
        for seed in request.seeds:
            rows = runner.template(
                "agent_shortest_path", {"a": seed, "b": request.target}, step="depth:path"
            )
            findings += [
                Finding(
                    node=request.target,
                    seed=seed,
                    relation=">".join(e["type"] for e in row["edges"]),
                    edge_ids=[e["id"] for e in row["edges"]],
                    via=[n["id"] for n in row["nodes"][1:-1]],
                )
                for row in rows
                if row["edges"]
            ]
        return StepResult(self.name, findings)


#: The relationship type joining one entity's records from different sources (schema/).
BRIDGE = "SAME_AS"


@dataclass(frozen=True)
class Equivalent:
    """A node that is a seed under another source's id, and the bridge edges that say so."""

    seed: str
    edges: tuple[str, ...]


@dataclass
class Bridged:
    """What the seeds are under other sources' ids: ``equivalents`` (node → the seed it is),
    and ``twins`` (seed → the other seeds that are the same entity: an ambiguous name that
    linked to an OMIM record and its MONDO term)."""

    equivalents: dict[str, Equivalent] = field(default_factory=dict)
    twins: dict[str, set[str]] = field(default_factory=dict)


def same_as(runner: QueryRunner, seeds: list[str]) -> Bridged:
    """The nodes that are the same entity as a seed (an HPO OMIM disease's MONDO term and the
    PrimeKG group holding it), nearest bridge first: research starts from them too, so it
    crosses sources transparently and cites the crossing."""
    bridged = Bridged()
    params = {"ids": seeds}
    for row in runner.template("agent_equivalents", params, step="bridge"):
        edges = tuple(e["id"] for e in row["bridge"])
        seed, node = row["seed"]["id"], row["node"]["id"]
        if node in seeds:
            bridged.twins.setdefault(seed, set()).add(node)
        elif node not in bridged.equivalents or len(edges) < len(bridged.equivalents[node].edges):
            bridged.equivalents[node] = Equivalent(seed, edges)
    return bridged


def _via(path: dict, start: str, bridge: list[str] | tuple[str, ...]) -> list[str]:
    """A chain path's inner nodes: the seed's equivalent it started from, the via node and
    the via node's equivalents it crossed to."""
    return ([start] if bridge else []) + [node["id"] for node in path["bridge"]]


def _relevant_groups(survey: list[dict], relations: list[Relation]) -> list[Relation]:
    """The survey's (type, direction, label) groups that match the requested relations.

    With no request, every group, smallest first: a wide survey should show many kinds of
    neighbours before many neighbours of one kind.
    """
    groups: dict[tuple[str, bool], set[str]] = {}
    sizes: dict[tuple[str, bool], int] = {}
    for row in survey:
        key = (row["type"], row["outgoing"])
        groups.setdefault(key, set()).add(row["label"])
        sizes[key] = sizes.get(key, 0) + row["edges"]
    if not relations:
        return [
            Relation(t, out, tuple(sorted(groups[(t, out)])))
            for t, out in sorted(groups, key=lambda k: (sizes[k], k))
        ]
    out = []
    for wanted in relations:
        for (rel_type, outgoing), labels in sorted(groups.items()):
            if rel_type != wanted.type or wanted.outgoing not in (None, outgoing):
                continue
            matching = tuple(sorted(labels & set(wanted.labels))) if wanted.labels else labels
            if matching:
                out.append(Relation(rel_type, outgoing, tuple(sorted(matching))))
    return out


def _merge(findings: list[Finding]) -> list[Finding]:
    """One finding per (seed, node, relation, negated); edges and support summed."""
    merged: dict[tuple[str, str, str, bool], Finding] = {}
    for f in findings:
        key = (f.seed, f.node, f.relation, f.negated)
        if key in merged:
            merged[key].edge_ids += [e for e in f.edge_ids if e not in merged[key].edge_ids]
            merged[key].support += f.support
        else:
            merged[key] = f
    return list(merged.values())
