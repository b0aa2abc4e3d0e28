"""Typed templates: relationship types are written into the query only when schema/ has them."""

from __future__ import annotations

import pytest

from biokg.graph_agent.runner import QueryRunner


def test_a_chain_type_that_is_no_schema_type_is_refused_before_any_query() -> None:
    runner = QueryRunner(store=None)  # type: ignore[arg-type]  # refused before the store is used
    with pytest.raises(ValueError, match="'HAS_PHENOTYPE\\]-\\(\\) DETACH DELETE"):
        runner.template(
            "agent_chain",
            {"seed": "HP:0000001"},
            step="depth:test",
            types={"first": "ASSOCIATED_WITH", "second": "HAS_PHENOTYPE]-() DETACH DELETE"},
        )
    assert runner.log == []
