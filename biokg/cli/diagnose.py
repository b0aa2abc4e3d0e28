"""``biokg diagnose``: which diseases fit a patient's observed (and excluded) HPO terms."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict
from pathlib import Path

import typer
from rich.table import Table

from biokg.cli import console, err_console, handle_errors
from biokg.errors import AgentInputError
from biokg.graph_agent.diagnosis.ranker import DEFAULT_TOP, Diagnosis, DiagnosisRanker
from biokg.graph_agent.diagnosis.scoring import SCORERS
from biokg.graph_agent.diagnosis.service import DEFAULT_METHOD, ranker
from biokg.settings import Settings
from biokg.store import GraphStore


@handle_errors
def diagnose_command(
    terms: list[str] = typer.Argument(None, help="Observed HPO terms, e.g. HP:0001166."),
    exclude: list[str] = typer.Option(
        [], "--exclude", "-x", help="An HPO term the patient does not have (repeatable)."
    ),
    withhold: list[str] = typer.Option(
        [],
        "--withhold",
        help="Rank as if this publication did not exist, e.g. PMID:28513613: the annotation "
        "lines citing it are left out (repeatable).",
    ),
    cases: Path = typer.Option(
        None,
        "--cases",
        help="JSONL of cases: {id, observed: [...], excluded: [...], withhold_references: "
        "[...]} a line (withhold_references optional).",
    ),
    out: Path = typer.Option(None, "--out", help="With --cases: one ranking a line, as JSONL."),
    top: int = typer.Option(DEFAULT_TOP, "--top", "-n", help="How many diseases to list."),
    method: str = typer.Option(DEFAULT_METHOD, "--method", help=f"One of {', '.join(SCORERS)}."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole ranking as JSON."),
) -> None:
    """Rank diseases for observed and excluded HPO terms; each cites the annotations it rests on."""
    if (cases is None) == (not terms):
        raise AgentInputError("give HPO terms, or --cases FILE --out FILE, not both")
    if cases is not None and out is None:
        raise AgentInputError("--cases needs --out FILE for the rankings")
    if cases is not None and withhold:
        raise AgentInputError("with --cases, give withhold_references on each case's line")
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        ranks = ranker(store, settings.cache_dir, method)
    if cases is not None:
        _batch(ranks, cases, out, top)
        return
    diagnosis = ranks.rank(terms, exclude, top=top, withhold=withhold)
    if as_json:
        print(json.dumps(asdict(diagnosis), indent=2))
        return
    _print(diagnosis)


def _batch(ranker: DiagnosisRanker, cases: Path, out: Path, top: int) -> None:
    """One ranking a line for each case of ``cases`` (score_dx.py's interface); the time per
    case (ranking and evidence, without loading the index) goes to stderr."""
    times = []
    with cases.open(encoding="utf-8") as lines, out.open("w", encoding="utf-8") as sink:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            case_id, observed, excluded, withheld = _case(line, cases, number)
            started = time.perf_counter()
            diagnosis = ranker.rank(observed, excluded, top=top, withhold=withheld)
            times.append(time.perf_counter() - started)
            sink.write(json.dumps({"id": case_id, **asdict(diagnosis)}) + "\n")
    if times:
        err_console.print(
            f"{len(times)} cases ranked: {1000 * statistics.median(times):.1f} ms a case (p50), "
            f"{1000 * max(times):.1f} ms at most"
        )


def _case(line: str, cases: Path, number: int) -> tuple[object, list[str], list[str], list[str]]:
    """One case line's id, observed and excluded terms, and withheld references.

    Raises:
        AgentInputError: the line is not such an object (naming the file and line).
    """
    try:
        case = json.loads(line)
        fields = case["observed"], case.get("excluded", []), case.get("withhold_references", [])
        if not all(isinstance(f, list) and all(isinstance(i, str) for i in f) for f in fields):
            raise TypeError("observed, excluded and withhold_references are lists of ids")
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise AgentInputError(
            f"{cases}:{number}: expected {{id, observed: [...], excluded: [...], "
            f"withhold_references: [...]}}: {err}"
        ) from err
    return case.get("id"), *fields


def _print(diagnosis: Diagnosis) -> None:
    """The ranking as a table: the score is the prior (owed to no term) plus every term's
    contribution, of which the three largest are shown."""
    if diagnosis.unknown:
        console.print(f"not in the HPO hierarchy, ignored: {', '.join(diagnosis.unknown)}")
    if diagnosis.withheld:
        console.print(
            f"ranked without {', '.join(diagnosis.withheld)}: "
            f"{diagnosis.withheld_lines} annotation lines left out"
        )
    table = Table("#", "disease", "also", "score", "prior", "best matches", title=diagnosis.method)
    for entry in diagnosis.ranking:
        shown = sorted(entry.evidence, key=lambda e: -abs(e.contribution))[:3]
        matches = "; ".join(
            f"{'not ' if e.excluded else ''}{e.term_name or e.term}"
            f" ~ {e.disease_term_name or '-'} ({e.contribution:+.2f})"
            for e in shown
        )
        also = ", ".join(i for i in entry.ids if i != entry.id)
        table.add_row(
            str(entry.rank),
            f"{entry.id} {entry.name or ''}",
            also,
            f"{entry.score:.2f}",
            f"{entry.prior:+.2f}",
            matches,
        )
    console.print(table)
