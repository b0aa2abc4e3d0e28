"""The registered sources, in build order: the one list the build, the CLI and the tests read.

Order matters for identity: PrimeKG's drugs merge onto ChEMBL's, openFDA's onto both (its FAERS
reports name drugs that only DrugBank knows), KEGG's (opt-in) onto all of them, so each must be
written before the next.
Each module follows :mod:`biokg.ingest.sources.base`. Its entry here is all a source needs
besides its module: the CLI's options, the refresh's release check and the Prefect deployments
read this registry when they run (decision 0032).
"""

from __future__ import annotations

from biokg.ingest.sources import chembl, go, hpo, kegg, openfda, primekg
from biokg.ingest.sources.base import Source

SOURCES: dict[str, Source] = {
    module.SOURCE.name: module for module in (hpo, go, chembl, primekg, openfda, kegg)
}  # type: ignore[misc]
#: What ``biokg build`` builds without ``--sources``.
DEFAULT_SOURCES: tuple[str, ...] = tuple(n for n, s in SOURCES.items() if s.SOURCE.default)
