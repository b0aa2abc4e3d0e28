"""Validate a ``biokg export kgx`` folder with the kgx tool's own Validator, offline.

Run with the kgx environment's Python (``scripts/venv.sh kgx``), not the project's:
``python tests/kgx/validate.py DIR [DIR ...]``, each folder's format read from its files
(``nodes.jsonl`` or ``nodes.tsv``). Prints one JSON object: for each folder, the errors kgx
reports, by level, error type and message, with how many records each covers (one process for
every folder: importing kgx and reading the model takes seconds).

kgx 2.6.0 downloads the Biolink Model and its JSON-LD context at import time; offline, bmt's
``Toolkit`` is pointed at the ``biolink-model`` package's YAML (4.4.6, the release schema/
targets) and kgx's context at the same package's prefix map, plus the export's own
``curie_map`` for the prefixes Biolink lacks (``DAILYMED``, ``MEDDRA.PT``;
docs/decisions/0022-kgx-export.md). Nothing else is changed: categories, predicates, required
slots and id prefixes are checked as kgx checks them.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from importlib.resources import files
from pathlib import Path

import bmt.toolkit
import yaml

MODEL = str(files("biolink_model") / "schema" / "biolink_model.yaml")
PREFIX_MAP = files("biolink_model") / "prefixmaps" / "biolink_model_prefix_map.json"
bmt.toolkit.Toolkit.__init__.__defaults__ = (MODEL, {"predicate mappings": []})

import kgx.config  # noqa: E402  (after bmt is pointed at the local model)
from kgx.transformer import Transformer  # noqa: E402
from kgx.validator import Validator  # noqa: E402


def context(folder: Path) -> dict[str, str]:
    """Biolink's prefixes, then the export's own for prefixes Biolink does not name."""
    prefixes = json.loads(PREFIX_MAP.read_text(encoding="utf-8"))
    prefixes.update(yaml.safe_load(Path(MODEL).read_text(encoding="utf-8"))["prefixes"])
    metadata = json.loads((folder / "graph_metadata.json").read_text(encoding="utf-8"))
    for prefix, uri in metadata["curie_map"].items():
        prefixes.setdefault(prefix, uri)
    return prefixes


def validate(folder: Path) -> list[dict[str, object]]:
    """kgx's errors for the folder's nodes and edges files."""
    [fmt] = [f for f in ("jsonl", "tsv") if (folder / f"nodes.{f}").is_file()]
    for name in kgx.config.get_config()["jsonld-context"]:
        kgx.config.jsonld_context_map[name] = context(folder)
    validator = Validator()
    Transformer(stream=True).transform(
        input_args={
            "filename": [str(folder / f"nodes.{fmt}"), str(folder / f"edges.{fmt}")],
            "format": fmt,
        },
        output_args={"format": "null"},
        inspector=validator,
    )
    found: Counter[tuple[str, str, str]] = Counter()
    for level, types in validator.get_errors().items():
        for error_type, messages in types.items():
            for message, ids in messages.items():
                found[(str(level), str(error_type), message)] += len(set(ids))
    return [
        {"level": level, "type": error_type, "message": message, "records": n}
        for (level, error_type, message), n in sorted(found.items())
    ]


if __name__ == "__main__":
    print(json.dumps({folder: validate(Path(folder)) for folder in sys.argv[1:]}))
