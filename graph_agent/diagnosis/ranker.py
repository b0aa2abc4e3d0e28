"""Ranking diseases for a patient's observed and excluded HPO terms, each entry with its evidence.

Every disease is scored (:mod:`biokg.graph_agent.diagnosis.scoring`); records the bridge joins
(OMIM ↔ Orphanet ↔ MONDO) are one disease with their annotations pooled
(:func:`~biokg.graph_agent.diagnosis.index.build_index`), ranked once, the entry listing every
id it stands for and the SAME_AS edges that joined them. Each
entry cites, per patient term, the disease term it met (with the annotation edge and its source
record), the common ancestor and the contribution; excluded terms likewise.

A case may withhold references (leave-publication-out, :mod:`.withhold`): it is then ranked,
and its evidence cited, without the annotation lines that cite them; a disease left with no
line is ranked on its phenotypic series' pooled lines (:mod:`.series`), else through an allelic
disease (:mod:`.allelic`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from biokg.errors import EntityNotFoundError
from biokg.graph_agent.diagnosis.allelic import ALLELIC_PENALTY, Allelic, allelic_scores
from biokg.graph_agent.diagnosis.index import Annotation, PhenotypeIndex
from biokg.graph_agent.diagnosis.scoring import LikelihoodRatio, Scorer, TermMatch
from biokg.graph_agent.diagnosis.series import pool_series
from biokg.graph_agent.diagnosis.withhold import Withheld, withhold

#: How many entries a ranking lists unless asked otherwise.
DEFAULT_TOP = 20


@dataclass(frozen=True)
class Evidence:
    """One patient term's part in a disease's score: the disease term it met (``disease`` is
    the record whose ``edge`` states it), the common ancestor, the contribution in nats."""

    term: str
    term_name: str | None
    excluded: bool
    contribution: float
    ancestor: str | None = None
    ancestor_name: str | None = None
    disease_term: str | None = None
    disease_term_name: str | None = None
    disease: str | None = None
    frequency: float | None = None
    edge: str | None = None
    source: str | None = None  # the infores id of the edge's source
    source_record: str | None = None


@dataclass(frozen=True)
class RankedDisease:
    """One entry of a ranking: a disease (and its bridged twins), its score and evidence
    (``rank`` 0: explained on request, not ranked). The score is ``prior`` (the scorer's, before
    any term) plus the evidence's contributions, plus ``allelic``'s ``penalty`` when the disease
    was ranked through an allelic disease (its own lines all withheld): the prior and evidence
    are then that disease's."""

    rank: int
    id: str
    name: str | None
    ids: list[str]
    score: float
    evidence: list[Evidence]
    bridge: list[dict[str, str]] = field(default_factory=list)
    prior: float = 0.0
    #: the genes associated with the disease's records (``disease``: the record whose
    #: ASSOCIATED_WITH ``edge`` names the gene), for a variant pipeline to read; a gene's
    #: ``symbol`` is null where its source gives none (NCBI's "-")
    genes: list[dict[str, str | None]] = field(default_factory=list)
    #: set when ranked through an allelic disease (:mod:`.allelic`): its ``id`` and ``name``,
    #: the ``gene`` they share with the gene edges of both (``edges``), and the ``penalty``
    allelic: dict[str, Any] | None = None
    #: set when ranked on its phenotypic series' pooled lines (its own all withheld,
    #: :mod:`.series`): the other diseases of the series (``id``, ``name``), whose annotation
    #: edges the evidence cites
    series: list[dict[str, str | None]] | None = None


@dataclass(frozen=True)
class Diagnosis:
    """A ranking for one case, with the terms the hierarchy did not know, and the references
    it was ranked without (``withheld_lines``: how many annotation lines cited them)."""

    method: str
    observed: list[str]
    excluded: list[str]
    unknown: list[str]
    ranking: list[RankedDisease]
    withheld: list[str] = field(default_factory=list)
    withheld_lines: int = 0


