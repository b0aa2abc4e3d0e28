"""One call that every surface shares: the CLI, the API route, the MCP tool and ``biokg ask``.

The index of the graph's current load comes from :func:`~.load.phenotype_index` (built once per
load and process), so a call costs the ranking alone once the first has paid for the index.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from biokg.core.store import GraphStore
from biokg.errors import AgentInputError
from biokg.graph_agent.diagnosis.load import phenotype_index
from biokg.graph_agent.diagnosis.ranker import DEFAULT_TOP, Diagnosis, DiagnosisRanker
from biokg.graph_agent.diagnosis.scoring import SCORERS

#: The scorer every surface uses unless told otherwise.
DEFAULT_METHOD = "likelihood-ratio"
#: The most entries one ranking lists (each entry carries its evidence).
MAX_TOP = 100


def ranker(
    store: GraphStore, cache_dir: Path | None, method: str = DEFAULT_METHOD
) -> DiagnosisRanker:
    """A ranker over the graph's current load with the scorer ``method``, its one-off work
    per index (the likelihood ratio's calibration) done here with the index build, not in the
    first case's ranking (``biokg ask`` times the question after this call).

    Raises:
        AgentInputError: ``method`` is not one of :data:`~.scoring.SCORERS`.
        StoreError: the graph could not be read.
    """
    if method not in SCORERS:
        raise AgentInputError(f"method must be one of {', '.join(SCORERS)}, not {method!r}")
    index = phenotype_index(store, cache_dir)
    scorer = SCORERS[method]()
    scorer.prepare(index)
    return DiagnosisRanker(index, scorer)


def diagnose(
    store: GraphStore,
    cache_dir: Path | None,
    observed: Sequence[str],
    excluded: Sequence[str] = (),
    *,
    top: int = DEFAULT_TOP,
    method: str = DEFAULT_METHOD,
    withhold: Sequence[str] = (),
) -> Diagnosis:
    """The ``top`` diseases that fit ``observed`` HPO terms and not ``excluded`` ones, each
    with its evidence; ranked as if the publications in ``withhold`` (e.g. ``PMID:28513613``)
    did not exist, when given (leave-publication-out: :mod:`.withhold`).

    Raises:
        AgentInputError: no observed term, ``top`` outside 1..MAX_TOP, or an unknown method.
        StoreError: the graph could not be read.
    """
    if not observed:
        raise AgentInputError("give at least one observed HPO term, e.g. HP:0001250")
    if not 1 <= top <= MAX_TOP:
        raise AgentInputError(f"top must be between 1 and {MAX_TOP}, not {top}")
    return ranker(store, cache_dir, method).rank(observed, excluded, top=top, withhold=withhold)
