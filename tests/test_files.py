"""Files made once across processes (biokg.core.files.made_once): what a model export relies on when
a build, a server or parallel test workers find it missing at the same time."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from biokg.core.files import atomic_path, made_once

pytestmark = pytest.mark.unit


def _make_slowly(target: Path) -> None:
    with (target.parent / "makers.log").open("a") as log:
        log.write("made\n")
    with atomic_path(target) as partial:
        partial.mkdir()
        time.sleep(0.5)  # the other process arrives while this one makes it
        (partial / "model.bin").write_text("weights")


def _prepare(target: str) -> str:
    path = Path(target)
    made_once(path, (path / "model.bin").is_file, _make_slowly)
    return (path / "model.bin").read_text()


def test_two_processes_that_find_a_model_missing_make_it_once(tmp_path: Path) -> None:
    target = tmp_path / "models" / "static"
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        read = pool.map(_prepare, [str(target)] * 2)
    assert read == ["weights", "weights"]
    assert (tmp_path / "models" / "makers.log").read_text() == "made\n"
    assert made_once(target, lambda: True, _make_slowly) == target  # ready: nothing made
    assert (tmp_path / "models" / "makers.log").read_text() == "made\n"
