"""Breadth-first and depth-first research over the graph, one class per strategy.

* :class:`BreadthSearch` (BFRS): a survey of the seeds' one-hop neighbourhoods (counts per
  relationship type, direction and neighbour label: one query), then rows for the relevant
  groups, each group capped so one huge group cannot starve the rest.
* :class:`DepthSearch` (DFRS): multi-hop paths from the seeds along a typed chain (ranked by
  how many paths support each end node), or the shortest path between two seeds.

Both run through the question's :class:`QueryRunner`, so every query is logged and everything
it returns lands in the evidence graph. Steps return :class:`Finding` objects that point into
that evidence by id.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from biokg.graph_agent.runner import QueryRunner


@dataclass(frozen=True)
class Relation:
    """One relationship type seen from the seed: outgoing (seed is subject) or not."""

    type: str
    outgoing: bool | None
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Chain:
    """Two hops: seed -first- via label -second- one of the target labels; each hop with its
    direction (``None``: either)."""

    first: str
    first_out: bool | None
    via: str
    second: str
    second_out: bool | None
    targets: tuple[str, ...]


@dataclass
class Finding:
    """An entity reached from a seed, and the evidence ids that connect them."""

    node: str
    seed: str
    relation: str
    edge_ids: list[str]
    via: list[str] = field(default_factory=list)
    support: int = 1
    negated: bool = False


@dataclass
class StepResult:
    step: str
    findings: list[Finding]
    survey: list[dict] = field(default_factory=list)
    ms: float = 0.0


class ResearchStep(ABC):
    """A strategy: :meth:`run` times it; subclasses implement :meth:`search`."""

    name: str

    def run(self, runner: QueryRunner, **request) -> StepResult:
        start = time.perf_counter()
        result = self.search(runner, **request)
        result.ms = round((time.perf_counter() - start) * 1000, 2)
        return result

    @abstractmethod
    def search(self, runner: QueryRunner, **request) -> StepResult: ...


class BreadthSearch(ResearchStep):
    """One-hop neighbourhoods of the seeds over the requested relations (all when none)."""

    name = "breadth"

    def __init__(self, *, rows_per_group: int = 200) -> None:
        self.rows_per_group = rows_per_group

    def search(
        self, runner: QueryRunner, *, seeds: list[str], relations: list[Relation]
    ) -> StepResult:
        survey = runner.template("agent_neighbour_counts", {"ids": seeds}, step="breadth:survey")
        groups = _relevant_groups(survey, relations)
        findings: list[Finding] = []
        for relation in groups:
            if runner.remaining_queries <= 1:
                break
            rows = runner.template(
                "agent_neighbours",
                {
                    "ids": seeds,
                    "type": relation.type,
                    "labels": list(relation.labels),
                    "outgoing": relation.outgoing,
                    "limit": self.rows_per_group,
                },
                step=f"breadth:{relation.type}",
            )
            for row in rows:
                edge = runner.evidence.edges[row["edge"]["id"]]
                findings.append(
                    Finding(
                        node=row["node"]["id"],
                        seed=row["seed"]["id"],
                        relation=relation.type,
                        edge_ids=[edge.id],
                        negated=bool(edge.properties.get("negated")),
                    )
                )
        return StepResult(self.name, _merge(findings), survey=survey)


class DepthSearch(ResearchStep):
    """Typed two-hop chains from the seeds, or the shortest path between two seeds."""

    name = "depth"

    def __init__(self, *, rows: int = 100) -> None:
        self.rows = rows

    def search(
        self,
        runner: QueryRunner,
        *,
        seeds: list[str],
        chain: Chain | None = None,
        target: str | None = None,
    ) -> StepResult:
        """Follow ``chain`` from each seed, or find the shortest path to the node ``target``."""
        findings: list[Finding] = []
        if target is not None:
            for seed in seeds:
                findings += self._path(runner, seed, target)
            return StepResult(self.name, findings)
        if chain is None:
            raise ValueError("DepthSearch needs a chain or a target")
        relation = f"{chain.first}>{chain.second}"
        for seed in seeds:
            rows = runner.template(
                "agent_chain",
                {
                    "seed": seed,
                    "first": chain.first,
                    "first_out": chain.first_out,
                    "via": chain.via,
                    "second": chain.second,
                    "second_out": chain.second_out,
                    "targets": list(chain.targets),
                    "limit": self.rows,
                },
                step=f"depth:{relation}",
            )
            for row in rows:
                paths = row["paths"]
                findings.append(
                    Finding(
                        node=row["node"]["id"],
                        seed=seed,
                        relation=relation,
                        edge_ids=[e for p in paths for e in (p["first"]["id"], p["second"]["id"])],
                        via=[p["via"]["id"] for p in paths],
                        support=row["support"],
                    )
                )
        return StepResult(self.name, _merge(findings))

    def _path(self, runner: QueryRunner, seed: str, target: str) -> list[Finding]:
        rows = runner.template("agent_shortest_path", {"a": seed, "b": target}, step="depth:path")
        return [
            Finding(
                node=target,
                seed=seed,
                relation=">".join(e["type"] for e in row["edges"]),
                edge_ids=[e["id"] for e in row["edges"]],
                via=[n["id"] for n in row["nodes"][1:-1]],
            )
            for row in rows
            if row["edges"]
        ]


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
    """One finding per (seed, node, relation); positives before negated, best supported first."""
    merged: dict[tuple[str, str, str, bool], Finding] = {}
    for f in findings:
        key = (f.seed, f.node, f.relation, f.negated)
        if key in merged:
            merged[key].edge_ids += [e for e in f.edge_ids if e not in merged[key].edge_ids]
            merged[key].support += f.support
        else:
            merged[key] = f
    return sorted(merged.values(), key=lambda f: (f.negated, -f.support))
