"""schema/'s categories, predicates and predicate qualifiers exist in the Biolink Model release
the exports target (the ``biolink-model`` package's own YAML, 4.4.6).

KGX validation (issue 27) reported three predicates that Biolink 4 dropped
(``negatively_regulates``, ``positively_regulates``, ``has_information_content``); this test
reads the same model the validator reads, so a predicate Biolink does not hold fails here
rather than in a user's KGX tool.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import pytest
import yaml

from biokg.schema import load_schema

pytestmark = pytest.mark.unit


@cache
def _model() -> dict[str, Any]:
    path = files("biolink_model") / "schema" / "biolink_model.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _camel(name: str) -> str:
    return "".join(word[0].upper() + word[1:] for word in name.split())


def _ancestors(table: dict[str, Any], name: str) -> list[str]:
    chain = []
    while name:
        chain.append(name)
        name = table[name].get("is_a") or ""
    return chain


def _permissible(enum: dict[str, Any]) -> set[str]:
    return set(enum.get("permissible_values") or {})


def test_the_model_read_is_the_release_the_exports_name() -> None:
    assert _model()["version"] == "4.4.6"


def test_every_category_is_a_named_thing_class() -> None:
    classes = {_camel(name): name for name in _model()["classes"]}
    for label, spec in load_schema().labels.items():
        prefix, _, local = spec.category.partition(":")
        assert prefix == "biolink" and local in classes, f"{label}: {spec.category}"
        assert "named thing" in _ancestors(_model()["classes"], classes[local]), label


def test_every_predicate_is_a_current_biolink_predicate() -> None:
    slots = _model()["slots"]
    for rel, spec in load_schema().types.items():
        prefix, _, local = spec.predicate.partition(":")
        name = local.replace("_", " ")
        assert prefix == "biolink" and name in slots, f"{rel}: {spec.predicate} not in Biolink"
        assert "related to" in _ancestors(slots, name), f"{rel}: {name} is not a predicate"
        assert not slots[name].get("deprecated"), f"{rel}: {name} is deprecated"


def test_every_predicate_qualifier_is_a_qualifier_slot_with_an_allowed_value() -> None:
    slots, enums = _model()["slots"], _model()["enums"]
    qualified = {r: s for r, s in load_schema().types.items() if s.predicate_qualifiers}
    assert {"NEGATIVELY_REGULATES", "POSITIVELY_REGULATES"} <= set(qualified)
    for rel, spec in qualified.items():
        for slot, value in spec.predicate_qualifiers.items():
            name = slot.replace("_", " ")
            assert name in slots and "qualifier" in _ancestors(slots, name), f"{rel}: {slot}"
            assert value in _permissible(enums[slots[name]["range"]]), f"{rel}: {value}"


def test_every_answer_group_is_a_biolink_class_its_members_descend_from() -> None:
    classes = _model()["classes"]
    names = {_camel(name): name for name in classes}
    schema = load_schema()
    assert schema.answer_groups, "nodes.yaml declares no answer_groups"
    for group, members in schema.answer_groups.items():
        assert group in names, f"answer_groups.{group} is no Biolink class"
        for label in members:
            local = schema.labels[label].category.partition(":")[2]
            lineage = _ancestors(classes, names[local])
            mixins = {m for c in lineage for m in classes[c].get("mixins") or ()}
            assert names[group] in {*lineage, *mixins}, f"{label} is no {group}"
