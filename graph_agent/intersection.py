"""Answers that meet several constraints at once ("genes annotated with calcium ion transport
that are also associated with dilated cardiomyopathy").

One query over all constraints: for each, the target-label nodes joined to one of its nodes
(ontology terms with their subtypes) by one of its relationship types; nodes are ranked by how
many constraints they meet, then by the question's words. Nodes meeting at least two
constraints are preferred; when none does, those meeting one are reported and the step's note
says that no node meets them all.
"""

from __future__ import annotations

from biokg.graph_agent.checks import MAX_SUBTYPES
from biokg.graph_agent.findings import Finding, StepResult
from biokg.graph_agent.ranking import ranked
from biokg.graph_agent.requests import Intersection
from biokg.graph_agent.research import ResearchStep
from biokg.graph_agent.runner import QueryRunner

MAX_ROWS = 100


class IntersectionSearch(ResearchStep[Intersection]):
    """Nodes meeting the most constraints (module docstring)."""

    name = "intersection"

    def search(self, runner: QueryRunner, request: Intersection) -> StepResult:
        groups = []
        for index, constraint in enumerate(request.constraints):
            ids = list(constraint.ids)
            if constraint.descendants:
                rows = runner.template(
                    "agent_subtypes",
                    {"ids": ids, "limit": MAX_SUBTYPES},
                    step="intersection:subtypes",
                )
                ids = sorted({*ids, *(r["id"] for r in rows)})
            groups.append(
                {
                    "index": index,
                    "ids": ids,
                    "types": list(constraint.types),
                    "outgoing": constraint.outgoing,
                    "within": list(constraint.within),
                }
            )
        params = {
            "groups": groups,
            "targets": list(request.targets),
            "kinds": list(request.focus.kinds),
            "limit": MAX_ROWS,
        }
        least = min(2, len(groups))
        rows = runner.template(
            "agent_intersection", {**params, "min_groups": least}, step="intersection"
        )
        note = None
        if not rows and least > 1:
            note = "no node meets all the question's constraints; nodes meeting one are listed"
            rows = runner.template(
                "agent_intersection", {**params, "min_groups": 1}, step="intersection:any"
            )
        findings = [
            Finding(
                node=row["node"]["id"],
                seed=row["hits"][0]["constraint"]["id"],
                relation="+".join(sorted({h["edge"]["type"] for h in row["hits"]})),
                edge_ids=[h["edge"]["id"] for h in row["hits"]],
                cited=[h["constraint"]["id"] for h in row["hits"]],
                support=row["matched"],
            )
            for row in rows
        ]
        findings = ranked(runner.evidence, findings, request.focus)
        findings.sort(key=lambda f: -f.support)  # stable: constraints met first, then rank
        return StepResult(self.name, findings, note=note)
