"""How much hand-written reading the agent's front end holds: the counts issue 53 asks to lower.

The front end is what turns question text into a reading and linked names: every module of
``graph_agent/`` but the research, answer and diagnosis-ranking layers (listed below). Counted,
with the standard library's ``ast`` and ``tokenize`` so that the figures can be reproduced and
compared from commit to commit:

* guard branches: ``if`` statements whose body only leaves (``continue``, ``break``, ``return``
  with a constant or nothing): the skip and filter rules;
* word lists: literal sets, frozensets, tuples and lists of three strings or more, and strings
  ``.split()`` into three words or more (the hand-kept vocabularies);
* regexes: ``re.compile`` calls;
* quoted examples: double-quoted phrases of two characters or more in comments and docstrings.

Usage: ``python benchmarks/front_end_counts.py [--output json] [--root DIR]``; nothing asserts.
``--root`` counts another checkout's ``graph_agent/`` (``git archive f90ec17 graph_agent | tar -x
-C /tmp/old`` then ``--root /tmp/old/graph_agent``), so a change is compared by one method.
``--without-gate`` leaves out the Cypher gate (``gate*.py``), which checks the Cypher an LLM
writes, not question text.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "graph_agent"
#: modules that act on a reading, not make one
NOT_FRONT_END = frozenset(
    {
        "agent.py",
        "answer.py",
        "attributes.py",
        "checks.py",
        "evaluation.py",
        "evidence.py",
        "findings.py",
        "intersection.py",
        "llm.py",
        "llm_tools.py",
        "models.py",
        "prompts.py",
        "question_file.py",
        "ranking.py",
        "research.py",
        "runner.py",
        "searchers.py",
    }
)
#: diagnosis/ modules that read question text
READING_MODULES = ("question.py", "reading.py")
_QUOTED = re.compile(r"\"[^\"\n]{2,}\"|“[^”\n]{2,}”")


def front_end_files(root: Path = ROOT) -> list[Path]:
    """The front end's modules: graph_agent/ and its linking package, not diagnosis/."""
    found = [p for p in root.glob("*.py") if p.name not in NOT_FRONT_END]
    # the diagnosis layer's question reading (``reading.py`` before it moved to described.py)
    found += [*root.glob("linking/*.py"), *(root / "diagnosis" / n for n in READING_MODULES)]
    return sorted(p for p in found if p.exists())


def _leaves(body: list[ast.stmt]) -> bool:
    def leaving(stmt: ast.stmt) -> bool:
        if isinstance(stmt, ast.Continue | ast.Break):
            return True
        if isinstance(stmt, ast.Return):
            return stmt.value is None or isinstance(stmt.value, ast.Constant | ast.List)
        return False

    return all(leaving(s) for s in body)


def _strings(node: ast.AST) -> int:
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        return sum(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    return 0


def counts(path: Path) -> dict[str, int]:
    """The four counts of one module."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    guards = word_lists = regexes = 0
    docstrings: list[str] = []
    exported = {  # a package's __all__ names its modules' exports, no vocabulary
        id(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _leaves(node.body):
            guards += 1
        elif _strings(node) >= 3 and id(node) not in exported:
            word_lists += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name, owner = node.func.attr, node.func.value
            if name == "compile" and isinstance(owner, ast.Name) and owner.id == "re":
                regexes += 1
            elif (
                name == "split"
                and isinstance(owner, ast.Constant)
                and isinstance(owner.value, str)
                and len(owner.value.split()) >= 3
            ):
                word_lists += 1
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            docstrings += [doc] if doc else []
    comments = [
        t.string
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type == tokenize.COMMENT
    ]
    quoted = sum(len(_QUOTED.findall(text)) for text in (*docstrings, *comments))
    return {
        "guard_branches": guards,
        "word_lists": word_lists,
        "regexes": regexes,
        "quoted_examples": quoted,
        "lines": source.count("\n"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", choices=("table", "json"), default="table")
    parser.add_argument("--root", type=Path, default=ROOT, help="a graph_agent/ directory")
    parser.add_argument("--without-gate", action="store_true", help="leave out gate*.py")
    args = parser.parse_args()
    files = front_end_files(args.root)
    if args.without_gate:
        files = [p for p in files if not p.name.startswith("gate")]
    rows = {str(p.relative_to(args.root)): counts(p) for p in files}
    total = {k: sum(r[k] for r in rows.values()) for k in next(iter(rows.values()))}
    if args.output == "json":
        print(json.dumps({"modules": rows, "total": total}, indent=1))
        return
    print(f"{'module':32} {'guards':>7} {'lists':>6} {'regex':>6} {'quoted':>7} {'lines':>6}")
    for name, row in [*rows.items(), ("total", total)]:
        print(
            f"{name:32} {row['guard_branches']:7} {row['word_lists']:6} {row['regexes']:6}"
            f" {row['quoted_examples']:7} {row['lines']:6}"
        )


if __name__ == "__main__":
    main()
