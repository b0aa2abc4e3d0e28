"""Leave-publication-out: one case ranked as if some publications did not exist.

HPO curates disease annotations from published cohorts, and published patients come from those
cohorts: ranking a patient against annotations written from their own publication is partly
circular. A case may name ``withhold_references`` (``PMID:…``, or any reference a line of
``phenotype.hpoa`` cites); :func:`withhold` makes that case's :class:`Withheld` view, which the
scorers read in place of the index's own statistics:

* every annotation line citing a withheld reference is left out, with its frequency, present
  and absent lines alike; the diseases that had such lines (few: a publication is curated into
  one disease or a handful) get their propagated frequencies, exact annotations and remaining
  annotations made again from the lines they keep; a disease left with no line is not ranked;
* information content, background frequencies and the cohort prior are recomputed exactly
  (column counts and sums corrected by the changed rows; the number of diseases by those left
  with no line);
* the random-patient calibration is recomputed exactly for the changed diseases, over the
  index's own draw of random terms. For every other disease it keeps the index's value: the
  expectation moves there only through the background and IC of the few terms the withheld
  lines propagate to, and the draw's own weights by a few lines in 260,000. The effect of
  that approximation is measured against exact recomputation in
  docs/decisions/0025-leave-publication-out-diagnosis.md.

The view is made per case (a few milliseconds) and touches nothing shared: other cases of a
batch rank against the whole index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from biokg.graph_agent.diagnosis.index import Annotation, PhenotypeIndex


@dataclass(frozen=True)
class Withheld:
    """One case's view of an index without the lines citing ``references``.

    ``rows`` are the changed diseases (sorted), ``F`` and ``direct`` their propagated
    frequencies and exact annotations (one dense row each, in ``rows``' order); ``ic``,
    ``background`` and ``cohort_patients`` cover every term or disease; ``shift`` is
    ln(background) − ln(background') per term (zero where unchanged), the change of every
    disease's log likelihood ratio at that term; ``gone`` the diseases left with no line."""

    references: tuple[str, ...]
    edges: frozenset[str]
    rows: np.ndarray
    F: np.ndarray
    direct: np.ndarray
    ic: np.ndarray
    background: np.ndarray
    cohort_patients: np.ndarray
    shift: np.ndarray
    gone: np.ndarray
    kept: dict[int, list[Annotation]]
    #: diseases left with no line that are ranked on their phenotypic series' pooled lines
    #: (:mod:`.series`): disease → the other diseases of its series pooled (``kept`` holds
    #: their lines, ``F`` and ``direct`` the pooled profile)
    series: dict[int, np.ndarray] = field(default_factory=dict, compare=False, repr=False)
    #: what a scorer derives from the view once per case (its calibration), by name
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def lines(self) -> int:
        """How many annotation lines are left out."""
        return len(self.edges)

    def position(self, d: int) -> int | None:
        """``d``'s place in :attr:`rows`, or None when its lines are all kept."""
        at = int(np.searchsorted(self.rows, d))
        return at if at < len(self.rows) and self.rows[at] == d else None

    def column(self, index: PhenotypeIndex, x: int) -> np.ndarray:
        """F's column ``x`` over every disease, the changed diseases' values replaced."""
        start, stop = index.F.indptr[x], index.F.indptr[x + 1]
        dense = np.zeros(index.F.shape[0])
        dense[index.F.indices[start:stop]] = index.F.data[start:stop]
        dense[self.rows] = self.F[:, x]
        return dense


def withhold(index: PhenotypeIndex, references: Iterable[str]) -> Withheld | None:
    """The view of ``index`` without the annotation lines citing any of ``references``
    (None when no line cites them: the case ranks against the whole index)."""
    wanted = tuple(dict.fromkeys(r.strip() for r in references if r and r.strip()))
    present = index.profiles.citing(wanted)
    absent = index.absent.citing(wanted)
    if not len(present) and not len(absent):
        return None
    rows = np.unique(np.concatenate([index.profiles.d[present], index.absent.d[absent]]))
    n_terms = len(index.terms)
    F = np.zeros((len(rows), n_terms))
    direct = np.zeros((len(rows), n_terms))
    cohort = index.cohort_patients.copy()
    kept: dict[int, list[Annotation]] = {}
    has_lines = np.zeros(len(rows), dtype=bool)
    dropped_present, dropped_absent = set(present.tolist()), set(absent.tolist())
    for k, d in enumerate(rows.tolist()):
        here = _kept_positions(index.profiles.span(d), dropped_present)
        away = _kept_positions(index.absent.span(d), dropped_absent)
        start = index.profiles.span(d)[0]
        kept[d] = [index.profiles[d][p - start] for p in here]
        for p in here:
            t, closure = index.profiles.term[p], index.closures[index.profiles.term[p]]
            F[k, closure] = np.maximum(F[k, closure], index.profiles.frequency[p])
            direct[k, t] = 1.0
        counts = np.concatenate([index.profiles.denominator[here], index.absent.denominator[away]])
        cohort[d] = float(np.unique(counts[counts > 0]).sum())
        has_lines[k] = bool(len(here) or len(away))
    totals = _column_totals(index)
    old = index.F_rows[rows].toarray()
    counts = totals["counts"] - ((old > 0) & (F == 0)).sum(axis=0)
    sums = totals["sums"] - (old - F).sum(axis=0)
    gone = rows[~has_lines]
    n = max(len(index.diseases) - len(gone), 1)
    ic = -np.log(np.maximum(counts, 1) / n)
    background = np.maximum(np.maximum(sums, 0.0) / n, 1 / (2 * n))
    return Withheld(
        references=wanted,
        edges=frozenset(
            [index.profiles.edge(p) for p in present.tolist()]
            + [index.absent.edge(p) for p in absent.tolist()]
        ),
        rows=rows,
        F=F,
        direct=direct,
        ic=ic,
        background=background,
        cohort_patients=cohort,
        shift=np.log(index.background) - np.log(background),
        gone=gone,
        kept=kept,
    )


def _kept_positions(span: tuple[int, int], dropped: set[int]) -> np.ndarray:
    """The positions of a disease's lines (``span``) that are not ``dropped``."""
    return np.asarray([p for p in range(*span) if p not in dropped], dtype=np.int64)


def _column_totals(index: PhenotypeIndex) -> dict[str, np.ndarray]:
    """Per term, how many diseases have it (F > 0) and the sum of their frequencies: what IC
    and the background are made from (once per index)."""
    totals = index.derived.get("column_totals")
    if totals is None:
        totals = index.derived["column_totals"] = {
            "counts": np.asarray((index.F > 0).sum(axis=0)).ravel(),
            "sums": np.asarray(index.F.sum(axis=0)).ravel(),
        }
    return totals
