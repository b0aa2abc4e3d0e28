"""The precomputed structures a diagnosis ranking reads: HPO term closures, each disease's
propagated annotation frequencies, information content and background frequencies, and the
bridge's disease twins.

Built once per graph load from plain rows (:mod:`biokg.graph_agent.diagnosis.load` reads them),
so a case costs a few sparse column slices, not a graph scan per disease.

* **Closure**: a term's ancestors through ``IS_A``, itself included.
* **F** (diseases × terms, sparse): F[D, a] is the highest frequency among D's annotations at
  ``a`` or below it (the annotation propagation rule: a disease with *Focal-onset seizure* has
  *Seizure*). Annotations with frequency 0 (HP:0040285 Excluded, ``0/n``) and ``NOT`` lines are
  kept apart as the disease's absent features, never as presence.
* **IC** (Resnik): ``-ln(n(a) / N)``, n(a) the diseases with F[D, a] > 0.
* **Background** (LIRICAL): the mean of F[:, a] over all diseases, the probability that a random
  disease shows ``a``.
* **Cohort patients**: per disease, the sum of the distinct denominators of its ``n/m``
  frequencies, about how many published patients its annotations were curated from (HPOA's
  ``n/m`` lines come from published cohorts); the likelihood-ratio scorer's prior.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from biokg.core.files import atomic_path
from biokg.graph_agent.ranking import frequency

log = logging.getLogger(__name__)

#: Frequency of an annotation without a frequency qualifier (most OMIM lines): neither always
#: nor rarely present. LIRICAL assumes 1.0; on the development cases 0.5 ranked better
#: (docs/decisions/0021-differential-diagnosis.md).
MISSING_FREQUENCY = 0.5


#: The denominator of an ``n/m`` frequency (the cohort the line was counted in), else null.
_DENOMINATOR = pl.col("frequency").str.extract(r"^\d+/(\d+)$", 1).cast(pl.Int64)


@dataclass(frozen=True)
class Annotation:
    """One disease → phenotype edge as the ranker cites it (``disease``: the record it starts
    from, one of the entry's twins)."""

    disease: str
    term: int
    frequency: float
    edge: str
    source: str
    source_record: str


class Profiles:
    """Each disease's annotations, held as columns (one entry per HPOA line, ~260,000 for the
    full release) and made into :class:`Annotation` objects only for the diseases a ranking
    explains: building them all took most of the index's build time."""

    def __init__(self, rows: pl.DataFrame, n_diseases: int) -> None:
        """``rows``: columns ``d`` (disease index), ``t`` (term index), ``f`` (frequency),
        ``m`` (the ``n/m`` frequency's denominator, else null), ``references`` (the line's
        cited publications and records) and the citation's (``disease``, ``edge``,
        ``source``, ``source_record``)."""
        ordered = rows.sort("d", maintain_order=True)
        self.d = ordered["d"].to_numpy()
        self.term = ordered["t"].to_numpy()
        self.frequency = ordered["f"].to_numpy()
        #: each line's cohort size (``n/m``'s m; 0 when the frequency is not a count)
        self.denominator = ordered["m"].fill_null(0).to_numpy()
        self._references = ordered["references"]
        self._text = ordered.select("disease", "edge", "source", "source_record")
        self._starts = np.searchsorted(self.d, np.arange(n_diseases + 1))
        #: the diseases made into objects so far (a ranking cites each several times)
        self._made: dict[int, list[Annotation]] = {}
        #: reference → the positions of the lines citing it (made on first use)
        self._citing: dict[str, np.ndarray] | None = None

    def edge(self, position: int) -> str:
        """The edge id of the line at ``position``."""
        return self._text["edge"][position]

    def span(self, d: int) -> tuple[int, int]:
        """The positions of disease ``d``'s lines (start, stop)."""
        return int(self._starts[d]), int(self._starts[d + 1])

    def citing(self, references: Iterable[str]) -> np.ndarray:
        """The sorted positions of the lines that cite any of ``references`` (PMIDs, OMIM or
        ORPHA records, as the line's ``references`` list spells them). The map is built
        once, on the first leave-publication-out case (~0.3 s for the full release)."""
        if self._citing is None:
            frame = (
                pl.DataFrame({"p": np.arange(len(self.d)), "r": self._references})
                .explode("r")
                .drop_nulls("r")
                .group_by("r")
                .agg("p")
            )
            self._citing = {
                r: np.asarray(p, dtype=np.int64)
                for r, p in zip(frame["r"].to_list(), frame["p"].to_list(), strict=True)
            }
        found = [self._citing[r] for r in references if r in self._citing]
        return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __iter__(self) -> Iterator[list[Annotation]]:
        return (self[d] for d in range(len(self)))

    def __getitem__(self, d: int) -> list[Annotation]:
        """Disease ``d``'s annotations, in the rows' order (made once, then kept)."""
        made = self._made.get(d)
        if made is None:
            start, stop = self._starts[d], self._starts[d + 1]
            text = self._text.slice(start, stop - start).iter_rows()
            made = self._made[d] = [
                Annotation(disease, int(t), float(f), edge, source, record)
                for (disease, edge, source, record), t, f in zip(
                    text, self.term[start:stop], self.frequency[start:stop], strict=True
                )
            ]
        return made


@dataclass
class PhenotypeIndex:
    """Terms, closures, disease profiles and twins of one graph load."""

    terms: list[str]
    term_names: list[str | None]
    closures: list[np.ndarray]
    diseases: list[str]
    disease_names: list[str | None]
    profiles: Profiles
    absent: Profiles
    twins: dict[str, list[str]]
    bridge_edges: dict[str, list[dict[str, str]]]
    #: disease index → its records' genes (gene, symbol, edge, source, source_record)
    genes: dict[int, list[dict[str, str | None]]]
    F: sparse.csc_matrix = field(repr=False)
    direct: sparse.csr_matrix = field(repr=False)
    ic: np.ndarray = field(repr=False)
    background: np.ndarray = field(repr=False)
    cohort_patients: np.ndarray = field(repr=False)
    closure_matrix: sparse.csr_matrix = field(repr=False)
    term_index: dict[str, int] = field(default_factory=dict, repr=False)
    disease_index: dict[str, int] = field(default_factory=dict, repr=False)
    #: matrices and vectors a scorer derives once per index (by name)
    derived: dict[str, Any] = field(default_factory=dict, repr=False)
    #: the folder the index's rows are cached in (None: kept in memory only), where
    #: :meth:`stored` keeps derived arrays for the next process of the same load
    folder: Path | None = field(default=None, repr=False)
    F_rows: sparse.csr_matrix = field(default=None, repr=False)  # type: ignore[assignment]
    direct_columns: sparse.csc_matrix = field(default=None, repr=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.F_rows = self.F.tocsr()
        self.direct_columns = self.direct.tocsc()
        self.term_index = {t: i for i, t in enumerate(self.terms)}
        self.disease_index = {d: i for i, d in enumerate(self.diseases)}
        for d, i in list(self.disease_index.items()):
            for twin in self.twins.get(d, []):
                self.disease_index.setdefault(twin, i)

    def stored(
        self, key: str, compute: Callable[[], dict[str, np.ndarray]]
    ) -> dict[str, np.ndarray]:
        """Arrays derived once per index and ``key`` (which names everything they depend on
        besides the index): from memory, else from :attr:`folder`, else computed and kept in
        both, so a CLI call or a server start after the first does not compute them again."""
        if key not in self.derived:
            digest = hashlib.sha256(key.encode()).hexdigest()[:16]
            path = self.folder / f"derived-{digest}.npz" if self.folder else None
            if path is not None and path.is_file():
                with np.load(path) as kept:
                    self.derived[key] = {name: kept[name] for name in kept.files}
            else:
                self.derived[key] = compute()
                if path is not None:
                    with atomic_path(path) as partial, open(partial, "wb") as handle:
                        np.savez(handle, **self.derived[key])
        return self.derived[key]

    def known(self, ids: list[str]) -> tuple[list[int], list[str]]:
        """The term indices of ``ids`` in the hierarchy, and the ids that are not in it."""
        found = [self.term_index[i] for i in ids if i in self.term_index]
        return found, [i for i in ids if i not in self.term_index]


def build_index(
    terms: pl.DataFrame,
    hierarchy: pl.DataFrame,
    annotations: pl.DataFrame,
    twins: pl.DataFrame,
    genes: pl.DataFrame | None = None,
    *,
    merge_twins: bool = True,
) -> PhenotypeIndex:
    """The index from the graph's rows: ``terms`` (id, name), ``hierarchy`` (child, parent),
    ``annotations`` (disease, name, term, frequency, negated, edge, source, source_record,
    references), ``twins`` (subject, object, edge, source_record) and ``genes`` (disease, gene,
    symbol, edge, source, source_record; none: no disease lists genes).

    With ``merge_twins`` a disease is the set of records the bridge joins, its profile the union
    of their annotations (OMIM's and Orphanet's curations of one disease complete each other);
    without, each record is scored alone and the ranking keeps its best record."""
    ids = terms["id"].to_list()
    index = {t: i for i, t in enumerate(ids)}
    closures = _closures(len(ids), hierarchy, index)
    kept = annotations.filter(pl.col("term").is_in(ids))
    groups, bridge = _twin_groups(twins)
    records = kept["disease"].unique().sort().to_list()
    key = {r: groups.get(r, [r])[0] if merge_twins else r for r in records}
    diseases = sorted(set(key.values()))
    names = dict(zip(kept["disease"], kept["name"], strict=True))
    d_index = {d: i for i, d in enumerate(diseases)}
    # each distinct frequency text parsed once (HPO terms, n/m, x%: a few hundred values)
    texts = kept["frequency"].drop_nulls().unique().to_list()
    rows = kept.with_columns(
        pl.col("disease")
        .replace_strict(key)
        .replace_strict(d_index, return_dtype=pl.Int32)
        .alias("d"),
        pl.col("term").replace_strict(index, return_dtype=pl.Int32).alias("t"),
        pl.col("frequency")
        .replace_strict({t: frequency(t) for t in texts}, default=None, return_dtype=pl.Float64)
        .fill_null(MISSING_FREQUENCY)
        .alias("f"),
        _DENOMINATOR.alias("m"),
    )
    present = ~pl.col("negated") & (pl.col("f") > 0)
    profiles = Profiles(rows.filter(present), len(diseases))
    absent = Profiles(rows.filter(~present), len(diseases))
    F = _propagated(profiles, closures, len(ids))
    counts = np.asarray((F > 0).sum(axis=0)).ravel()
    n = max(len(diseases), 1)
    ic = -np.log(np.maximum(counts, 1) / n)
    background = np.maximum(np.asarray(F.sum(axis=0)).ravel() / n, 1 / (2 * n))
    return PhenotypeIndex(
        terms=ids,
        term_names=terms["name"].to_list(),
        closures=closures,
        diseases=diseases,
        disease_names=[_name(d, groups, names) for d in diseases],
        profiles=profiles,
        absent=absent,
        twins=groups,
        bridge_edges=bridge,
        genes=_genes(genes, groups if merge_twins else {}, d_index),
        F=F,
        direct=_direct(profiles, len(ids)),
        ic=ic,
        background=background,
        cohort_patients=_cohort_patients(kept, key, d_index),
        closure_matrix=_closure_matrix(closures, len(ids)),
    )


def _cohort_patients(
    annotations: pl.DataFrame, key: dict[str, str], d_index: dict[str, int]
) -> np.ndarray:
    """Per disease, the sum of the distinct denominators of its annotations' ``n/m`` frequencies
    (present and absent features alike: both were assessed in the cohort)."""
    frame = (
        annotations.select(
            pl.col("disease").replace_strict(key).replace_strict(d_index).alias("d"),
            _DENOMINATOR.alias("m"),
        )
        .drop_nulls("m")
        .unique()
        .group_by("d")
        .agg(pl.col("m").sum())
    )
    patients = np.zeros(len(d_index))
    patients[frame["d"].to_numpy()] = frame["m"].to_numpy()
    return patients


def _genes(
    genes: pl.DataFrame | None, groups: dict[str, list[str]], d_index: dict[str, int]
) -> dict[int, list[dict[str, str]]]:
    """Each ranked disease's genes (those of every record the bridge joins into it), one
    entry per (record, gene) edge, in the rows' order."""
    found: dict[int, list[dict[str, str]]] = {}
    for row in genes.iter_rows(named=True) if genes is not None else ():
        record = row["disease"]
        d = d_index.get(groups.get(record, [record])[0])
        if d is not None:
            found.setdefault(d, []).append(row)
    return found


def _name(disease: str, groups: dict[str, list[str]], names: dict[str, str | None]) -> str | None:
    """A disease's name: its first record's with a name (OMIM's before Orphanet's)."""
    return next((names[r] for r in groups.get(disease, [disease]) if names.get(r)), None)


def _closures(n: int, hierarchy: pl.DataFrame, index: dict[str, int]) -> list[np.ndarray]:
    """Each term's ancestors, itself included.

    HPO is a DAG ~15 levels deep, walked iteratively. A cycle (terms stated to be kinds of one
    another) would make that walk endless; its terms are taken as ancestors of one another
    (the strongly connected components of the IS_A graph, condensed to a DAG), with a warning.
    """
    pairs = [
        (index[child], index[parent])
        for child, parent in hierarchy.select("child", "parent").iter_rows()
        if child in index and parent in index
    ]
    edges = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    graph = sparse.csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    count, component = connected_components(graph, directed=True, connection="strong")
    if count < n:
        in_cycles = int((np.bincount(component)[component] > 1).sum())
        log.warning(
            "phenotype hierarchy: %d terms in IS_A cycles, each cycle's terms taken as "
            "ancestors of one another",
            in_cycles,
        )
    members: list[list[int]] = [[] for _ in range(count)]
    for term, c in enumerate(component.tolist()):
        members[c].append(term)
    parents: list[set[int]] = [set() for _ in range(count)]
    ends = zip(component[edges[:, 0]].tolist(), component[edges[:, 1]].tolist(), strict=True)
    for child, parent in ends:
        if child != parent:
            parents[child].add(parent)
    done = _dag_closures(count, parents)
    return [
        np.fromiter(sorted(t for a in done[component[term]] for t in members[a]), dtype=np.int32)
        for term in range(n)
    ]


def _dag_closures(n: int, parents: list[set[int]]) -> list[list[int]]:
    """Each node's ancestors, itself included, in a DAG given by ``parents`` (iterative)."""
    done: list[list[int] | None] = [None] * n
    for start in range(n):
        stack = [start]
        while stack:
            node = stack[-1]
            if done[node] is not None:
                stack.pop()
                continue
            todo = [p for p in parents[node] if done[p] is None]
            if todo:
                stack.extend(todo)
                continue
            found = {node}
            for p in parents[node]:
                found.update(done[p])
            done[node] = sorted(found)
            stack.pop()
    return done  # type: ignore[return-value]


def _closure_matrix(closures: list[np.ndarray], n: int) -> sparse.csr_matrix:
    """Terms × terms, row t holding t's ancestors (for the disease → patient direction)."""
    lengths = np.fromiter((len(c) for c in closures), dtype=np.int64, count=n)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    data = np.ones(int(indptr[-1]), dtype=np.float64)
    return sparse.csr_matrix((data, np.concatenate(closures), indptr), shape=(n, n))


def _direct(profiles: Profiles, n_terms: int) -> sparse.csr_matrix:
    """Diseases × terms, 1 where the disease is annotated with exactly that term."""
    pairs = pl.DataFrame({"d": profiles.d, "t": profiles.term}).unique()
    data = np.ones(pairs.height)
    rows, cols = pairs["d"].to_numpy(), pairs["t"].to_numpy()
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(profiles), n_terms))