class DiagnosisRanker:
    """Ranks the diseases of one index with one scorer."""

    def __init__(self, index: PhenotypeIndex, scorer: Scorer | None = None) -> None:
        self.index = index
        self.scorer = scorer or LikelihoodRatio()
        #: per disease explained so far: its annotations' ancestors, flat, and whose each is
        self._ancestors: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def rank(
        self,
        observed: Sequence[str],
        excluded: Sequence[str] = (),
        *,
        top: int = DEFAULT_TOP,
        withhold: Sequence[str] = (),
    ) -> Diagnosis:
        """The ``top`` best entries for a case (ids the hierarchy lacks are listed as unknown
        and not scored), ranked without the annotation lines citing ``withhold``."""
        seen, absent, unknown = self._case(observed, excluded)
        view = self.view(withhold)
        scores = self.scorer.score(self.index, seen, absent, view)
        prior = self.scorer.prior(self.index, view)
        through: dict[int, Allelic] = {}
        if view is not None and len(view.gone):
            scores, through = allelic_scores(self.index, scores, view.gone)
        order = np.argsort(-scores, kind="stable")
        entries: list[RankedDisease] = []
        done: set[str] = set()
        for d in order:
            if len(entries) >= top or scores[d] == -np.inf:
                break
            if self.index.diseases[d] not in done:
                rank = len(entries) + 1
                if int(d) in through:
                    entry = self._allelic(
                        int(d), through[int(d)], scores, prior, seen, absent, rank, view
                    )
                else:
                    entry = self._entry(
                        int(d), float(scores[d]), float(prior[d]), seen, absent, rank, view
                    )
                done.update(entry.ids)
                entries.append(entry)
        return Diagnosis(
            method=self.scorer.name,
            observed=[self.index.terms[q] for q in seen],
            excluded=[self.index.terms[x] for x in absent],
            unknown=unknown,
            ranking=entries,
            withheld=list(dict.fromkeys(withhold)),
            withheld_lines=view.lines if view else 0,
        )

    def view(self, references: Sequence[str]) -> Withheld | None:
        """The index without the lines citing ``references`` (None: none cites them), each
        disease left with no line pooled with its phenotypic series where it has one."""
        view = withhold(self.index, references) if references else None
        return pool_series(self.index, view) if view is not None else None

    def explain(
        self,
        disease: str,
        observed: Sequence[str],
        excluded: Sequence[str] = (),
        *,
        withhold: Sequence[str] = (),
    ) -> RankedDisease:
        """One disease's score and evidence for a case, wherever it ranks (``rank`` 0).

        Raises:
            EntityNotFoundError: the disease has no phenotype annotations in the graph (or
                none left once ``withhold``'s lines are left out).
        """
        if disease not in self.index.disease_index:
            raise EntityNotFoundError(f"{disease} has no HAS_PHENOTYPE annotations in the graph")
        seen, absent, _ = self._case(observed, excluded)
        d = self.index.disease_index[disease]
        view = self.view(withhold)
        if view is not None and d in view.gone:
            raise EntityNotFoundError(
                f"{disease} has no HAS_PHENOTYPE annotation left without {', '.join(withhold)}"
            )
        score = float(self.scorer.score(self.index, seen, absent, view)[d])
        prior = float(self.scorer.prior(self.index, view)[d])
        return self._entry(d, score, prior, seen, absent, 0, view)

    def _case(
        self, observed: Sequence[str], excluded: Sequence[str]
    ) -> tuple[list[int], list[int], list[str]]:
        """Observed and excluded term indices (a term both observed and excluded counts as
        observed), and the ids the hierarchy lacks."""
        seen, unknown_seen = self.index.known(list(dict.fromkeys(observed)))
        absent, unknown_absent = self.index.known(list(dict.fromkeys(excluded)))
        return seen, [x for x in absent if x not in seen], unknown_seen + unknown_absent

    def _entry(
        self,
        d: int,
        score: float,
        prior: float,
        seen: list[int],
        absent: list[int],
        rank: int,
        view: Withheld | None = None,
    ) -> RankedDisease:
        disease = self.index.diseases[d]
        matches = self.scorer.explain(self.index, d, seen, absent, view)
        kept = view.kept.get(d) if view is not None else None
        pooled = view.series.get(d) if view is not None else None
        return RankedDisease(
            rank=rank,
            id=disease,
            name=self.index.disease_names[d],
            ids=self.index.twins.get(disease, [disease]),
            score=round(score, 4),
            evidence=[self._evidence(d, m, kept) for m in matches],
            bridge=self.index.bridge_edges.get(disease, []),
            prior=round(prior, 4),
            genes=self.index.genes.get(d, []),
            series=None
            if pooled is None
            else [
                {"id": self.index.diseases[o], "name": self.index.disease_names[o]}
                for o in pooled.tolist()
            ],
        )

    def _allelic(
        self,
        d: int,
        how: Allelic,
        scores: np.ndarray,
        prior: np.ndarray,
        seen: list[int],
        absent: list[int],
        rank: int,
        view: Withheld,
    ) -> RankedDisease:
        """The entry of a disease left with no line, ranked through the allelic disease
        ``how`` names: that disease's prior and evidence, the penalty, the genes' edges."""
        other = how.disease
        base = self._entry(other, float(scores[other]), float(prior[other]), seen, absent, 0, view)
        base = dataclasses.replace(base, series=None)
        disease = self.index.diseases[d]
        genes = self.index.genes.get(d, [])
        edges = [g for g in genes + self.index.genes.get(other, []) if g["gene"] == how.gene]
        return dataclasses.replace(
            base,
            rank=rank,
            id=disease,
            name=self.index.disease_names[d],
            ids=self.index.twins.get(disease, [disease]),
            score=round(float(scores[d]), 4),
            bridge=self.index.bridge_edges.get(disease, []),
            genes=genes,
            allelic={
                "id": base.id,
                "name": base.name,
                "gene": how.gene,
                "symbol": edges[0]["symbol"] if edges else None,
                "edges": edges,
                "penalty": -ALLELIC_PENALTY,
            },
        )

    def _evidence(
        self, disease: int, match: TermMatch, kept: list[Annotation] | None = None
    ) -> Evidence:
        """One term's evidence line (``kept``: the disease's annotations left by a withheld
        reference, when it changed the disease)."""
        index = self.index
        fields: dict[str, Any] = {
            "term": index.terms[match.term],
            "term_name": index.term_names[match.term],
            "excluded": match.excluded,
            "contribution": round(match.value, 4),
        }
        if match.ancestor is not None:
            note = self._annotation(disease, match, kept)
            fields.update(
                ancestor=index.terms[match.ancestor],
                ancestor_name=index.term_names[match.ancestor],
                disease_term=index.terms[note.term],
                disease_term_name=index.term_names[note.term],
                disease=note.disease,
                frequency=note.frequency,
                edge=note.edge,
                source=note.source,
                source_record=note.source_record,
            )
        return Evidence(**fields)

    def _annotation(
        self, disease: int, match: TermMatch, kept: list[Annotation] | None = None
    ) -> Annotation:
        """The disease's annotation through which the term met it: at or below the common
        ancestor; the patient's own term first, then the most frequent, then the nearest."""
        index = self.index
        if kept is None:
            notes = index.profiles[disease]
            ancestors, owners = self._ancestors_of(disease)
        else:
            notes = kept
            ancestors, owners = _flat_closures(index, kept)
        under = [notes[i] for i in owners[ancestors == match.ancestor]]
        return max(
            under,
            key=lambda n: (n.term == match.term, n.frequency, -len(index.closures[n.term])),
        )

    def _ancestors_of(self, disease: int) -> tuple[np.ndarray, np.ndarray]:
        """Every ancestor of each of the disease's annotations (their closures side by side),
        and the annotation each is of: which annotations lie under a term is one comparison."""
        kept = self._ancestors.get(disease)
        if kept is None:
            notes = self.index.profiles[disease]
            kept = self._ancestors[disease] = _flat_closures(self.index, notes)
        return kept


def _flat_closures(index: PhenotypeIndex, notes: list[Annotation]) -> tuple[np.ndarray, np.ndarray]:
    """The closures of ``notes``' terms side by side, and the note each ancestor is of."""
    closures = [index.closures[n.term] for n in notes]
    owners = np.repeat(np.arange(len(closures)), [len(c) for c in closures])
    flat = np.concatenate(closures) if closures else np.zeros(0, dtype=int)
    return flat, owners
