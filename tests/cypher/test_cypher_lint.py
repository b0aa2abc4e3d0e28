"""Every statement we send to Neo4j passes Neo4j's own parser and linter (Cypher 5).

Linted: every statement of every file in cypher/ (templates rendered for each label and
relationship type they are filled with), the Neo4j branch of the dialect's generated DDL, and
the Browser guide's example queries. Errors fail, and so does every warning except the one
narrow allow-rule of tools/cypher-lint/lint.mjs (map keys of an ``UNWIND $rows AS row``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest

from biokg import cypher
from biokg.browser_guide import browser_files
from biokg.core.store import constraint_statements
from biokg.core.store.dialect import NEO4J
from biokg.schema import GraphSchema, load_schema

Lint = Callable[[list[tuple[str, str]]], dict]
_RUNNABLE = re.compile(r'<pre class="pre-scrollable code runnable">(.*?)</pre>', re.DOTALL)


def _rendered(name: str, text: str, schema: GraphSchema) -> list[tuple[str, str]]:
    """A template filled in as the code fills it, once: with the schema's first label or
    relationship type (and that type's end labels). One filling stands for all: schema/ admits
    only plain identifiers as labels and types (schema/__init__.py), and the linter is given
    every one of them, so another filling changes no token the linter judges."""
    rel_type, spec = next(iter(schema.types.items()))
    filled = (
        text.replace("{label}", next(iter(schema.labels)))
        .replace("{first}", rel_type)
        .replace("{second}", rel_type)
        .replace("{type}", rel_type)
        .replace("__TYPE__", rel_type)
        .replace("{from}", spec.from_labels[0])
        .replace("{to}", spec.to_labels[0])
    )
    return [(name, filled)]


def every_statement() -> list[tuple[str, str]]:
    schema = load_schema()
    found = []
    for name in cypher.names():
        for i, statement in enumerate(cypher.statements(cypher.load(name)), 1):
            found += _rendered(f"cypher/{name}.cypher#{i}", statement, schema)
    ddl = [
        *constraint_statements(schema),
        *(s.text for s in NEO4J.fulltext_indexes(schema)),
        *(s.text for s in NEO4J.vector_indexes(schema)),
    ]
    found += [(f"dialect:neo4j#{i}", text) for i, text in enumerate(ddl, 1)]
    guide = browser_files(schema)["browser_guide.html"]
    runnable = [html.unescape(block) for block in _RUNNABLE.findall(guide)]
    queries = [q for q in runnable if not q.startswith(":")]  # :params lines are Browser's own
    found += [(f"browser_guide.html#{i}", q) for i, q in enumerate(queries, 1)]
    return found


#: Statements Neo4j would reject, one fault each: the linter must report every one.
REJECTED = [
    ("typo", "MATCH (n:Gene) RETRN n"),
    ("unknown-label", "MATCH (n:Protein) RETURN n.name"),
    ("unknown-property", "MATCH (n:Gene) RETURN n.colour"),
    ("unknown-procedure", "CALL db.index.fulltext.search('x', 'y')"),
    ("node-property-not-a-row-key", "UNWIND $rows AS row MATCH (n:Gene) RETURN n.subjekt"),
]


@pytest.fixture(scope="module")
def reports(lint: Lint, request: pytest.FixtureRequest) -> dict[str, dict]:
    """Both tests' statements linted in one run (each run starts node and warms the linter up
    again, ~5 s of CPU), split into the report of each set: ``ours`` (:func:`every_statement`,
    with how many the run checked; none where its test is not selected, as by ``-m 'not
    slow'``) and ``rejected`` (:data:`REJECTED`)."""
    selected = {getattr(item, "originalname", item.name) for item in request.session.items}
    ours = every_statement() if "test_every_statement_passes_neo4js_linter" in selected else []
    report = lint([*ours, *REJECTED])
    rejected = {name for name, _ in REJECTED}
    split: dict[str, dict] = {
        "ours": {"statements": len(ours), "checked": report["checked"] - len(REJECTED)},
        "rejected": {},
    }
    for key in ("problems", "allowed"):
        split["ours"][key] = [e for e in report[key] if e["name"] not in rejected]
        split["rejected"][key] = [e for e in report[key] if e["name"] in rejected]
    return split


@pytest.mark.slow
def test_every_statement_passes_neo4js_linter(reports: dict[str, dict]) -> None:
    report = reports["ours"]
    assert report["checked"] == report["statements"] > 150
    assert report["problems"] == []
    # what the allow-rule let through: map keys of UNWIND-ed parameter rows, nothing else
    assert {a["excerpt"].split(".")[0].split()[-1] for a in report["allowed"]} <= {"row"}


def test_the_linter_reports_what_neo4j_would_reject(reports: dict[str, dict]) -> None:
    report = reports["rejected"]
    assert {p["name"] for p in report["problems"]} == {name for name, _ in REJECTED}
    assert report["allowed"] == []
