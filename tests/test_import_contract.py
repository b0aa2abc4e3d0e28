"""The import contract in ``.importlinter`` holds: graph_agent and ingest never import each
other, entry points sit on top, shared layers below, and no package has an import cycle
(``TYPE_CHECKING`` imports included). Run through ``scripts/lint_imports.py``, which lays out
pyproject.toml's package-dir mapping so that lint-imports sees every module. The picture of the
floor-and-roof contract in docs/developing.md draws each module on the storey the contract gives
it."""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.unit


def test_import_contract_is_kept() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "lint_imports.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def _storeys() -> list[list[str]]:
    """The floor-and-roof contract's layers, top first, each a list of module names."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    layers = config["importlinter:contract:floor-and-roof"]["layers"].split("\n")
    return [re.split(r"\s*[:|]\s*", layer.strip()) for layer in layers if layer.strip()]


def test_the_layers_picture_draws_each_module_on_its_storey() -> None:
    page = (ROOT / "docs" / "developing.md").read_text(encoding="utf-8")
    section = page.split("\n## Layers\n", 1)[1]
    drawing = section.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    # the storeys are the left-hand columns; a build's path on the right names modules too
    width = drawing[0].index("a build's path")
    picture = [line[:width] for line in drawing]
    # a storey runs from its label's line to the next label's
    starts = [i for i, line in enumerate(picture) if line.startswith(("ROOF", "MIDDLE", "FLOOR"))]
    bounds = list(zip(starts, [*starts[1:], len(picture)], strict=True))
    storeys = _storeys()
    assert len(bounds) == len(storeys) == 3
    misplaced = []
    for (start, end), modules in zip(bounds, storeys, strict=True):
        for module in modules:
            word = re.compile(rf"\b{module}\b")
            first = next((i for i, line in enumerate(picture) if word.search(line)), None)
            if first is None or not start <= first < end:
                misplaced.append(module)
    assert misplaced == [], "docs/developing.md's Layers picture disagrees with .importlinter"
