"""Every third-party module the package imports is declared in pyproject.toml.

A user who installs biokg with ``pip install -e .`` into an environment of their own gets what
``biokg ask`` and ``biokg serve`` import; the imports are read from the source with ``ast`` (also
the ones inside functions), mapped to their distributions by importlib.metadata.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("biokg", "graph_agent", "ingest", "flows", "schema", "cypher")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_modules() -> dict[str, set[Path]]:
    found: dict[str, set[Path]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.partition(".")[0], set()).add(path.relative_to(ROOT))
    return found


def test_every_imported_third_party_module_is_a_declared_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = [d for group in project.get("optional-dependencies", {}).values() for d in group]
    declared = {
        _normal(re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0])
        for d in [*project["dependencies"], *extras]
    }
    distributions = importlib.metadata.packages_distributions()
    missing = {}
    for module, files in _imported_modules().items():
        if module in sys.stdlib_module_names or module in ("biokg", "__future__"):
            continue
        names = {_normal(d) for d in distributions.get(module, [module])}
        if not names & declared:
            missing[module] = sorted(str(f) for f in files)
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
