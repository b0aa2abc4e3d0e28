"""``biokg diagnose``: which diseases fit a patient's observed (and excluded) HPO terms."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path

import typer
from rich.table import Table

from biokg.cli import console, err_console, handle_errors
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import AgentInputError
from biokg.graph_agent.diagnosis.phenopacket import PhenopacketCase, read_phenopackets
from biokg.graph_agent.diagnosis.ranker import DEFAULT_TOP, Diagnosis, DiagnosisRanker
from biokg.graph_agent.diagnosis.scoring import SCORERS
from biokg.graph_agent.diagnosis.service import DEFAULT_METHOD, ranker


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
    phenopacket: Path = typer.Option(
        None,
        "--phenopacket",
        help="A GA4GH v2 phenopacket (JSON), or a folder of them: its observed and excluded "
        "phenotypic features are the case.",
    ),
    out: Path = typer.Option(
        None, "--out", help="With --cases or --phenopacket: one ranking a line, as JSONL."
    ),
    top: int = typer.Option(DEFAULT_TOP, "--top", "-n", help="How many diseases to list."),
    method: str = typer.Option(DEFAULT_METHOD, "--method", help=f"One of {', '.join(SCORERS)}."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole ranking as JSON."),
) -> None:
    """Rank diseases for observed and excluded HPO terms; each cites the annotations it rests on."""
    if sum((bool(terms), cases is not None, phenopacket is not None)) != 1:
        raise AgentInputError(
            "give HPO terms, or --cases FILE --out FILE, or --phenopacket FILE|DIR: one of them"
        )
    if cases is not None and out is None:
        raise AgentInputError("--cases needs --out FILE for the rankings")
    if cases is not None and withhold:
        raise AgentInputError("with --cases, give withhold_references on each case's line")
    packets = read_phenopackets(phenopacket) if phenopacket is not None else []
    if len(packets) > 1 and out is None:
        raise AgentInputError(f"{phenopacket} holds {len(packets)} phenopackets: add --out FILE")
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        ranks = ranker(store, settings.cache_dir, method)
    if out is not None:
        found = _lines(cases) if cases is not None else _packets(packets, withhold)
        _batch(ranks, found, out, top)
        return
    if packets:
        terms, exclude = packets[0].observed, packets[0].excluded
    diagnosis = ranks.rank(terms, exclude, top=top, withhold=withhold)
    if as_json:
        print(json.dumps(asdict(diagnosis), indent=2))
        return
    _print(diagnosis)


#: One case of a batch: id, observed terms, excluded terms, withheld references.
Case = tuple[object, list[str], list[str], list[str]]


def _batch(ranker: DiagnosisRanker, cases: Iterable[Case], out: Path, top: int) -> None:
    """One ranking a line for each case (score_dx.py's interface); the time per case (ranking
    and evidence, without loading the index) goes to stderr."""
    times = []
    with out.open("w", encoding="utf-8") as sink:
        for case_id, observed, excluded, withheld in cases:
            started = time.perf_counter()
            diagnosis = ranker.rank(observed, excluded, top=top, withhold=withheld)
            times.append(time.perf_counter() - started)
            sink.write(json.dumps({"id": case_id, **asdict(diagnosis)}) + "\n")
    if times:
        err_console.print(
            f"{len(times)} cases ranked: {1000 * statistics.median(times):.1f} ms a case (p50), "
            f"{1000 * max(times):.1f} ms at most"
        )


def _lines(cases: Path) -> Iterator[Case]:
    """The cases of a JSONL file, one a line (blank lines skipped)."""
    with cases.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                yield _case(line, cases, number)


def _packets(packets: list[PhenopacketCase], withhold: list[str]) -> Iterator[Case]:
    """The cases of phenopackets, each ranked without ``withhold``'s references."""
    for packet in packets:
        yield packet.id, packet.observed, packet.excluded, withhold


def _case(line: str, cases: Path, number: int) -> Case:
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
