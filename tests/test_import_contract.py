"""The import contract in ``.importlinter`` holds: graph_agent and ingest never import each
other, entry points sit on top, shared layers below, and no package has an import cycle
(``TYPE_CHECKING`` imports included). Run through ``scripts/lint_imports.py``, which lays out
pyproject.toml's package-dir mapping so that lint-imports sees every module."""

from __future__ import annotations

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
