"""The Cypher gate: generated Cypher runs only if it is a bounded, read-only, single statement.

ArcadeDB (the embedded engine) does not enforce READ sessions, so this gate is the guard, not
the session mode (``docs/decisions/0007-cypher-gate.md``). In order, a query is:

1. NFKC-normalised; zero-width, bidi, control and private-use characters are refused anywhere,
   and any non-ASCII character outside a string literal (a homoglyph keyword) is refused;
2. lexed (:mod:`biokg.graph_agent.gate_lexer`): comments are dropped and string literals
   masked, so nothing hides in either and nothing in them is mistaken for code (a ``\\'``
   escape is refused: engines could disagree on it);
3. checked on what is left: one statement; no write, DDL or admin clause (CREATE, MERGE, SET,
   DELETE, REMOVE, DROP, LOAD CSV, FOREACH, ``IN TRANSACTIONS``, ``PERIODIC COMMIT``, GRANT…,
   also inside ``CALL { }``); procedures and namespaced functions from allow-lists only;
   variable-length relationships bounded by ``max_hops``; no quantified path patterns; no
   disconnected MATCH patterns (a cartesian product, :mod:`biokg.graph_agent.gate_patterns`);
4. bounded: every top-level RETURN ends with a LIMIT of at most ``max_rows`` (appended when
   missing, lowered when larger); ``$name`` parameters come from the call or from the
   runner's named handles, and an unknown one is refused;
5. EXPLAINed on the engine, whose plan must be read-only (:meth:`Dialect.plan_writes`);
6. run through the question's runner (READ routing, its timeout, its budget) in a transaction
   that is rolled back, never committed, and refused if the engine reports any update.

What runs is the checked text (comments removed), never the text as the model wrote it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from biokg.errors import RetryableError, StoreError, UnsafeCypherError
from biokg.graph_agent.gate_lexer import (
    check_ascii,
    check_characters,
    lex,
    line_of,
    single_statement,
)
from biokg.graph_agent.gate_patterns import check_connected
from biokg.graph_agent.runner import QueryRunner

#: Read-only procedures a generated query may CALL (compared case-insensitively).
ALLOWED_PROCEDURES = frozenset(
    {
        "db.index.fulltext.queryNodes",
        "db.index.fulltext.queryRelationships",
        "db.index.vector.queryNodes",
        "db.labels",
        "db.relationshipTypes",
        "db.propertyKeys",
    }
)
#: Namespaced functions a generated query may use (plain functions are all read-only).
ALLOWED_FUNCTIONS = frozenset({"vector.similarity.cosine", "vector.similarity.euclidean"})

#: Words that make a statement something other than a read, and why.
_FORBIDDEN_WORDS = {
    **dict.fromkeys(
        ("CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "INSERT", "FOREACH"),
        "write clause",
    ),
    **dict.fromkeys(
        ("DROP", "ALTER", "GRANT", "REVOKE", "DENY", "RENAME", "SHOW", "START", "STOP"),
        "schema or admin command",
    ),
    **dict.fromkeys(("TERMINATE", "DEALLOCATE", "REALLOCATE", "ENABLE"), "admin command"),
    "USE": "database switch",
    "LOAD": "LOAD CSV reads files and URLs",
    "PERIODIC": "USING PERIODIC COMMIT batches writes",
    "COMMIT": "transaction control",
    "TRANSACTIONS": "CALL { } IN TRANSACTIONS batches writes",
    "PROFILE": "PROFILE executes the statement",
    "EXPLAIN": "the gate adds its own EXPLAIN",
}
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
_NAME = r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*"
_CALL = re.compile(rf"\bCALL\s+(?![{{(])({_NAME})", re.IGNORECASE)
_DOTTED_CALL = re.compile(r"(?<![\w.$])([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)+)\s*\(")
_PARAM = re.compile(r"\$(\w*)")
_VAR_LENGTH = re.compile(r"\*\s*(\d*)\s*(\.\.)?\s*(\d*)")
_QUANTIFIED = re.compile(
    r"\)\s*\{\s*\d*\s*(,\s*\d*\s*)?\}"  # ((a)-->(b)){1,3}
    r"|\)\s*[+*]\s*(?=[(<-])"  # ((a)-->(b))+ (c)
    r"|-\s*>?\s*(?:[+*]|\{\s*\d)"  # -[r]->+  -->{2}
)
_LIMIT = re.compile(r"\bLIMIT\s+(\d+|\$\w+)?", re.IGNORECASE)
_RETURN = re.compile(r"\bRETURN\b", re.IGNORECASE)
_UNION = re.compile(r"\bUNION(\s+ALL)?\b", re.IGNORECASE)


@dataclass(frozen=True)
class GatedQuery:
    """A query that passed the static checks: the text and parameters that will run."""

    text: str
    params: dict[str, Any]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CypherGate:
    """Checks and runs generated Cypher (see module docstring)."""

    max_hops: int = 4
    max_rows: int = 200
    max_chars: int = 4_000
    procedures: frozenset[str] = ALLOWED_PROCEDURES
    functions: frozenset[str] = ALLOWED_FUNCTIONS
    _procedures: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_procedures", frozenset(p.lower() for p in self.procedures))

    def check(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        handles: Mapping[str, list[str]] | None = None,
    ) -> GatedQuery:
        """The query as it will run, or a refusal; no I/O.

        Raises:
            UnsafeCypherError: the reason the query may not run.
        """
        if not isinstance(query, str) or not query.strip():
            raise UnsafeCypherError("the query is empty")
        if len(query) > self.max_chars:
            raise UnsafeCypherError(
                f"the query has {len(query)} characters (at most {self.max_chars})"
            )
        text = unicodedata.normalize("NFKC", query)
        check_characters(text)
        lexed = lex(text)
        clean, code = single_statement(lexed)
        check_ascii(code)
        self._check_calls(code)
        self._check_words(code)
        self._check_paths(code)
        check_connected(code, _depths(code))
        params = _resolve_params(code, dict(params or {}), handles or {})
        clean, notes = self._bound_rows(clean, code, params)
        return GatedQuery(text=clean, params=params, notes=tuple(notes))

    def run(
        self,
        runner: QueryRunner,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        step: str = "cypher",
    ) -> tuple[GatedQuery, list[dict[str, Any]]]:
        """Check, EXPLAIN, then run ``query`` through ``runner`` (refusals are logged there).

        Raises:
            UnsafeCypherError: refused by a check or by the engine's plan, or it wrote (rolled
                back).
            StoreError: the engine could not plan or run it (its own reason).
            BudgetExceededError: the runner's budget is spent.
        """
        raw = dict(params or {})
        try:
            gated = self.check(query, raw, runner.handles)
        except UnsafeCypherError as err:
            runner.record_refusal(query, raw, step=step, reason=f"refused: {err}")
            raise
        try:
            writes = runner.store.explain(
                gated.text, gated.params, timeout_s=runner.budget.query_timeout_s
            )
        except StoreError as err:
            if isinstance(err, RetryableError):
                raise  # the engine is unreachable: not the query's fault
            reason = f"the engine could not plan it (EXPLAIN): {err}"
            runner.record_refusal(gated.text, gated.params, step=step, reason=reason)
            raise StoreError(reason) from err
        if writes:
            reason = f"the engine's plan is not read-only: {'; '.join(writes)}"
            runner.record_refusal(gated.text, gated.params, step=step, reason=f"refused: {reason}")
            raise UnsafeCypherError(reason)
        rows = runner.run(gated.text, gated.params, step=step, rollback=True)
        return gated, rows

    # -- checks ----------------------------------------------------------------------------
    def _check_words(self, code: str) -> None:
        found: dict[str, str] = {}
        for match in _WORD.finditer(code):
            word = match.group().upper()
            if word in _FORBIDDEN_WORDS and word not in found:
                line = line_of(code, match.start())
                found[word] = f"{word} at line {line} ({_FORBIDDEN_WORDS[word]})"
        if found:
            raise UnsafeCypherError("not read-only: " + "; ".join(found.values()))

    def _check_calls(self, code: str) -> None:
        procedure_at: set[int] = set()
        for match in _CALL.finditer(code):
            name = re.sub(r"\s+", "", match.group(1))
            procedure_at.add(match.start(1))
            if name.lower() not in self._procedures:
                raise UnsafeCypherError(
                    f"{_kind(name)} {name} is not allowed "
                    f"(allowed: {', '.join(sorted(self.procedures))})"
                )
        for match in _DOTTED_CALL.finditer(code):
            name = re.sub(r"\s+", "", match.group(1))
            if match.start(1) in procedure_at or name in self.functions:
                continue
            raise UnsafeCypherError(
                f"function {name}() is not allowed (namespaced functions allowed: "
                f"{', '.join(sorted(self.functions))})"
            )

    def _check_paths(self, code: str) -> None:
        quantified = _QUANTIFIED.search(code)
        if quantified:
            raise UnsafeCypherError(
                f"quantified path pattern {quantified.group().strip()!r} (line "
                f"{line_of(code, quantified.start())}); write -[*1..{self.max_hops}]- instead"
            )
        for start, body in _relationship_patterns(code):
            spec = _VAR_LENGTH.search(body)
            if spec is None:
                continue
            low, dots, high = spec.groups()
            upper = (high or None) if dots else (low or None)
            if upper is None or int(upper) > self.max_hops:
                raise UnsafeCypherError(
                    f"variable-length relationship [{body.strip()}] (line {line_of(code, start)}) "
                    f"needs an upper bound of at most {self.max_hops} hops, e.g. "
                    f"[*1..{self.max_hops}]"
                )

    def _bound_rows(self, clean: str, code: str, params: dict[str, Any]) -> tuple[str, list[str]]:
        """Every top-level part ends with ``LIMIT n``, n ≤ max_rows (appended or lowered)."""
        notes: list[str] = []
        edits: list[tuple[int, int, str]] = []
        depth = _depths(code)
        cuts = [m for m in _UNION.finditer(code) if depth[m.start()] == 0]
        bounds = [0, *[x for m in cuts for x in (m.start(), m.end())], len(code)]
        for start, end in zip(bounds[::2], bounds[1::2], strict=True):
            returns = [m for m in _RETURN.finditer(code, start, end) if depth[m.start()] == 0]
            if not returns:
                raise UnsafeCypherError(
                    "the query (or a UNION part) has no top-level RETURN; end it with RETURN ..."
                )
            limits = [
                m for m in _LIMIT.finditer(code, returns[-1].end(), end) if depth[m.start()] == 0
            ]
            if not limits:
                edits.append((end, end, f" LIMIT {self.max_rows}"))
                notes.append(f"LIMIT {self.max_rows} appended")
                continue
            value = limits[-1].group(1)
            if value is None:
                raise UnsafeCypherError("LIMIT must be a number or a $parameter")
            if value.startswith("$"):
                given = params.get(value[1:])
                if not isinstance(given, int) or isinstance(given, bool) or given < 0:
                    raise UnsafeCypherError(f"LIMIT {value} must be a non-negative integer")
                if given > self.max_rows:
                    params[value[1:]] = self.max_rows
                    notes.append(f"{value} lowered to {self.max_rows}")
            elif int(value) > self.max_rows:
                span = limits[-1].span(1)
                edits.append((*span, str(self.max_rows)))
                notes.append(f"LIMIT {value} lowered to {self.max_rows}")
        for start, end, new in sorted(edits, reverse=True):
            head = clean[:start].rstrip() if start == end else clean[:start]
            tail = " " + clean[end:] if start == end else clean[end:]
            clean = head + new + tail
        return clean.strip(), notes


# -- helpers ------------------------------------------------------------------------------
def _relationship_patterns(code: str) -> list[tuple[int, str]]:
    """(offset, body) of every ``-[ ... ]`` relationship pattern, nested brackets included."""
    out = []
    for match in re.finditer(r"-\s*\[", code):
        depth, i = 1, match.end()
        while i < len(code) and depth:
            depth += {"[": 1, "]": -1}.get(code[i], 0)
            i += 1
        out.append((match.start(), code[match.end() : i - 1]))
    return out


def _resolve_params(
    code: str, params: dict[str, Any], handles: Mapping[str, list[str]]
) -> dict[str, Any]:
    """Fill ``$name`` from the call's parameters, then from the runner's named handles."""
    for match in _PARAM.finditer(code):
        name = match.group(1)
        if not name or name.isdigit():
            raise UnsafeCypherError(f"parameter {match.group()!r} must be a plain $name")
        if name in params:
            continue
        if name in handles:
            params[name] = list(handles[name])
            continue
        known = ", ".join(sorted(handles)) or "none yet"
        raise UnsafeCypherError(
            f"unknown parameter ${name}: pass it in params or use a handle (handles: {known})"
        )
    return params


def _depths(code: str) -> list[int]:
    """Bracket depth at each offset (top level = 0), for RETURN/LIMIT/UNION outside subqueries."""
    out, depth = [], 0
    for ch in code:
        if ch in "([{":
            depth += 1
        out.append(depth)
        if ch in ")]}":
            depth = max(0, depth - 1)
    return out


def _kind(name: str) -> str:
    lower = name.lower()
    if lower.startswith("apoc."):
        return "APOC procedure"
    if lower.startswith(("dbms.", "db.create", "db.index.fulltext.create", "gds.")):
        return "admin or schema procedure"
    return "procedure"
