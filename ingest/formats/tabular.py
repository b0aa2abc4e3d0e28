"""Tab-separated source files read by header, with errors naming the file and line.

Every column is read as a string (ids like ``0001`` stay ``0001``); sources cast what they need.
A missing declared column is an error naming the file and the missing names; extra columns are
reported once by the caller's run report, never per row. :func:`check_column` validates a
column's values, naming the first bad line; :func:`header_lines` reads a file's leading lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import polars as pl

from biokg.errors import SourceFormatError
from biokg.ingest.formats.obo import check_text


def read_tsv(
    path: Path,
    *,
    required: Sequence[str],
    comment_prefix: str = "#",
    header: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Read a TSV whose header line names its columns (or whose columns are given by a spec).

    Args:
        path: the file.
        required: columns the caller uses; each must be present.
        comment_prefix: lines starting with it before the header are metadata, not data.
        header: for headerless formats (GAF), the column names from the format spec; every data
            line must then have exactly that many fields.

    Returns:
        All columns as strings, plus ``line`` (1-based line number in the file) for citations.

    Raises:
        SourceFormatError: bad encoding, truncation, missing columns, or a line with the wrong
            number of fields; the message names the file and line.
    """
    lines = check_text(path)
    start = 0
    while start < len(lines) and lines[start].startswith(comment_prefix):
        start += 1
    if header is None:
        if start >= len(lines):
            raise SourceFormatError(f"{path}: no header line found")
        columns = lines[start].split("\t")
        start += 1
    else:
        columns = list(header)
    missing = [c for c in required if c not in columns]
    if missing:
        raise SourceFormatError(
            f"{path}:{start}: missing column(s) {missing}; header has {columns}"
        )
    width = len(columns)
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, line in enumerate(lines[start:], start=start + 1):
        if not line or line.startswith(comment_prefix):
            continue
        fields = line.split("\t")
        if len(fields) != width:
            raise SourceFormatError(
                f"{path}:{number}: expected {width} tab-separated columns, found {len(fields)}"
            )
        rows.append(fields)
        numbers.append(number)
    frame = pl.DataFrame(rows, schema=dict.fromkeys(columns, pl.String), orient="row")
    return frame.with_columns(pl.Series("line", numbers, dtype=pl.Int64))


def check_column(
    frame: pl.DataFrame, column: str, check: Callable[[str], object], path: Path | str
) -> None:
    """Run ``check`` once per distinct value of ``column``; a ``ValueError`` marks it bad.

    Raises:
        SourceFormatError: ``"{path}:{line}: {column} {value!r} {message} (...)"`` for the
            first line (by ``line``) holding a bad value, ``message`` being the ValueError's.
    """
    problems: dict[str, str] = {}
    for value in frame[column].unique().to_list():
        try:
            check(value)
        except ValueError as err:
            problems[value] = str(err)
    if problems:
        bad = frame.filter(pl.col(column).is_in(list(problems))).sort("line").row(0, named=True)
        raise SourceFormatError(
            f"{path}:{bad['line']}: {column} {bad[column]!r} {problems[bad[column]]} "
            f"({len(problems)} distinct bad value(s))"
        )


def header_lines(path: Path, *, stop: Callable[[str], bool]) -> list[str]:
    """Lines from the top of ``path`` up to the first one where ``stop`` is true (not kept).

    Decoded leniently: this only looks for version headers; :func:`read_tsv` checks the bytes.
    """
    lines = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if stop(line):
                break
            lines.append(line.rstrip("\n"))
    return lines
