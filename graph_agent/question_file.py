"""``biokg eval --questions FILE``: the agent scored on questions written by other people.

The file is JSON lines, one question each, in the format of the project's development set
(``../shared/eval/dev_questions.jsonl``, read in place: its licences forbid copies): ``id``,
``category``, ``question``, ``gold`` (CURIEs), ``gold_names``, ``match`` (``any``, ``recall``
or ``abstain``), and optionally ``subject``, ``acceptable``, ``allowed_citations`` and
``credit_names``. Per category and overall it reports:

* **hit**: some gold item is in the answer (its id among the answer's nodes or cited ids, or,
  unless ``credit_names`` is false, its name as a whole phrase in the claims or the summary);
* **recall**: the share of gold items found (``match: recall``), else the hit;
* **abstention**: unanswerable questions answered "not found" (status ``not_found``);
* **false abstention**: answerable questions answered "not found";
* **wrong link**: answered, answerable questions whose claims cite none of the question's own
  entity, its acceptable ids or its gold: the answer is about something else;
* graph time and whole-question time, p50.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from biokg.errors import AgentInputError
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.models import Answer

_REQUIRED = ("id", "category", "question", "gold", "match")


@dataclass(frozen=True)
class FileQuestion:
    id: str
    category: str
    question: str
    gold: tuple[str, ...]
    gold_names: tuple[str, ...]
    match: str
    subject: str | None = None
    acceptable: tuple[str, ...] = ()
    credit_names: bool = True


@dataclass(frozen=True)
class FileResult:
    question: FileQuestion
    answer: Answer
    hit: float
    recall: float
    abstained: bool
    wrong_link: bool


def read_questions(path: Path) -> list[FileQuestion]:
    """The questions of a JSON-lines file.

    Raises:
        AgentInputError: the file is missing, a line is not JSON, or a record lacks a field;
            the message names the file and line.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise AgentInputError(f"cannot read the question file {path}: {err}") from err
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise AgentInputError(f"{path}:{number}: not JSON ({err})") from err
        missing = [key for key in _REQUIRED if key not in record]
        if missing:
            raise AgentInputError(f"{path}:{number}: record lacks {missing}")
        out.append(
            FileQuestion(
                id=record["id"],
                category=record["category"],
                question=record["question"],
                gold=tuple(record["gold"]),
                gold_names=tuple(record.get("gold_names") or ()),
                match=record["match"],
                subject=record.get("subject"),
                acceptable=tuple(record.get("acceptable") or ()),
                credit_names=record.get("credit_names", True),
            )
        )
    return out


def run(
    agent: GraphAgent,
    questions: list[FileQuestion],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[FileResult]:
    results = []
    for i, question in enumerate(questions):
        results.append(score(question, agent.ask(question.question)))
        if progress:
            progress(i + 1, len(questions))
    return results


def score(question: FileQuestion, answer: Answer) -> FileResult:
    """One answer scored against the question's gold (see module docstring)."""
    cited = {n.id for n in answer.answers} | {i for c in answer.claims for i in c.node_ids}
    text = " ".join([answer.summary, *(c.text for c in answer.claims)])
    found = [
        gold in cited
        or (question.credit_names and i < len(question.gold_names) and _says(text, question, i))
        for i, gold in enumerate(question.gold)
    ]
    hit = float(any(found))
    recall = sum(found) / len(found) if question.match == "recall" and found else hit
    abstained = answer.status == "not_found"
    own = {question.subject, *question.acceptable, *question.gold} - {None}
    wrong = question.match != "abstain" and not abstained and not (own & cited)
    return FileResult(question, answer, hit, recall, abstained, wrong)


def metrics(results: list[FileResult]) -> dict[str, dict[str, float]]:
    """Per category and over all questions (see module docstring)."""
    groups: dict[str, list[FileResult]] = defaultdict(list)
    for r in results:
        groups[r.question.category].append(r)
    out = {name: _summary(rows) for name, rows in sorted(groups.items())}
    out["all"] = _summary(results)
    return out


def _summary(rows: list[FileResult]) -> dict[str, float]:
    answerable = [r for r in rows if r.question.match != "abstain"]
    unanswerable = [r for r in rows if r.question.match == "abstain"]
    answered = [r for r in answerable if not r.abstained]
    out: dict[str, float] = {"questions": len(rows)}
    if answerable:
        out["hit"] = _mean(r.hit for r in answerable)
        out["recall"] = _mean(r.recall for r in answerable)
        out["false_abstention"] = _mean(r.abstained for r in answerable)
        out["wrong_link"] = _mean(r.wrong_link for r in answered) if answered else 0.0
    if unanswerable:
        out["abstention"] = _mean(r.abstained for r in unanswerable)
    out["graph_ms_p50"] = round(statistics.median(r.answer.timings["graph_ms"] for r in rows), 2)
    out["total_ms_p50"] = round(statistics.median(r.answer.timings["total_ms"] for r in rows), 2)
    return out


def _says(text: str, question: FileQuestion, index: int) -> bool:
    """The gold name as a whole phrase, outside the question's own words."""
    name = question.gold_names[index]
    if len(name) < 2 or name.casefold() in question.question.casefold():
        return False
    pattern = r"(?<![A-Za-z0-9])" + r"\s+".join(map(re.escape, name.split())) + r"(?![A-Za-z0-9])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _mean(values) -> float:
    values = [float(v) for v in values]
    return round(sum(values) / len(values), 3) if values else 0.0
