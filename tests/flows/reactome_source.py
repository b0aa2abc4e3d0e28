"""Reactome's gene → pathway mapping: a source written in the tests, as a newcomer would write
one in ``ingest/sources/``, to prove that a module and a registry entry are all a source needs
(``test_new_source.py``, decision 0032).

Format: ``NCBI2Reactome.txt``, Reactome's "Identifier mapping files"
(https://reactome.org/download-data): tab-separated, no header, six columns (:data:`COLUMNS`).
The release is the number Reactome's content service answers at ``/data/database/version``,
kept beside the file as ``version``. Kept: human rows, as ``Pathway`` nodes ``REACT:<stable id>``
named by the event name and ``Gene`` PARTICIPATES_IN ``Pathway`` edges; other species' rows are
dropped (counted in the log). Licence: CC BY 4.0 (https://reactome.org/license). Reactome asks
no terms of its own: :data:`TERMS` are the tests', to show the licence gate a source with terms
gets.
"""

from __future__ import annotations

import logging
from pathlib import Path

import polars as pl

from biokg.errors import SourceFormatError
from biokg.ingest import records
from biokg.ingest.formats.tabular import read_tsv
from biokg.ingest.sources.base import Fetched, SourceInfo, Upstream, fetched
from biokg.schema import load_schema

log = logging.getLogger(__name__)

MAPPING_FILE, VERSION_FILE = "NCBI2Reactome.txt", "version"
#: NCBI2Reactome.txt's columns, in the order https://reactome.org/download-data lists them
COLUMNS = ("ncbigene", "pathway", "url", "name", "evidence", "species")
DOWNLOAD = "https://reactome.org/download/current/"
CONTENT_SERVICE = "https://reactome.org/ContentService/data/database/version"
TERMS = "the tests' own terms, accepted to prove the licence gate"
_URLS = {MAPPING_FILE: DOWNLOAD + MAPPING_FILE, VERSION_FILE: CONTENT_SERVICE}


def _release_number(body: bytes, where: str) -> str:
    """The release number the content service answers (:class:`Upstream` marker reader)."""
    text = body.decode(errors="replace").strip()
    if not text.isdigit():
        raise SourceFormatError(f"{where}: expected a release number, found {text[:40]!r}")
    return text


SOURCE = SourceInfo(
    name="reactome",
    infores="infores:reactome",
    license="https://creativecommons.org/licenses/by/4.0/",
    urls=_URLS,
    # the content service's release number; a mirror serves it and the file under their names
    upstream=Upstream(CONTENT_SERVICE, VERSION_FILE, _release_number, tuple(_URLS), _URLS),
    schedule="0 6 1 3,6,9,12 *",  # quarterly releases
    bounds={"nodes:Pathway": (2_000, 3_000), "edges:PARTICIPATES_IN": (100_000, 200_000)},
    default=False,
    license_terms=TERMS,
    shared_data={MAPPING_FILE: f"reactome/{MAPPING_FILE}", VERSION_FILE: "reactome/version"},
)


def fetch(
    cache_dir: Path,
    *,
    data_dir: Path | None = None,
    offline: bool = True,
    shared: dict[str, Path] | None = None,
) -> Fetched:
    """The mapping file and its release number: from ``data_dir``, else the shared sample."""
    files = SOURCE.files_in(data_dir) if data_dir else dict(SOURCE.shared_sample(shared))
    return fetched(files, discover_version(files), sample=data_dir is None)


def discover_version(files: dict[str, Path]) -> str:
    """The release number saved beside the mapping file."""
    return _release_number(files[VERSION_FILE].read_bytes(), str(files[VERSION_FILE]))


def parse(fetched: Fetched) -> dict[str, pl.DataFrame]:
    """The mapping rows, every column a string, with their line numbers."""
    rows = read_tsv(fetched.files[MAPPING_FILE], required=COLUMNS, header=COLUMNS)
    return {"mappings": rows}


def normalize(frames: dict[str, pl.DataFrame], *, release: records.Release) -> records.Records:
    """Human rows to Pathway nodes, Gene stubs and PARTICIPATES_IN edges."""
    rows = frames["mappings"]
    human = rows.filter(pl.col("species") == "Homo sapiens")
    log.info(
        "reactome %s: dropped %d rows of other species", release.version, rows.height - human.height
    )
    edges = human.select(
        pl.concat_str(pl.lit("NCBIGene:"), "ncbigene").alias("subject"),
        pl.concat_str(pl.lit("REACT:"), "pathway").alias("object"),
        pl.lit("Gene").alias("subject_label"),
        pl.lit("Pathway").alias("object_label"),
        pl.concat_str(pl.lit(f"{MAPPING_FILE}#L"), pl.col("line").cast(pl.String)).alias(
            "source_record"
        ),
        *records.provenance_columns(release),
    )
    pathways = human.select(pl.concat_str(pl.lit("REACT:"), "pathway").alias("id"), "name")
    genes = edges.select(pl.col("subject").alias("id"))

    def asserted(frame: pl.DataFrame, label: str) -> pl.DataFrame:
        """One row per id, with the label's category and this source."""
        unique = frame.unique("id", keep="first", maintain_order=True)
        return unique.with_columns(*records.node_columns(label, release))

    return records.Records(
        nodes={"Pathway": asserted(pathways, "Pathway")},
        stubs={"Gene": asserted(genes, "Gene")},
        edges={"PARTICIPATES_IN": records.finalize_edges(edges, "PARTICIPATES_IN", load_schema())},
    )
