"""Phenotypic series: a disease that a withheld publication leaves with no annotation is ranked
on the pooled annotations of the other diseases of its numbered series.

OMIM names the diseases of one phenotypic series alike and numbers them ("Lipodystrophy,
familial partial, type 9", "Seckel syndrome 11", "Intellectual developmental disorder,
autosomal dominant 74"): each is one gene's form of a clinical picture the others share. A form
described by one publication alone loses every phenotype line under leave-publication-out
ranking (:mod:`.withhold`), though it is still a known disease. Such a disease gets a profile
made from the lines its series' other diseases keep: each term's frequency the square root of
its mean over them (a term none has counts 0; the root credits a feature most of a sparsely
annotated series shares more than the plain mean does), a term annotated exactly where any of
them is, and the cohort prior of its best-described member. It is then scored as any disease
is, its calibration made from that profile, and its evidence cites those diseases' own
annotation edges.

The series is read from the graph's disease names alone (:func:`series_name`): the name less
its numbers and its ``type …`` designation, for names that carry a number or a type. Only
diseases left with no line are pooled, so a case that withholds nothing ranks as without
pooling; a disease with no series, or whose series is all gone too, is ranked through its
allelic diseases (:mod:`.allelic`) as before. Measured alternatives (MONDO's parent terms,
the plain mean, the maximum, no exact terms, no prior, the mean prior):
docs/decisions/0037-series-pooling-diagnosis.md.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from biokg.graph_agent.diagnosis.index import Annotation, PhenotypeIndex
from biokg.graph_agent.diagnosis.withhold import Withheld

#: A series larger than this is a broad family (hundreds of numbered forms, e.g. deafness or
#: retinitis pigmentosa of one inheritance), still pooled; larger groups are not series.
MAX_SERIES = 200

#: A ``type …`` (or ``group …``, ``form …``) designation, up to the next comma.
_DESIGNATION = re.compile(r"\b(?:type|group|form)\s+[^,;]+", re.IGNORECASE)
_NUMBERED = re.compile(r"\d|\btype\b", re.IGNORECASE)


def series_name(name: str | None) -> str | None:
    """The name of the series a disease's name numbers it in (lower case, without its numbers,
    its type designation and punctuation), or None for a name without a number or a type."""
    if not name or not _NUMBERED.search(name):
        return None
    return _stem(name)


def _stem(name: str) -> str | None:
    """``name`` in lower case without its numbers, type designation and punctuation."""
    text = _DESIGNATION.sub(" ", name.lower())
    words = [w for w in text.split() if not any(ch.isdigit() for ch in w)]
    return re.sub(r"[\s,;:]+", " ", " ".join(words)).strip(" ,;-") or None


def series_members(index: PhenotypeIndex) -> dict[int, np.ndarray]:
    """Each disease of a series → the other diseases of its series (index positions), once per
    index. A series is 2 to :data:`MAX_SERIES` diseases of one :func:`series_name`, with the
    unnumbered disease of that name where there is one ("Birt-Hogg-Dube syndrome" beside
    "Birt-Hogg-Dube syndrome 2": OMIM's first entry of a series often has no number)."""
    members = index.derived.get("series_members")
    if members is None:
        found: dict[str, list[int]] = {}
        numbered: set[str] = set()
        for d, name in enumerate(index.disease_names):
            stem = _stem(name) if name else None
            if stem is not None:
                found.setdefault(stem, []).append(d)
                if _NUMBERED.search(name):
                    numbered.add(stem)
        members = {}
        for stem, ds in found.items():
            if stem in numbered and 2 <= len(ds) <= MAX_SERIES:
                for d in ds:
                    members[d] = np.asarray([o for o in ds if o != d], dtype=np.int64)
        index.derived["series_members"] = members
    return members


def pool_series(index: PhenotypeIndex, view: Withheld) -> Withheld:
    """``view`` with each disease it leaves with no line given its series' pooled profile
    (the other diseases of its series that keep a line), so that it is ranked; the diseases
    so pooled are :attr:`Withheld.series` (disease → those diseases) and leave
    :attr:`Withheld.gone`. The view's statistics (IC, background) are not changed: a pooled
    profile is a guess at the disease, not an annotation."""
    members = series_members(index)
    pools: dict[int, np.ndarray] = {}
    for d in view.gone.tolist():
        others = members.get(d)
        if others is not None:
            others = others[~np.isin(others, view.gone)]
            if len(others):
                pools[d] = others
    if not pools:
        return view
    F, direct = view.F.copy(), view.direct.copy()
    cohort = view.cohort_patients.copy()
    kept = dict(view.kept)
    for d, others in pools.items():
        at = view.position(d)
        rows, exact, notes = _lines_of(index, view, others)
        F[at] = np.sqrt(rows.mean(axis=0))
        direct[at] = (exact > 0).any(axis=0)
        cohort[d] = float(view.cohort_patients[others].max())
        kept[d] = notes
    return dataclasses.replace(
        view,
        F=F,
        direct=direct,
        cohort_patients=cohort,
        gone=view.gone[~np.isin(view.gone, list(pools))],
        kept=kept,
        series=pools,
        derived={},
    )


def _lines_of(
    index: PhenotypeIndex, view: Withheld, diseases: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[Annotation]]:
    """The propagated frequencies and exact annotations (dense rows) of ``diseases`` and
    their annotations, from the lines ``view`` keeps."""
    F = index.F_rows[diseases].toarray()
    exact = index.direct[diseases].toarray()
    notes: list[Annotation] = []
    for k, d in enumerate(diseases.tolist()):
        at = view.position(d)
        if at is None:
            notes.extend(index.profiles[d])
        else:
            F[k], exact[k] = view.F[at], view.direct[at]
            notes.extend(view.kept[d])
    return F, exact, notes
