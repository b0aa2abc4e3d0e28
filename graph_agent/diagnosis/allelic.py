"""Allelic diseases: a disease that a withheld publication leaves with no annotation is ranked
through the diseases of its genes.

Under leave-publication-out ranking (:mod:`.withhold`) a disease described by one publication
alone loses every phenotype line, though it is still a known disease of a known gene (its
``ASSOCIATED_WITH`` edges cite genes_to_phenotype's gene–disease rows, not the publication).
Diseases of one gene share much of their phenotype (allelic series, dominant and recessive
forms), so such a disease takes the score of the best-fitting other disease of its genes, less
:data:`ALLELIC_PENALTY`: it ranks just below that disease rather than not at all. Only diseases
left with no line and no phenotypic series to pool (:mod:`.series`, which ranks better:
docs/decisions/0037-series-pooling-diagnosis.md) are ranked this way; a disease with its own
lines keeps its own score, so a case without withheld references ranks as before (measured
alternatives, pooling for every disease or for diseases with few lines:
docs/decisions/0025-leave-publication-out-diagnosis.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from biokg.graph_agent.diagnosis.index import PhenotypeIndex

#: Nats below the allelic disease it is ranked through (so it follows that disease): 0.5, 0
#: and 2 gave the same figures on the development cases (same record).
ALLELIC_PENALTY = 0.5


@dataclass(frozen=True)
class Allelic:
    """How a disease with no annotation left was ranked: through ``disease`` (an index
    position), which shares ``gene`` with it."""

    disease: int
    gene: str


def allelic_scores(
    index: PhenotypeIndex, scores: np.ndarray, gone: np.ndarray
) -> tuple[np.ndarray, dict[int, Allelic]]:
    """``scores`` with each disease of ``gone`` scored through its best other disease of a
    shared gene (not itself gone), less :data:`ALLELIC_PENALTY`; a disease without such a
    disease stays unranked (−inf). Returns the scores and, per disease so ranked, how."""
    members = _gene_members(index)
    scores = scores.copy()
    through: dict[int, Allelic] = {}
    left_out = set(gone.tolist())
    for d in gone.tolist():
        best: tuple[float, int, str] | None = None
        for gene in dict.fromkeys(row["gene"] for row in index.genes.get(d, [])):
            for other in members.get(gene, np.zeros(0, dtype=int)).tolist():
                if other in left_out or not np.isfinite(scores[other]):
                    continue
                if best is None or scores[other] > best[0]:
                    best = (float(scores[other]), other, gene)
        if best is not None:
            scores[d] = best[0] - ALLELIC_PENALTY
            through[d] = Allelic(best[1], best[2])
    return scores, through


def _gene_members(index: PhenotypeIndex) -> dict[str, np.ndarray]:
    """Each gene's diseases (index positions), made once per index."""
    members = index.derived.get("gene_members")
    if members is None:
        found: dict[str, set[int]] = {}
        for d, rows in index.genes.items():
            for row in rows:
                found.setdefault(row["gene"], set()).add(d)
        members = index.derived["gene_members"] = {
            g: np.asarray(sorted(ds), dtype=int) for g, ds in found.items()
        }
    return members
