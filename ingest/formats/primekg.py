"""PrimeKG's edge tables, ``kg.csv`` and ``kg_grouped.csv``, read lazily as text.

``kg.csv`` (PrimeKG v2.1, Harvard Dataverse doi:10.7910/DVN/IXA7BM) has 12 columns:
``relation, display_relation, x_index, x_id, x_type, x_name, x_source, y_index, y_id, y_type,
y_name, y_source``; ``kg_grouped.csv`` the same without the two ``*_index`` columns. Both list
every undirected edge twice (x and y swapped). Every column is read as text (``0001250`` must
stay itself), stored as categoricals (8.1M rows name only ~129k nodes); a leading unnamed column
(pandas' index, as in exported slices) is ignored.

Errors name the file and line: a missing column, a file that ends mid-line (a cut download), a
row with empty required fields (a short or cut row).
"""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl

from biokg.errors import SourceFormatError

#: Columns read from either file (the ``*_index`` columns of kg.csv are PrimeKG's own integer
#: node ids, not needed once CURIEs are restored).
COLUMNS = (
    "relation",
    "display_relation",
    "x_id",
    "x_type",
    "x_name",
    "x_source",
    "y_id",
    "y_type",
    "y_name",
    "y_source",
)
#: Columns every row must fill (names and display relations may be empty).
REQUIRED = ("relation", "x_id", "x_type", "x_source", "y_id", "y_type", "y_source")
#: 0-based position of a row among the file's data rows (PrimeKG's own row numbering).
ROW = "row"


def read_kg(path: Path) -> pl.DataFrame:
    """Read a PrimeKG edge file: :data:`COLUMNS` (string values, stored as categoricals) plus
    :data:`ROW`.

    Raises:
        SourceFormatError: missing columns, a cut-off last line, or a row with an empty
            required field; the message names the file and line (line = row + 2).
    """
    header = _header(path)
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise SourceFormatError(
            f"{path}:1: missing column(s) {missing}; PrimeKG kg.csv/kg_grouped.csv has "
            f"{list(COLUMNS)}, the header has {header}"
        )
    _check_complete(path)
    try:
        frame = (
            pl.scan_csv(
                path,
                # categoricals: 8.1M rows name only ~129k nodes; strings per row would cost GBs
                schema={c: pl.Categorical if c in COLUMNS else pl.String for c in header},
                has_header=True,
                truncate_ragged_lines=False,
            )
            .select(COLUMNS)
            .with_row_index(ROW)
            .collect()
        )
    except pl.exceptions.PolarsError as err:
        raise SourceFormatError(f"{path}: not a readable PrimeKG CSV: {err}") from err
    bad = frame.filter(pl.any_horizontal(pl.col(c).is_null() for c in REQUIRED))  # "" is null
    if bad.height:
        row = bad.row(0, named=True)
        empty = [c for c in REQUIRED if not row[c]]
        raise SourceFormatError(
            f"{path}:{row[ROW] + 2}: empty {', '.join(empty)}; the row is cut short or "
            f"malformed ({bad.height} such rows)"
        )
    return frame


def _header(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as handle:
        first = handle.readline()
    if not first:
        raise SourceFormatError(f"{path}:1: empty file; expected PrimeKG's header line")
    return [name.strip() for name in next(csv.reader([first]))]


def _check_complete(path: Path) -> None:
    """A file that does not end with a newline was cut off mid-row (a stopped download)."""
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return
        handle.seek(-1, 2)
        if handle.read(1) == b"\n":
            return
    with open(path, "rb") as handle:
        lines = sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 24), b""))
    raise SourceFormatError(
        f"{path}:{lines + 1}: the file ends mid-line; it looks truncated, download it again"
    )
