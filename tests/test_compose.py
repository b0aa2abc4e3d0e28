"""docker-compose.yml is parsed (no Docker engine here) and checked for what users rely on."""

from __future__ import annotations

from pathlib import Path

import yaml

COMPOSE = Path(__file__).resolve().parents[1] / "docker-compose.yml"


def test_neo4j_service_has_lts_image_ports_auth_volume_and_healthcheck() -> None:
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    neo4j = services["neo4j"]
    assert neo4j["image"].startswith("neo4j:5.26")
    assert {"7474:7474", "7687:7687"} <= set(neo4j["ports"])
    assert neo4j["environment"]["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD")
    assert any(v.startswith("neo4j-data:/data") for v in neo4j["volumes"])
    health = neo4j["healthcheck"]
    assert "cypher-shell" in " ".join(health["test"]) and health["retries"] >= 5


def test_worker_waits_for_healthy_neo4j_and_points_at_it() -> None:
    worker = yaml.safe_load(COMPOSE.read_text())["services"]["prefect-worker"]
    assert worker["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert worker["environment"]["BIOKG_NEO4J_URI"] == "bolt://neo4j:7687"


def test_api_serves_beyond_loopback_only_with_a_key_and_waits_for_neo4j() -> None:
    api = yaml.safe_load(COMPOSE.read_text())["services"]["api"]
    assert api["command"].startswith("biokg serve --host 0.0.0.0")
    # passed through, unset by default: `biokg serve` then refuses to start on 0.0.0.0
    assert api["environment"]["BIOKG_API_KEY"] == "${BIOKG_API_KEY:-}"
    assert api["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert "/health" in " ".join(api["healthcheck"]["test"])


def test_worker_runs_the_refresh_pool_and_keeps_its_snapshots() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    worker = compose["services"]["prefect-worker"]
    assert "--pool biokg" in worker["command"]  # the pool flows/deploy.py --pool sends to
    home = worker["environment"]["BIOKG_HOME"]
    assert any(v.endswith(f":{home}") for v in worker["volumes"])
    assert worker["volumes"][0].split(":")[0] in compose["volumes"]
    assert worker["depends_on"]["prefect-server"]["condition"] == "service_healthy"
