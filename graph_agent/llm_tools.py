"""The LLM planner's tools, run for one question: link, breadth, depth, cypher, answer.

Arguments are validated by pydantic models (their JSON schemas are the tool specs the model
sees). What goes back to the model is a compact summary: counts, a few names and ids, and a
handle name for the full id list, which stays in ``runner.handles`` and reaches later queries
as a parameter, never through a prompt. Generated Cypher runs only through the
:class:`CypherGate`; a refused or failed query goes back to the model with the reason, at most
``max_repairs`` times, and an identical failing query is never run again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from biokg.core.store import GraphStore
from biokg.errors import (
    BiokgError,
    QueryTimeoutError,
    RetryableError,
    StoreError,
    UnsafeCypherError,
)
from biokg.graph_agent.findings import Finding, StepResult
from biokg.graph_agent.gate import CypherGate
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.models import Mention
from biokg.graph_agent.prompts import RepairPrompt
from biokg.graph_agent.requests import Chain, ChainWalk, Neighbours, PathBetween, Relation, Request
from biokg.graph_agent.runner import QueryRunner
from biokg.schema import GraphSchema

log = logging.getLogger(__name__)
SAMPLE_ROWS = 3
SAMPLE_NAMES = 5
MAX_TEXT = 200


class CypherRepairError(BiokgError):
    """Generated Cypher still failed after the allowed repairs."""


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LinkArgs(_Args):
    """Find the graph nodes a name or phrase may mean (ids, names, synonyms, typos)."""

    text: str = Field(min_length=1, max_length=200)


class BreadthArgs(_Args):
    """One-hop neighbours of seed nodes over some relationship types (all when none given)."""

    seed_ids: list[str] = Field(min_length=1, max_length=50, description='ids, or "$h1" handles')
    relationship_types: list[str] = Field(default_factory=list)


class DepthArgs(_Args):
    """Paths from a seed: to a target id (shortest, ≤4 hops), or along a typed two-hop chain."""

    seed_id: str
    target_id: str | None = None
    chain: list[str] | None = Field(
        default=None,
        min_length=4,
        max_length=4,
        description="[first type, via label, second type, target label]",
    )

    @model_validator(mode="after")
    def _one_goal(self) -> DepthArgs:
        if (self.target_id is None) == (self.chain is None):
            raise ValueError("give exactly one of target_id and chain")
        return self


class CypherArgs(_Args):
    """Run one read-only Cypher query (checked by the gate first); values go in params."""

    query: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)


class AnswerArgs(_Args):
    """Finish: the node ids that answer the question (from earlier results), best first."""

    node_ids: list[str] = Field(default_factory=list)


TOOLS: dict[str, type[_Args]] = {
    "link": LinkArgs,
    "breadth": BreadthArgs,
    "depth": DepthArgs,
    "cypher": CypherArgs,
    "answer": AnswerArgs,
}


def tool_specs() -> list[dict[str, Any]]:
    """The OpenAI ``tools`` list, from the argument models."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": (model.__doc__ or "").strip(),
                "parameters": model.model_json_schema(),
            },
        }
        for name, model in TOOLS.items()
    ]


class AgentTools(Protocol):
    """What the tools use of the agent (``GraphAgent`` has it), declared here so this module
    and the LLM planner need not import the orchestrator that imports them."""

    schema: GraphSchema
    store: GraphStore
    linker: EntityLinker

    def run_request(self, request: Request, runner: QueryRunner) -> StepResult: ...