def _propagated(profiles: Profiles, closures: list[np.ndarray], n_terms: int) -> sparse.csc_matrix:
    """F[D, a]: the highest frequency among D's annotations at ``a`` or below."""
    notes = pl.DataFrame({"d": profiles.d, "term": profiles.term, "f": profiles.frequency})
    lengths = [len(c) for c in closures]
    ancestors = pl.DataFrame(
        {
            "term": np.repeat(np.arange(n_terms, dtype=np.int32), lengths),
            "t": np.concatenate(closures) if closures else np.array([], dtype=np.int32),
        }
    )
    frame = notes.join(ancestors, on="term").group_by("d", "t").agg(pl.col("f").max())
    return sparse.csc_matrix(
        (frame["f"].to_numpy(), (frame["d"].to_numpy(), frame["t"].to_numpy())),
        shape=(len(profiles), n_terms),
    )


def _twin_groups(
    twins: pl.DataFrame,
) -> tuple[dict[str, list[str]], dict[str, list[dict[str, str]]]]:
    """Diseases the bridge joins (connected through SAME_AS), each id → its sorted group, and
    each id → the bridge edges of its group (union-find)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    rows = list(twins.iter_rows(named=True))
    for row in rows:
        a, b = root(row["subject"]), root(row["object"])
        if a != b:
            parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = {}
    for x in list(parent):
        members.setdefault(root(x), []).append(x)
    edges: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        edges.setdefault(root(row["subject"]), []).append(row)
    groups = {x: sorted(members[root(x)]) for x in parent}
    bridge = {x: edges.get(root(x), []) for x in parent}
    return groups, bridge
