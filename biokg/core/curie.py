"""CURIE normalisation: any registered spelling of a prefix becomes the one schema/ emits.

Prefix synonyms come from bioregistry (``pmid``, ``PubMed`` and ``pubmed`` all mean ``PMID``;
``Orphanet`` means ``ORPHA``); the spelling we emit is the one in ``schema/prefixes.yaml``.
"""

from __future__ import annotations

from functools import cache

from biokg.schema import load_schema


@cache
def _synonyms() -> dict[str, str]:
    """Map every known spelling (case-folded) of a schema prefix to its schema spelling."""
    # imported here: bioregistry reads its whole registry as it is imported (~1.2 s of CPU),
    # which every process importing the build paid (Prefect's deploy and flow-run processes,
    # CLI commands) whether or not it parsed a source
    import bioregistry

    table: dict[str, str] = {}
    for ours, key in load_schema().prefixes.items():
        resource = bioregistry.get_resource(key)
        spellings = {ours, key}
        if resource is not None:
            spellings |= set(resource.get_synonyms() or ())
            preferred = resource.get_preferred_prefix()
            if preferred:
                spellings.add(preferred)
        for spelling in spellings:
            table.setdefault(spelling.casefold(), ours)
    return table


def normalize_prefix(prefix: str) -> str | None:
    """The schema spelling of ``prefix``, or None when schema/ declares no such prefix."""
    return _synonyms().get(prefix.strip().casefold())


def normalize_curie(curie: str) -> str:
    """Rewrite a CURIE to the schema's prefix spelling.

    >>> normalize_curie("pmid:12345")
    'PMID:12345'
    >>> normalize_curie("Orphanet:558")
    'ORPHA:558'

    Raises:
        ValueError: the text is not ``prefix:local`` or the prefix is unknown to schema/.
    """
    prefix, sep, local = curie.strip().partition(":")
    if not sep or not prefix or not local:
        raise ValueError(f"{curie!r} is not a CURIE (expected prefix:local_id)")
    ours = normalize_prefix(prefix)
    if ours is None:
        raise ValueError(f"{curie!r}: prefix {prefix!r} is not declared in schema/prefixes.yaml")
    return f"{ours}:{local}"