class ToolBox:
    """The tools for one question, and what they found (see module docstring)."""

    def __init__(
        self,
        runner: QueryRunner,
        agent: AgentTools,
        gate: CypherGate,
        mentions: list[Mention],
        *,
        max_repairs: int = 3,
    ) -> None:
        self.runner = runner
        self.agent = agent
        self.gate = gate
        self.max_repairs = max_repairs
        self.findings: dict[tuple[str, str, str, bool], Finding] = {}
        self.known = {c.id for m in mentions for c in m.candidates}
        self.failed: dict[str, str] = {}
        self.failures = 0
        self.finished = False
        self.focus: list[str] = []
        self._dispatch: dict[str, Callable[[Any], dict[str, Any]]] = {
            "link": self._link,
            "breadth": self._breadth,
            "depth": self._depth,
            "cypher": self._cypher,
            "answer": self._answer,
        }

    def call(self, name: str, arguments: str) -> dict[str, Any]:
        """Run one tool call; bad arguments come back as an error for the model to fix.

        Raises:
            CypherRepairError: generated Cypher failed more than ``max_repairs`` times.
            BudgetExceededError: the question's graph budget is spent.
        """
        model = TOOLS.get(name)
        if model is None:
            return {"error": f"unknown tool {name!r}; tools: {', '.join(TOOLS)}"}
        try:
            args = model.model_validate(json.loads(arguments or "{}"))
        except (json.JSONDecodeError, ValidationError) as err:
            return {"error": f"invalid arguments for {name}: {err}"}
        return self._dispatch[name](args)

    def result(self) -> list[Finding]:
        """The findings, narrowed to the answer's node ids when the model named some."""
        findings = sorted(self.findings.values(), key=lambda f: (f.negated, -f.support))
        chosen = [f for f in findings if f.node in self.focus]
        return chosen or findings

    # -- tools -----------------------------------------------------------------------------
    def _link(self, args: LinkArgs) -> dict[str, Any]:
        read = self.runner.reader("llm:link")
        candidates = self.agent.linker.link(args.text, read=read)[:SAMPLE_NAMES]
        self.known |= {c.id for c in candidates}
        return {
            "candidates": [
                {"id": c.id, "label": c.label, "name": c.name, "score": c.score} for c in candidates
            ],
            "ambiguous": len(candidates) > 1,
        }

    def _breadth(self, args: BreadthArgs) -> dict[str, Any]:
        unknown = [t for t in args.relationship_types if t not in self.agent.schema.types]
        if unknown:
            return {"error": f"unknown relationship types {unknown}"}
        seeds = self._expand(args.seed_ids)
        relations = tuple(Relation(t, None, ()) for t in args.relationship_types)
        return self._research(Neighbours(tuple(seeds), relations, why="llm"), seeds)

    def _depth(self, args: DepthArgs) -> dict[str, Any]:
        if args.chain is not None:
            first, via, second, target = args.chain
            schema = self.agent.schema
            bad = [t for t in (first, second) if t not in schema.types]
            bad += [label for label in (via, target) if label not in schema.labels]
            if bad:
                return {"error": f"unknown names in chain: {bad}"}
            chain = Chain(first, None, via, second, None, (target,))
            request: Request = ChainWalk((args.seed_id,), chain, why="llm")
        else:
            self.known.add(args.target_id or "")
            request = PathBetween((args.seed_id,), args.target_id or "", why="llm")
        return self._research(request, [args.seed_id])

    def _cypher(self, args: CypherArgs) -> dict[str, Any]:
        signature = json.dumps([" ".join(args.query.split()), args.params], sort_keys=True)
        if signature in self.failed:
            return self._failure(f"this exact query already failed ({self.failed[signature]})")
        try:
            gated, rows = self.gate.run(self.runner, args.query, args.params, step="llm:cypher")
        except UnsafeCypherError as err:
            self.failed[signature] = str(err)
            return self._failure(f"refused by the Cypher gate: {err}")
        except QueryTimeoutError as err:  # stopped: the model may narrow it (time budget holds)
            self.failed[signature] = str(err)
            return self._failure(f"stopped at its time limit: {err}")
        except StoreError as err:
            if isinstance(err, RetryableError):
                raise
            self.failed[signature] = str(err)
            return self._failure(f"the engine rejected it: {err}")
        found = self._edge_findings(rows)
        summary: dict[str, Any] = {
            "rows": len(rows),
            "columns": list(rows[0]) if rows else [],
            "sample": [_compact(row) for row in rows[:SAMPLE_ROWS]],
            "findings": len(found),
            "notes": list(gated.notes),
        }
        if rows and not found:
            summary["notes"].append(
                "no relationship projections in the rows: nothing here can be cited"
            )
        nodes = _node_ids(rows)
        if nodes:
            summary |= self._handle(nodes)
        return summary

    def _answer(self, args: AnswerArgs) -> dict[str, Any]:
        self.finished = True
        self.focus = list(args.node_ids)
        return {"ok": True}

    # -- helpers ---------------------------------------------------------------------------
    def _research(self, request: Request, seeds: list[str]) -> dict[str, Any]:
        self.known |= set(seeds)
        found = self.agent.run_request(request, self.runner).findings
        for finding in found:
            self._add(finding)
        by_relation: dict[str, int] = {}
        for f in found:
            by_relation[f.relation] = by_relation.get(f.relation, 0) + 1
        out: dict[str, Any] = {"found": len(found), "by_relation": by_relation}
        return out | (self._handle([f.node for f in found]) if found else {})

    def _handle(self, ids: list[str]) -> dict[str, Any]:
        name = self.runner.keep(f"h{len(self.runner.handles) + 1}", ids)
        evidence = self.runner.evidence.nodes
        first = [
            f"{evidence[i].name} ({i})" if i in evidence else i
            for i in self.runner.handles[name][:SAMPLE_NAMES]
        ]
        return {"handle": name, "handle_size": len(self.runner.handles[name]), "first": first}

    def _expand(self, ids: list[str]) -> list[str]:
        """Seed ids with ``$h1`` handle names replaced by the ids they hold."""
        out: list[str] = []
        for item in ids:
            out += self.runner.handles.get(item.lstrip("$"), []) if item.startswith("$") else [item]
        return list(dict.fromkeys(out))

    def _failure(self, reason: str) -> dict[str, Any]:
        self.failures += 1
        left = self.max_repairs - (self.failures - 1)
        log.debug("generated cypher failed (%s left): %s", left, reason)
        if left <= 0:
            raise CypherRepairError(
                f"generated Cypher failed {self.failures} times (the first try and "
                f"{self.max_repairs} repairs); last: {reason}"
            )
        return {"error": RepairPrompt.format(error=reason, repairs_left=left)}

    def _edge_findings(self, rows: list[dict[str, Any]]) -> list[Finding]:
        """A finding per relationship projection in the rows, its end nodes made evidence."""
        evidence = self.runner.evidence
        edges = [evidence.edges[i] for i in _edge_ids(rows) if i in evidence.edges]
        missing = {e for edge in edges for e in (edge.subject, edge.object)} - set(evidence.nodes)
        if missing:
            self.runner.template("agent_nodes", {"ids": sorted(missing)}, step="llm:nodes")
        found = []
        for edge in edges:
            if edge.subject not in evidence.nodes or edge.object not in evidence.nodes:
                continue
            seed, node = edge.subject, edge.object
            if node in self.known and seed not in self.known:
                seed, node = node, seed
            found.append(
                Finding(
                    node=node,
                    seed=seed,
                    relation=edge.type,
                    edge_ids=[edge.id],
                    negated=bool(edge.properties.get("negated")),
                )
            )
        for finding in found:
            self._add(finding)
        return found

    def _add(self, finding: Finding) -> None:
        key = (finding.seed, finding.node, finding.relation, finding.negated)
        if key in self.findings:
            kept = self.findings[key]
            kept.edge_ids += [e for e in finding.edge_ids if e not in kept.edge_ids]
        else:
            self.findings[key] = finding


