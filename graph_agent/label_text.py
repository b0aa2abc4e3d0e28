"""Answers quoted from drug labels: "What are the side effects of Humira?", "Is sildenafil
contraindicated with nitrates?".

The drug's label sections (openFDA SPL) are read, the sections the question names first
(``kinds`` of LabelSection in schema/: side effects → adverse_reactions); within them, the
sentences sharing the most words with the question are quoted. Each finding cites the section
node, its label and both edges, whose provenance names the label's set id, version and section
code. A drug with no label, or sections sharing no word with a question that named no section,
give no finding.
"""

from __future__ import annotations

import re

from biokg.graph_agent.findings import Finding, StepResult
from biokg.graph_agent.ranking import stems
from biokg.graph_agent.requests import LabelText
from biokg.graph_agent.research import ResearchStep
from biokg.graph_agent.runner import QueryRunner

MAX_SECTIONS = 200
MAX_QUOTE_CHARS = 400
MAX_PASSAGES = 3
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\s+•\s+|\n+")


class LabelTextSearch(ResearchStep[LabelText]):
    """Quoted passages of the drugs' label sections (module docstring)."""

    name = "label_text"

    def search(self, runner: QueryRunner, request: LabelText) -> StepResult:
        rows = runner.template(
            "agent_label_sections",
            {
                "drugs": list(request.drugs),
                "sections": list(request.sections),
                "limit": MAX_SECTIONS,
            },
            step="label_text:sections",
        )
        if not rows:  # a drug may have labels whose sections were not loaded, or not these
            asked = " or ".join(kind.replace("_", " ") for kind in request.sections)
            held = f"no {asked} section" if asked else "no section text"
            return StepResult(self.name, [], note=f"the graph holds {held} of this drug's labels")
        asked = stems(request.question)
        scored = []
        for row in rows:
            passage, shared = _best_passage(row["text"] or "", asked)
            if shared or request.sections:
                scored.append((shared, row, passage))
        scored.sort(key=lambda s: -s[0])
        findings = [
            Finding(
                node=row["node"]["id"],
                seed=row["seed"]["id"],
                relation="HAS_LABEL>HAS_LABEL_SECTION",
                edge_ids=[row["label_edge"]["id"], row["edge"]["id"]],
                via=[row["document"]["id"]],
                support=shared,
                statement=f"{row['document']['name']}, section {row['node']['kind']}: “{passage}”",
            )
            for shared, row, passage in scored[:MAX_PASSAGES]
        ]
        note = None if findings else "no label section of this drug speaks to the question"
        return StepResult(self.name, findings, note=note)


def _best_passage(text: str, asked: set[str]) -> tuple[str, int]:
    """The sentences sharing most words with the question (with their neighbours up to the
    quote length), and how many words they share."""
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()]
    if not sentences:
        return "", 0
    shared = [len(asked & stems(s)) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (shared[i], -i))
    quote = sentences[best]
    for following in sentences[best + 1 :]:
        if len(quote) + len(following) > MAX_QUOTE_CHARS:
            break
        quote += " " + following
    if len(quote) > MAX_QUOTE_CHARS:
        quote = quote[: MAX_QUOTE_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return quote, shared[best]
