"""Settings of a graph of its own, for tests that must know everything in their graph (conftest's
``own_graph_settings`` and module-scoped fixtures use it)."""

from __future__ import annotations

import pytest

from biokg.settings import Settings
from biokg.store.embedded import free_port


def fresh_graph_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings of an empty graph of its own: a fresh home and free ports."""
    return Settings.from_env(
        {
            "BIOKG_HOME": str(tmp_path_factory.mktemp("biokg-own-home")),
            "BIOKG_BOLT_PORT": str(free_port()),
            "BIOKG_HTTP_PORT": str(free_port()),
        }
    )