def _walk(value: Any, visit: Callable[[dict[str, Any]], bool]) -> None:
    """Call ``visit`` on every dict in a row; it returns True to stop descending."""
    if isinstance(value, list):
        for item in value:
            _walk(item, visit)
    elif isinstance(value, dict) and not visit(value):
        for item in value.values():
            _walk(item, visit)


def _is_edge(value: dict[str, Any]) -> bool:
    return "type" in value and "subject" in value and "props" in value


def _edge_ids(rows: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    _walk(rows, lambda d: _is_edge(d) and (out.append(d["id"]) or True))
    return list(dict.fromkeys(i for i in out if i is not None))


def _node_ids(rows: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []

    def visit(d: dict[str, Any]) -> bool:
        if _is_edge(d):
            return True
        if "label" in d and d.get("id") is not None:
            out.append(d["id"])
            return True
        return False

    _walk(rows, visit)
    return list(dict.fromkeys(out))


def _compact(value: Any) -> Any:
    """A row as the model sees it: nodes as 'name (id)', edges as one line, text cut short."""
    if isinstance(value, dict):
        if _is_edge(value):
            return f"{value.get('subject')} -{value.get('type')}-> {value.get('object')}"
        if "label" in value and "id" in value:
            return f"{value.get('name')} ({value['id']})"
        return {k: _compact(v) for k, v in list(value.items())[:10]}
    if isinstance(value, list):
        more = [f"... {len(value) - SAMPLE_NAMES} more"] if len(value) > SAMPLE_NAMES else []
        return [_compact(v) for v in value[:SAMPLE_NAMES]] + more
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return value[:MAX_TEXT] + "…"
    return value
