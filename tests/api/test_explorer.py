"""The explorer page in a real headless browser: Debian's chromium and chromedriver (installed
by scripts/test.sh, never downloaded by selenium), driven by selenium against the real app served
by uvicorn on a free loopback port, over the session's agent graph (tests/conftest.py).

Explicit waits with generous timeouts: the suite runs on a loaded 2-core machine, and an
answer streams from the real agent.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from biokg.api.app import create_app
from biokg.graph_agent.agent import GraphAgent
from biokg.settings import Settings
from biokg.store.embedded import free_port

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
VIAGRA = "CHEMBL.COMPOUND:CHEMBL192"  # sildenafil; brand name Viagra (openFDA) in the test set
PDE5A = "NCBIGene:8654"  # phosphodiesterase 5A, sildenafil's target in ChEMBL's mechanisms
WAIT_S = 90  # page steps: search, neighbourhood
ANSWER_WAIT_S = 180  # a streamed answer from the real agent on a loaded machine


def _serve(settings: Settings, agent: GraphAgent) -> Iterator[str]:
    """The real app under uvicorn in a thread on a free loopback port; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings, agent=agent), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not start on 127.0.0.1:{port}")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def api_key() -> str:
    return "explorer-test-key-0123456789"


@pytest.fixture(scope="module")
def keyed_url(agent: GraphAgent, settings: Settings, api_key: str) -> Iterator[str]:
    """The explorer of a server that wants the API key."""
    yield from _serve(dataclasses.replace(settings, api_key=api_key), agent)


