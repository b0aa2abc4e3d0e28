"""Check the import contract in ``.importlinter`` with import-linter's ``lint-imports``.

pyproject.toml maps top-level folders (``ingest/``, ``graph_agent/``, ...) into the one import
package ``biokg``; import-linter (grimp) finds a package's modules by walking its folder, so it
would see only ``biokg/``. This script lays the mapping out as symlinks in a temporary folder,
exactly as ``[tool.setuptools] package-dir`` says, and runs ``lint-imports`` there.

Usage: ``python scripts/lint_imports.py`` (exit status and output are lint-imports').
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_tree(target: Path, root: Path = ROOT) -> Path:
    """Symlink the ``biokg`` package as installed into ``target``; returns ``target / 'biokg'``.

    Only mappings one level below ``biokg`` are linked: deeper ones (``biokg.ingest.sources``)
    already sit inside their parent's folder.
    """
    setup = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping: dict[str, str] = setup["package-dir"]
    package = target / "biokg"
    package.mkdir()
    for entry in (root / mapping["biokg"]).iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, folder in mapping.items():
        if name.count(".") == 1:
            link = package / name.split(".")[1]
            if not link.exists():
                link.symlink_to(root / folder)
    return package


def main() -> int:
    """Run lint-imports over the laid-out package; its exit status."""
    executable = Path(sys.executable).with_name("lint-imports")
    with tempfile.TemporaryDirectory(prefix="biokg-imports-") as folder:
        package_tree(Path(folder))
        env = {**os.environ, "PYTHONPATH": folder}
        command = [str(executable), str(ROOT / ".importlinter"), "--no-cache"]
        return subprocess.run(command, cwd=folder, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
