"""Every agent read goes through one QueryRunner: budget, timeout, query log, evidence capture.

The runner is per question. It counts queries, rows and time against a :class:`Budget`, records
each query (text, parameters, rows, ms), feeds returned nodes and edges to the evidence graph,
and keeps large intermediate results as named *handles*: a later query receives the ids as a
parameter, and no prompt ever holds them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from biokg import cypher
from biokg.core.embedding.search import Reader
from biokg.core.store import GraphStore
from biokg.errors import BiokgError, BudgetExceededError
from biokg.graph_agent.evidence import EvidenceGraph
from biokg.graph_agent.models import QueryRecord
from biokg.schema import load_schema

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Budget:
    """Limits of the graph work for one question."""

    max_queries: int = 24
    max_rows: int = 5_000
    max_seconds: float = 20.0
    query_timeout_s: float = 10.0


@dataclass
class QueryRunner:
    """Runs read queries for one question within its budget (see module docstring)."""

    store: GraphStore
    budget: Budget = field(default_factory=Budget)
    evidence: EvidenceGraph = field(default_factory=EvidenceGraph)
    log: list[QueryRecord] = field(default_factory=list)
    handles: dict[str, list[str]] = field(default_factory=dict)
    on_query: Callable[[QueryRecord], None] | None = None
    _rows: int = 0
    _budgeted: int = 0
    _started: float = field(default_factory=time.perf_counter)

    def template(
        self,
        name: str,
        params: dict[str, Any],
        *,
        step: str,
        types: dict[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Run ``cypher/<name>.cypher`` with parameters (and ``$kind_properties``, the schema's
        ``kinds`` properties, which node projections report as each node's kind; with
        ``$kinds``, also ``$kind_labels``: the labels those kinds belong to).

        ``types`` fills the file's ``{placeholder}`` relationship types (a typed pattern is an
        edge-type lookup on the engine, a ``type(r) = $param`` filter a walk over every edge);
        a name that is not one of schema/'s relationship types is a ValueError.
        """
        schema = load_schema()
        text = cypher.load(name)
        for placeholder, rel_type in (types or {}).items():
            if rel_type not in schema.types:
                raise ValueError(f"cypher/{name}.cypher: {rel_type!r} is no relationship type")
            text = text.replace(f"{{{placeholder}}}", rel_type)
        params = {"kind_properties": schema.kind_properties, **params}
        if "kinds" in params:
            kinds = set(params["kinds"])
            params["kind_labels"] = sorted(
                label
                for label, spec in schema.labels.items()
                if spec.kinds is not None and kinds & set(spec.kinds.values)
            )
        return self.run(text, params, step=step)

    def run(
        self,
        text: str,
        params: dict[str, Any],
        *,
        step: str,
        evidence: bool = True,
        rollback: bool = False,
        budgeted: bool = True,
    ) -> list[dict[str, Any]]:
        """Run one read query; its rows' nodes and edges join the evidence graph.

        ``rollback`` (generated Cypher): the transaction is rolled back, never committed.
        ``budgeted=False`` (linking's index searches): logged and timed like every query, but
        not counted against the question's query budget, which is the research's.

        Raises:
            BudgetExceededError: the question's query or time budget is spent.
            StoreError: the engine rejected the query (recorded in the log first).
        """
        if budgeted:
            self._check_budget()
            self._budgeted += 1
        start = time.perf_counter()
        try:
            rows = self.store.read(
                text, params, timeout_s=self.budget.query_timeout_s, rollback=rollback
            )
        except BiokgError as err:  # recorded, then re-raised unchanged
            self._record(step, text, params, 0, start, error=str(err))
            raise
        rows = rows[: max(0, self.budget.max_rows - self._rows)]
        self._rows += len(rows)
        self._record(step, text, params, len(rows), start)
        if evidence:
            self.evidence.add_rows(rows)
        return rows

    def record_refusal(self, text: str, params: dict[str, Any], *, step: str, reason: str) -> None:
        """Log a query that was refused before it ran (it counts against the query budget)."""
        self._budgeted += 1
        self._record(step, text, params, 0, time.perf_counter(), error=reason)

    def reader(self, step: str) -> Reader:
        """A read function for lookups outside research (linking's index searches): each query
        is logged under ``step``; its rows are not evidence and do not spend the budget."""
        return lambda text, params: self.run(
            text, params, step=step, evidence=False, budgeted=False
        )

    def keep(self, name: str, ids: list[str]) -> str:
        """Store ids under a handle name (passed to later queries as ``$<name>``)."""
        self.handles[name] = list(dict.fromkeys(ids))
        return name

    @property
    def graph_ms(self) -> float:
        return sum(q.ms for q in self.log)

    @property
    def remaining_queries(self) -> int:
        return self.budget.max_queries - self._budgeted

    def _check_budget(self) -> None:
        if self._budgeted >= self.budget.max_queries:
            raise BudgetExceededError(
                f"query budget spent ({self.budget.max_queries} queries for this question)"
            )
        if time.perf_counter() - self._started > self.budget.max_seconds:
            raise BudgetExceededError(f"time budget spent ({self.budget.max_seconds:.0f} s)")

    def _record(
        self,
        step: str,
        text: str,
        params: dict[str, Any],
        rows: int,
        start: float,
        *,
        error: str | None = None,
    ) -> None:
        record = QueryRecord(
            step=step,
            cypher=text,
            params=params,
            rows=rows,
            ms=round((time.perf_counter() - start) * 1000, 2),
            error=error,
        )
        log.debug("%s: %s rows in %.1f ms", step, rows, record.ms)
        self.log.append(record)
        if self.on_query is not None:
            self.on_query(record)
