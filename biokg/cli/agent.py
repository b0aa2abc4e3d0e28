"""``biokg ask``, ``biokg search`` and ``biokg eval``: the graph agent from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from biokg.cli import console, handle_errors
from biokg.core.settings import Settings
from biokg.errors import AgentInputError

if TYPE_CHECKING:
    from biokg.graph_agent.models import Answer, Candidate

# The agent and the driver are imported where a command starts one: `biokg ask` and `biokg
# search` against a running API (BIOKG_API_URL) never do, and importing them is most of the
# second a question takes.


@handle_errors
def ask_command(
    question: str = typer.Argument(..., help="A question about the graph, in plain words."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole answer as JSON."),
    explain: bool = typer.Option(False, "--explain", help="Also print linking and each query."),
    fmt: str = typer.Option(
        "text", "--format", help="text, json, or turtle (the evidence graph and claims as RDF)."
    ),
) -> None:
    """Answer a question from the graph; every claim cites node ids, edge ids and source records."""
    if fmt not in ("text", "json", "turtle"):
        raise AgentInputError(f"--format must be text, json or turtle, not {fmt!r}")
    settings = Settings.from_env()
    ask = _ask_server if settings.api_url else _ask_here
    answer = ask(settings, question, fmt)
    if answer is None:  # Turtle, printed already
        return
    if as_json or fmt == "json":
        print(answer.model_dump_json(indent=2))
        return
    _print_answer(answer, explain=explain)


def _ask_server(settings: Settings, question: str, fmt: str) -> Answer | None:
    """The running API's answer (``BIOKG_API_URL``); Turtle is printed as it came."""
    from biokg.cli.remote import ask_remote
    from biokg.graph_agent.models import Answer

    body = ask_remote(settings, question, fmt)
    if fmt == "turtle":
        print(body, end="")
        return None
    return Answer.model_validate_json(body)


def _ask_here(settings: Settings, question: str, fmt: str) -> Answer | None:
    """An agent in this process answers; Turtle is printed here, from its schema."""
    from biokg.core.store import GraphStore
    from biokg.graph_agent.agent import GraphAgent

    with GraphStore.connect(settings) as store:
        agent = GraphAgent.connect(store, settings)
        answer = agent.ask(question)
    if fmt != "turtle":
        return answer
    from biokg.answer_rdf import answer_graph

    print(answer_graph(answer, agent.schema).serialize(format="turtle"), end="")
    return None


@handle_errors
def search_command(
    text: str = typer.Argument(..., help="A name, synonym, brand name, id or description."),
    limit: int = typer.Option(10, "--limit", "-n"),
    output: str = typer.Option("table", "--output", "-o", help="table or json"),
) -> None:
    """Entity linking: the nodes ``text`` may mean, scored; ambiguous text lists them all."""
    settings = Settings.from_env()
    find = _search_server if settings.api_url else _search_here
    candidates = find(settings, text, limit)
    if output == "json":
        print(json.dumps([c.model_dump() for c in candidates], indent=2))
        return
    table = Table("id", "label", "name", "score", "rule", "matched", title=repr(text))
    for c in candidates:
        cells = (c.id, c.label, c.name, f"{c.score:.3f}", c.rule, c.matched)
        table.add_row(*(Text(cell) for cell in cells))  # names may hold [brackets]
    console.print(table if candidates else f"nothing in the graph matches {text!r}")


def _search_server(settings: Settings, text: str, limit: int) -> list[Candidate]:
    from biokg.cli.remote import search_remote
    from biokg.graph_agent.models import Candidate

    return [Candidate.model_validate(c) for c in json.loads(search_remote(settings, text, limit))]


def _search_here(settings: Settings, text: str, limit: int) -> list[Candidate]:
    from biokg.core.store import GraphStore
    from biokg.graph_agent.agent import GraphAgent

    with GraphStore.connect(settings) as store:
        return GraphAgent.connect(store, settings).linker.link(text, limit=limit)


@handle_errors
def eval_command(
    per_relation: int = typer.Option(8, "--per-relation", help="Seeds per type and direction."),
    seed: int = typer.Option(7, "--seed", help="Random seed (the question set is reproducible)."),
    questions_file: Path | None = typer.Option(
        None,
        "--questions",
        help="Score a JSON-lines file of questions with gold answers instead "
        "(e.g. ../shared/eval/dev_questions.jsonl).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
) -> None:
    """Score the agent: on questions generated from the graph (gold from the graph, schema/'s
    and held-out wordings), or on a file of questions with gold answers."""
    from biokg.core.store import GraphStore
    from biokg.graph_agent import evaluation, question_file
    from biokg.graph_agent.agent import GraphAgent

    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        agent = GraphAgent.connect(store, settings)
        if questions_file is not None:
            asked = question_file.read_questions(questions_file)
        else:
            asked = evaluation.generate(agent, per_relation=per_relation, seed=seed)
        columns = (TextColumn("asking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bars:
            task = bars.add_task("asking", total=len(asked))

            def advance(done: int, _: int) -> None:
                bars.update(task, completed=done)

            if questions_file is not None:
                metrics = question_file.metrics(question_file.run(agent, asked, progress=advance))
            else:
                metrics = evaluation.run(agent, asked, progress=advance).metrics()
    if as_json:
        print(json.dumps(metrics, indent=2))
        return
    table = Table("set", "metric", "value", title=f"biokg eval ({len(asked)} questions)")
    for group, values in metrics.items():
        for name, value in values.items():
            table.add_row(group, name, f"{value:.3f}" if isinstance(value, float) else str(value))
    console.print(table)


def _print_answer(answer: Answer, *, explain: bool) -> None:
    # Names, records and Cypher are full of [brackets]: printed as text, never read as markup.
    def dim(text: str) -> None:
        console.print(Text(text, style="dim"), highlight=False)

    def plain(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    if explain:
        for m in answer.mentions:
            found = ", ".join(f"{c.id} {c.name} ({c.rule} {c.score:.2f})" for c in m.candidates)
            weak = " (weak: a common word or a guess)" if m.weak else ""
            dim(f"linked {m.text!r} → {found or 'nothing: not in the graph'}{weak}")
        for q in answer.queries:
            dim(f"query {q.step}: {q.rows} rows, {q.ms:.1f} ms")
            dim(f"{q.cypher.strip()}\n{json.dumps(q.params)}")
    plain(answer.summary)
    shown: set[str] = set()  # the words of one rejected phrase share their closest names
    for m in answer.mentions:
        closest = ", ".join(f"{c.name} ({c.id})" for c in m.rejected)
        if closest and closest not in shown:  # a name not in the graph: what linking rejected
            shown.add(closest)
            dim(f"{m.text!r}: closest names in the graph, judged too far: {closest}")
    for i, claim in enumerate(answer.claims, 1):
        plain(f"[{i}] {claim.text}")
        for s in claim.sources:
            cited = f"edge {s.edge_id}" if s.edge_id else f"node {s.node_id}"
            plain(f"    {cited}: {s.source} {s.source_version} {s.source_record[:120]}")
    versions = ", ".join(f"{v['source']} {v['version']}" for v in answer.data_versions)
    dim(
        f"{answer.planner} planner · {len(answer.queries)} queries · graph "
        f"{answer.timings['graph_ms']:.0f} ms · data: {versions}"
    )