@pytest.fixture(scope="module")
def open_url(agent: GraphAgent, settings: Settings) -> Iterator[str]:
    """The explorer of a loopback server without a key."""
    yield from _serve(dataclasses.replace(settings, api_key=None), agent)


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    """Headless system chromium with its console log kept (a fresh profile per test)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument("--window-size=1500,950")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def _console_errors(driver: WebDriver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _wait(driver: WebDriver, seconds: float = WAIT_S) -> WebDriverWait:
    return WebDriverWait(driver, seconds, poll_frequency=0.2)


def _open(driver: WebDriver, url: str) -> None:
    driver.get(url)
    _wait(driver).until(ec.text_to_be_present_in_element((By.ID, "status"), "ready"))


def _click_in_graph(driver: WebDriver, script: str, element_id: str) -> None:
    """Click the drawn graph where ``script`` (given the element) says the element is."""
    x, y = driver.execute_script(script, element_id)
    graph = driver.find_element(By.ID, "graph")
    size = graph.size  # offsets are from the element's centre
    ActionChains(driver).move_to_element_with_offset(
        graph, int(x - size["width"] / 2), int(y - size["height"] / 2)
    ).click().perform()


NODE_AT = (
    "const p = window.biokgExplorer.cy.getElementById(arguments[0]).renderedPosition();"
    "return [p.x, p.y];"
)
EDGE_AT = (
    "const p = window.biokgExplorer.cy.getElementById(arguments[0]).renderedMidpoint();"
    "return [p.x, p.y];"
)
OUT_OF = (  # [target id, edge id] of each drawn edge of a type out of a node
    "return window.biokgExplorer.cy.getElementById(arguments[0])"
    ".outgoers('edge').filter(e => e.data('type') === arguments[1])"
    ".map(e => [e.target().id(), e.id()]);"
)


def _search(driver: WebDriver, text: str, pick: str) -> None:
    box = driver.find_element(By.ID, "search")
    box.clear()
    box.send_keys(text)
    choice = f'#suggestions li[data-id="{pick}"]'
    _wait(driver).until(ec.element_to_be_clickable((By.CSS_SELECTOR, choice))).click()
    _wait(driver).until(ec.text_to_be_present_in_element((By.ID, "card-fields"), pick))


def _card(driver: WebDriver) -> dict[str, str]:
    terms = driver.find_elements(By.CSS_SELECTOR, "#card-fields dt")
    values = driver.find_elements(By.CSS_SELECTOR, "#card-fields dd")
    return {t.text: v.text for t, v in zip(terms, values, strict=True)}


def _claim_citing(driver: WebDriver, node: str) -> WebElement | None:
    claims = driver.find_elements(By.CSS_SELECTOR, "#claims li")
    return next((c for c in claims if node in c.get_attribute("data-nodes").split()), None)


def test_search_expand_ask_and_cited_evidence_with_the_key(
    browser: WebDriver, keyed_url: str, api_key: str, tmp_path: Path
) -> None:
    _open(browser, keyed_url)
    assert browser.find_element(By.ID, "key-form").is_displayed()  # asks before any call
    browser.find_element(By.ID, "key").send_keys(api_key + "\n")
    _wait(browser).until(ec.invisibility_of_element_located((By.ID, "key-form")))

    # search by brand name -> the card of sildenafil
    _search(browser, "Viagra", VIAGRA)
    card = _card(browser)
    assert card["id"] == VIAGRA and card["label"] == "Drug"
    assert "VIAGRA" in card["synonyms"].split("; ")
    assert "infores:chembl (" in card["sources"] and "infores:openfda (" in card["sources"]
    survey = browser.find_element(By.ID, "survey").text
    assert "TARGETS → Gene 1" in survey  # counts per type before any edge is drawn
    assert browser.execute_script("return window.biokgExplorer.cy.edges().length") == 0

    # click the node: its edges are drawn, PDE5A among its targets, captioned by symbol
    _click_in_graph(browser, NODE_AT, VIAGRA)
    _wait(browser).until(lambda d: d.execute_script(OUT_OF, VIAGRA, "TARGETS"))
    [(target, edge_id)] = browser.execute_script(OUT_OF, VIAGRA, "TARGETS")
    assert target == PDE5A
    caption = browser.execute_script(
        "return window.biokgExplorer.cy.getElementById(arguments[0]).data('caption')", PDE5A
    )
    assert caption == "PDE5A"  # Gene's caption is its symbol (schema/nodes.yaml display)

    # click the edge: its provenance
    _click_in_graph(browser, EDGE_AT, edge_id)
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "provenance-fields"), edge_id))
    provenance = browser.find_element(By.ID, "provenance-fields").text
    assert "infores:chembl" in provenance and "chembl.sqlite#" in provenance

    # ask: the steps stream in, then a claim citing PDE5A lights up its edge
    browser.find_element(By.ID, "question").send_keys("What does Viagra target?\n")
    _wait(browser, ANSWER_WAIT_S).until(lambda d: _claim_citing(d, PDE5A))
    steps = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#steps li")]
    assert steps[0].startswith("linking: Viagra → ") and VIAGRA in steps[0]
    assert steps[1].startswith("plan: ") and steps[-1].startswith("answer: answered")
    assert any(s.startswith("query ") for s in steps[2:-1])
    claim = _claim_citing(browser, PDE5A)
    cited_edges = claim.get_attribute("data-edges").split()
    assert cited_edges and "chembl.sqlite#" in claim.text
    claim.click()
    for edge in cited_edges:
        ends = browser.execute_script(
            "const e = window.biokgExplorer.cy.getElementById(arguments[0]);"
            "if (!e.hasClass('cited')) return null;"
            "return [e.source().id(), e.data('type'), e.target().id()];",
            edge,
        )
        assert ends == [VIAGRA, "TARGETS", PDE5A]
    faded = browser.execute_script(
        "return window.biokgExplorer.cy.elements('.faded').map(e => e.id())"
    )
    assert PDE5A not in faded and not set(cited_edges) & set(faded)

    shot = tmp_path / "explorer.png"
    assert browser.save_screenshot(str(shot))
    print(f"screenshot: {shot}")
    assert _console_errors(browser) == []


def test_without_a_key_on_loopback_the_page_asks_for_none(
    browser: WebDriver, open_url: str
) -> None:
    _open(browser, open_url)
    assert not browser.find_element(By.ID, "key-form").is_displayed()
    _search(browser, "sildenafil", VIAGRA)
    assert _card(browser)["id"] == VIAGRA
    assert _console_errors(browser) == []
