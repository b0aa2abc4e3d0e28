"""The README's first screen and the docs' links: the two commands come first (and `.ci/run` runs
the test command among them), and every relative link in README.md and docs/*.md names a file
that exists and, with ``#anchor``, a heading of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: ``[text](target)`` outside code; targets with a scheme (https:, mailto:) are not checked.
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(m) for m in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def test_the_readme_opens_with_what_biokg_is_then_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = readme.splitlines()[:15]
    assert first_screen[0] == "# biokg"
    start = first_screen.index("```bash")
    block = first_screen[start + 1 : first_screen.index("```", start + 1)]
    commands = [line.split("#")[0].strip() for line in block]
    assert commands == ["bash scripts/quickstart.sh", "bash scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == "bash scripts/test.sh"  # CI runs exactly the README's test command
    assert "## What you get" in readme and "## Where to go next" in readme


def test_every_relative_link_in_the_readme_and_docs_resolves() -> None:
    broken = []
    for page in PAGES:
        text = _FENCE.sub("", page.read_text(encoding="utf-8"))
        for target in _LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []
    assert len(PAGES) >= 8  # README + using, agent, data, operations, neo4j, benchmarks, developing
