"""Recognise a differential-diagnosis question and split its description: "a child with
seizures, hypotonia and microcephaly but no fever: which diseases fit?".

:func:`read_phenotype_list` recognises the question (a differential-diagnosis cue: which
diseases *fit*, *match*, *explain*, are *consistent with*; *what fits*; *differential
diagnosis*) and splits the description into observed and excluded phrases (after *no*, *not*,
*without*, *absent*, until *but*/*with* turns back). Part of the understanding stage
(:meth:`~biokg.graph_agent.intent.QuestionReader.understand` makes such a question a
``diagnosis`` request); :mod:`.diagnosis.question` answers it, so the ranker's numpy, polars
and scipy are imported only for the questions that are diagnoses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: What a cue's verb may be followed by before the description ("fit this patient best").
_CUE_TAIL = (
    r"(?:\s+(?:this|the|these|that|such|a|an|best|most|here|patient|child|case|picture|"
    r"presentation|description|features|findings|phenotypes?|profile|symptoms|signs|her|his|"
    r"them|it)\b)*"
)
_CUE = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:diseases?|disorders?|syndromes?|conditions?|diagnos[ie]s)"
    r"\s+(?:\w+\s+){0,2}?(?:fits?|match(?:es)?|explains?|(?:is|are)\s+(?:consistent|compatible)"
    r"\s+with)\b"
    + _CUE_TAIL
    # the clinician's own wording: "which condition would one consider?", "…should we suspect?"
    + r"|\b(?:which|what)\s+(?:\w+\s+)?(?:diseases?|disorders?|syndromes?|conditions?|"
    r"diagnos[ie]s)\s+(?:should|would|could|might|can|do|does)\s+(?:I|we|you|one)\s+"
    r"(?:diagnose|consider|suspect)\b(?!\s+\w+ing\b)"
    + _CUE_TAIL  # not "consider treating"
    + r"|\bwhat\s+(?:fits|could\s+(?:it|this)\s+be|is\s+the\s+"
    r"(?:most\s+)?(?:likely\s+)?diagnosis)\b"
    + _CUE_TAIL
    + r"|\b(?:a\s+|the\s+)?differential(?:\s+diagnosis)?(?:\s+(?:for|of))?\b",
    re.IGNORECASE,
)
#: Who the description is about ("a 5-year-old boy with"): dropped before splitting.
_SUBJECT = re.compile(
    r"^(?:\W*(?:an?|the|my|our|this|his|her)\s+)?(?:[\w-]+\s+){0,3}?"
    r"(?:child|patient|boy|girl|infant|baby|newborn|neonate|man|woman|adult|toddler|son|"
    r"daughter|individual|person|proband|teenager|adolescent|fetus)\b",
    re.IGNORECASE,
)
#: Words that open a run of excluded features, and those that turn back to observed ones.
_MARKER = re.compile(
    r"\b(?P<neg>but\s+(?:no|not|without)|without|no|not|nor|absent|lacking|lacks|free\s+of|"
    r"negative\s+for|excluding)\b|\b(?P<pos>but|with|has|have|having|shows?|showing|presents?\s+"
    r"with|presenting\s+with|plus|also)\b",
    re.IGNORECASE,
)
_SPLIT = re.compile(r"\s*(?:[,;/]|\band\b|\bor\b|\bas\s+well\s+as\b)\s*", re.IGNORECASE)
_FILLER = re.compile(r"^(?:an?|the|any|some|signs?\s+of|history\s+of|and|or)\s+", re.IGNORECASE)
#: A lead-in that announces the description (a colon after the word symptoms): no feature.
_LEAD_IN = re.compile(
    r"^(?:the\s+)?following(?:\s+(?:symptoms|signs|features|findings|phenotypes|problems))?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PhenotypeList:
    """The phrases of a described patient: features seen, and features said to be absent."""

    observed: list[str]
    excluded: list[str]


def read_phenotype_list(question: str) -> PhenotypeList | None:
    """The observed and excluded phrases of a differential-diagnosis question, or None when
    the question is not one (no cue, or nothing described besides the cue).

    >>> read_phenotype_list("A child with seizures and hypotonia but no fever: which diseases fit?")
    PhenotypeList(observed=['seizures', 'hypotonia'], excluded=['fever'])
    """
    if not _CUE.search(question):
        return None
    text = _CUE.sub(" ", question)
    text = re.sub(r"[?:.!]", ",", text)
    text = _SUBJECT.sub("", text.strip(" ,"))
    observed: list[str] = []
    excluded: list[str] = []
    target, at = observed, 0
    for marker in _MARKER.finditer(text):
        target += _phrases(text[at : marker.start()])
        target, at = (excluded if marker["neg"] else observed), marker.end()
    target += _phrases(text[at:])
    if not observed and not excluded:
        return None
    return PhenotypeList(list(dict.fromkeys(observed)), list(dict.fromkeys(excluded)))


def _phrases(text: str) -> list[str]:
    found = []
    for part in _SPLIT.split(text):
        part = _FILLER.sub("", part.strip(" ,'\"()")).strip()
        if part and re.search(r"[A-Za-z]{3}|HP:\d{7}", part) and not _LEAD_IN.match(part):
            found.append(part)
    return found
