"""The explorer page in a real headless browser: Debian's chromium and chromedriver (installed
by scripts/test.sh, never downloaded by selenium), driven by selenium against the real app served
by uvicorn on a free loopback port, over the session's agent graph (tests/conftest.py).

One browser serves the module (starting one costs seconds); each test opens its own page.
Explicit waits with generous timeouts: the suite runs on a loaded 2-core machine, and an
answer streams from the real agent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from live_server import serve
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from biokg.core.settings import Settings
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.diagnosis.service import diagnose

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
VIAGRA = "CHEMBL.COMPOUND:CHEMBL192"  # sildenafil; brand name Viagra (openFDA) in the test set
PDE5A = "NCBIGene:8654"  # phosphodiesterase 5A, sildenafil's target in ChEMBL's mechanisms
MARFAN = "OMIM:154700"  # Marfan syndrome; MONDO bridges it to ORPHA:558
MARFAN_PHENOTYPES = "What are the phenotypes of Marfan syndrome?"  # 100+ phenotypes: large
MARFAN_DOMINANT = "Is Marfan syndrome an autosomal dominant disease?"  # HPO says it is
AUTOSOMAL_DOMINANT = "HP:0000006"
MARFAN_FEATURES = [
    "HP:0001166",
    "HP:0001083",
    "HP:0002616",
]  # arachnodactyly, ectopia lentis, aortic root aneurysm
SEIZURE = "HP:0001250"
HPOA_URL = (
    "https://github.com/obophenotype/human-phenotype-ontology/releases/latest/download/"
    "phenotype.hpoa"
)
OMIM_SET = "http://purl.obolibrary.org/obo/mondo/mappings/mondo_exactmatch_omim.sssom.tsv"
CC0 = "https://creativecommons.org/publicdomain/zero/1.0/"
ANSWER_PAGE = 20  # explorer.js: answer nodes drawn at first and per "show more"
WAIT_S = 90  # page steps: search, neighbourhood
ANSWER_WAIT_S = 180  # a streamed answer from the real agent on a loaded machine


@pytest.fixture(scope="module")
def api_key() -> str:
    return "explorer-test-key-0123456789"


@pytest.fixture(scope="module")
def keyed_url(agent: GraphAgent, settings: Settings, api_key: str) -> Iterator[str]:
    """The explorer of a server that wants the API key."""
    yield from serve(dataclasses.replace(settings, api_key=api_key), agent)


@pytest.fixture(scope="module")
def open_url(agent: GraphAgent, settings: Settings) -> Iterator[str]:
    """The explorer of a loopback server without a key."""
    yield from serve(dataclasses.replace(settings, api_key=None), agent)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """Headless system chromium with its console log kept, shared by the module's tests."""
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
    """The page's errors since the last call (reading the log empties it)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _wait(driver: WebDriver, seconds: float = WAIT_S) -> WebDriverWait:
    return WebDriverWait(driver, seconds, poll_frequency=0.2)


def _open(driver: WebDriver, url: str) -> None:
    driver.get(url)
    _wait(driver).until(ec.text_to_be_present_in_element((By.ID, "status"), "ready"))


def _shared(base: str, **state: str | int) -> str:
    """The URL of a view: ``entity``, ``q`` (question), ``claim`` (index in the answer), or
    ``dx`` / ``not`` (observed / excluded HPO ids) and ``disease`` (the one drawn)."""
    return f"{base}/?{urlencode(state)}"


def _state(driver: WebDriver) -> dict[str, str]:
    return {k: v for k, [v] in parse_qs(urlsplit(driver.current_url).query).items()}


def _claims(driver: WebDriver) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, "#claims li.claim")


def _answered(driver: WebDriver) -> bool:
    return "claim" in driver.find_element(By.ID, "status").text and bool(_claims(driver))


def _links(driver: WebDriver, css: str) -> dict[str, str]:
    """Text -> href of the links under ``css``."""
    return dict(
        driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])]"
            ".map(a => [a.textContent, a.getAttribute('href')]);",
            f"{css} a",
        )
    )


def _drawn(driver: WebDriver) -> set[str]:
    """The ids of the drawn nodes (none while the page starts)."""
    return set(
        driver.execute_script(
            "const page = window.biokgExplorer;return page ? page.cy.nodes().map(n => n.id()) : [];"
        )
    )


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
    return next((c for c in _claims(driver) if node in c.get_attribute("data-nodes").split()), None)


def test_search_expand_ask_and_cited_evidence_with_the_key(
    browser: WebDriver, keyed_url: str, api_key: str, tmp_path: Path
) -> None:
    _open(browser, keyed_url)
    assert browser.find_element(By.ID, "key-form").is_displayed()  # asks before any call
    browser.find_element(By.ID, "key").send_keys(api_key + "\n")
    _wait(browser).until(ec.invisibility_of_element_located((By.ID, "key-form")))

    # search by brand name -> the card of sildenafil
    _search(browser, "Viagra", VIAGRA)
    assert _state(browser) == {"entity": VIAGRA}
    _wait(browser).until(lambda d: _drawn(d) == {VIAGRA})  # card, counts, then the node
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
    question = "What does Viagra target?"
    index = claim.get_attribute("data-index")
    assert _state(browser) == {"entity": VIAGRA, "q": question, "claim": index}
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

    # back: the claim unselected, then the entity before the question; forward: the answer
    browser.back()
    _wait(browser).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#claims li.active"))
    browser.back()
    _wait(browser).until(lambda d: not _claims(d) and _drawn(d) == {VIAGRA})
    assert _state(browser) == {"entity": VIAGRA}
    assert browser.find_element(By.ID, "summary").text == ""
    browser.forward()
    _wait(browser).until(lambda d: _claim_citing(d, PDE5A))
    assert _state(browser) == {"entity": VIAGRA, "q": question}
    assert _console_errors(browser) == []


def test_without_a_key_on_loopback_the_page_asks_for_none(
    browser: WebDriver, open_url: str
) -> None:
    _open(browser, open_url)
    assert not browser.find_element(By.ID, "key-form").is_displayed()
    _search(browser, "sildenafil", VIAGRA)
    assert _card(browser)["id"] == VIAGRA
    assert _console_errors(browser) == []


def test_a_shared_url_restores_the_entity_the_answer_and_the_claim(
    browser: WebDriver, open_url: str, agent: GraphAgent
) -> None:
    answer = agent.ask(MARFAN_PHENOTYPES)
    claim = next(i for i, c in enumerate(answer.claims) if i >= 3 and c.edge_ids)
    browser.get(_shared(open_url, entity=MARFAN, q=MARFAN_PHENOTYPES, claim=claim))
    _wait(browser, ANSWER_WAIT_S).until(_answered)
    _wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#claims li.active"))

    # the entity's card, the question, its answer and the selected claim, all from the URL
    assert _card(browser)["id"] == MARFAN
    assert browser.find_element(By.ID, "question").get_attribute("value") == MARFAN_PHENOTYPES
    texts = [li.find_element(By.CSS_SELECTOR, "div").text for li in _claims(browser)]
    assert len(texts) < len(answer.claims)  # listed a few per type, the rest behind "show more"
    assert texts == [c.text for c in answer.claims][: len(texts)]
    [active] = browser.find_elements(By.CSS_SELECTOR, "#claims li.active")
    assert active.get_attribute("data-index") == str(claim)
    cited = browser.execute_script(
        "return window.biokgExplorer.cy.elements('.cited').map(e => e.id())"
    )
    assert set(cited) == {*answer.claims[claim].node_ids, *answer.claims[claim].edge_ids}
    assert not browser.find_element(By.ID, "verdict").is_displayed()  # not a yes/no question

    # large: the question's entities and the first answers drawn, grouped in rings by type,
    # no two captions overlapping; "show more" draws the next ones
    seeds = {n.id for n in answer.evidence.nodes} - {n.id for n in answer.answers}
    assert len(answer.answers) > 2 * ANSWER_PAGE and MARFAN in seeds
    first = {*seeds, *(n.id for n in answer.answers[:ANSWER_PAGE])}
    assert _drawn(browser) == first | set(answer.claims[claim].node_ids)
    assert _overlapping_captions(browser) == []
    browser.find_element(By.CSS_SELECTOR, "#more-nodes button").click()
    _wait(browser).until(lambda d: len(_drawn(d)) > len(first))
    assert _drawn(browser) >= {*first, *(n.id for n in answer.answers[: 2 * ANSWER_PAGE])}
    assert len(_drawn(browser)) <= len(seeds) + 2 * ANSWER_PAGE + 2
    assert _overlapping_captions(browser) == []
    lit = browser.execute_script(  # the claim stays lit: what was drawn later is faded
        "const cy = window.biokgExplorer.cy;"
        "return [cy.elements('.cited').map(e => e.id()), cy.nodes().not('.faded').map(n => n.id())]"
    )
    assert set(lit[0]) == set(cited) and set(lit[1]) == set(answer.claims[claim].node_ids)
    group = browser.find_element(By.CSS_SELECTOR, "#claims .claim-group")
    assert group.find_element(By.TAG_NAME, "h3").text == f"Phenotype · {len(answer.claims)} claims"
    shown = len(_claims(browser))
    group.find_element(By.CSS_SELECTOR, "button.more").click()
    assert len(_claims(browser)) > shown

    # another claim, then back to the shared one: the answer is not asked and drawn again
    drawn = _drawn(browser)
    other = next(li for li in _claims(browser) if li.get_attribute("data-index") != str(claim))
    other.click()
    assert _state(browser)["claim"] == other.get_attribute("data-index")
    browser.back()
    _wait(browser).until(lambda d: _state(d).get("claim") == str(claim))
    _wait(browser).until(
        lambda d: (
            [
                li.get_attribute("data-index")
                for li in d.find_elements(By.CSS_SELECTOR, "#claims li.active")
            ]
            == [str(claim)]
        )
    )
    assert _drawn(browser) == drawn
    assert _console_errors(browser) == []


def test_ids_records_mapping_sets_and_licences_link_where_they_resolve(
    browser: WebDriver, open_url: str
) -> None:
    browser.get(_shared(open_url, entity=MARFAN))
    _wait(browser).until(lambda d: _drawn(d) == {MARFAN})  # card, counts, then the node
    served = browser.execute_async_script(
        "fetch('/explorer/links').then(r => r.json()).then(arguments[0])"
    )
    assert served["resolvers"]["OMIM"] == "https://bioregistry.io/omim:{id}"
    assert "MEDDRA.PT" not in served["resolvers"]  # ours: no registry resolves it
    # ChEMBL names its file by a pattern (chembl_NN_sqlite.tar.gz): no file URL to link to
    assert "infores:chembl" not in served["record_files"]
    assert _links(browser, "#card-fields")[MARFAN] == "https://bioregistry.io/omim:154700"

    # the MONDO bridge to ORPHA:558: its records, mapping sets and licence as links
    _tap(browser, MARFAN)
    same_as = (
        "return window.biokgExplorer.cy.edges().filter(e => e.data('type') === 'SAME_AS'"
        " && e.target().id() === 'ORPHA:558').map(e => e.id())"
    )
    _wait(browser).until(lambda d: d.execute_script(same_as))
    [edge] = browser.execute_script(same_as)
    twins = {r.text for r in browser.find_elements(By.CSS_SELECTOR, "#survey td:last-child")}
    assert twins == {"", "ORPHA:558"}  # the entity's own counts, then its twin's
    assert _links(browser, "#survey")["ORPHA:558"] == "https://bioregistry.io/orphanet:558"
    unnamed = browser.execute_script(
        "return window.biokgExplorer.cy.nodes().filter(n => n.data('caption') === n.id())"
        ".map(n => n.id())"
    )
    assert unnamed == []  # the twin and its neighbours are drawn with their names
    _tap(browser, edge)
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "provenance-fields"), edge))
    links = _links(browser, "#provenance-fields")
    assert links[MARFAN] == "https://bioregistry.io/omim:154700"
    assert links["ORPHA:558"] == "https://bioregistry.io/orphanet:558"
    [omim_record] = [t for t in links if t.startswith("mondo_exactmatch_omim.sssom.tsv:")]
    assert links[omim_record] == OMIM_SET  # the record's file: the mapping set itself
    assert links[OMIM_SET] == OMIM_SET and links[CC0] == CC0
    assert links["MONDO:0007947"] == "https://bioregistry.io/mondo:0007947"
    provenance = browser.find_element(By.ID, "provenance-fields").text
    assert "infores:mondo" in provenance and "semapv:ManualMappingCuration" in provenance
    assert not {"infores:mondo", "semapv:ManualMappingCuration"} & set(links)  # no resolver

    # a claim's HPO record links to the release file it is a line of
    browser.get(_shared(open_url, q=MARFAN_DOMINANT))
    _wait(browser, ANSWER_WAIT_S).until(_answered)
    links = _links(browser, "#claims")
    [record] = [t for t in links if t.startswith("phenotype.hpoa#L")]
    assert links[record] == HPOA_URL
    assert links[AUTOSOMAL_DOMINANT] == "https://bioregistry.io/hp:0000006"
    assert all(
        a.get_attribute("target") == "_blank" and "noopener" in a.get_attribute("rel")
        for a in browser.find_elements(By.CSS_SELECTOR, "#claims a, #provenance-fields a")
    )
    assert _console_errors(browser) == []


def test_a_yes_no_question_shows_its_verdict(browser: WebDriver, open_url: str) -> None:
    browser.get(_shared(open_url, q=MARFAN_DOMINANT))
    _wait(browser, ANSWER_WAIT_S).until(_answered)
    verdict = browser.find_element(By.ID, "verdict")
    assert verdict.is_displayed() and verdict.text == "Verdict: yes"
    assert "yes" in verdict.get_attribute("class").split()
    assert any(AUTOSOMAL_DOMINANT in li.get_attribute("data-nodes") for li in _claims(browser))
    assert not browser.find_element(By.ID, "card").is_displayed()  # no entity in the URL
    assert _console_errors(browser) == []


def _ranked(driver: WebDriver) -> list[str]:
    return [
        li.get_attribute("data-disease")
        for li in driver.find_elements(By.CSS_SELECTOR, "#dx-ranking li")
    ]


@pytest.mark.slow
def test_a_shared_diagnosis_ranks_and_draws_each_diseases_cited_evidence(
    browser: WebDriver, open_url: str, agent: GraphAgent
) -> None:
    expected = diagnose(agent.store, agent.cache_dir, MARFAN_FEATURES, [SEIZURE], top=10)
    marfan = next(e for e in expected.ranking if MARFAN in e.ids)
    shared = {"dx": ",".join(MARFAN_FEATURES), "not": SEIZURE, "disease": marfan.id}
    browser.get(_shared(open_url, **shared))
    _wait(browser, ANSWER_WAIT_S).until(lambda d: len(_ranked(d)) == len(expected.ranking))

    # the ranking is the API's, in its order; the shared disease is selected and drawn
    assert _ranked(browser) == [e.id for e in expected.ranking]
    [active] = browser.find_elements(By.CSS_SELECTOR, "#dx-ranking li.active")
    assert active.get_attribute("data-disease") == marfan.id
    assert f"score {marfan.score:.2f} = prior {marfan.prior:.2f}" in active.text  # stated apart
    assert "ORPHA:558" in _links(browser, "#dx-ranking li.active")  # its twins, as links
    cited = [ev for ev in marfan.evidence if ev.edge]
    assert {ev.term for ev in cited} >= set(MARFAN_FEATURES)
    drawn = _drawn(browser)
    assert {marfan.id, *(ev.term for ev in marfan.evidence)} <= drawn
    assert {ev.disease_term for ev in cited} <= drawn
    edges = set(browser.execute_script("return window.biokgExplorer.cy.edges().map(e => e.id())"))
    assert {ev.edge for ev in cited} <= edges  # every cited annotation edge, by its graph id
    met_elsewhere = [ev for ev in cited if ev.term != ev.disease_term]
    assert all(f"meets:{ev.term}>{ev.disease_term}" in edges for ev in met_elsewhere)

    # an annotation edge's provenance links its record to the HPO release file
    first = cited[0]
    _tap(browser, first.edge)
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "provenance-fields"), first.edge))
    links = _links(browser, "#provenance-fields")
    assert links[first.source_record] == HPOA_URL
    assert first.source and first.source in browser.find_element(By.ID, "provenance-fields").text

    # another disease from the list, then back: the shared one again, not ranked anew
    other = next(li for li in browser.find_elements(By.CSS_SELECTOR, "#dx-ranking li")
                 if li.get_attribute("data-disease") != marfan.id)  # fmt: skip
    other.click()
    assert _state(browser)["disease"] == other.get_attribute("data-disease")
    assert other.get_attribute("data-disease") in _drawn(browser)
    browser.back()
    _wait(browser).until(lambda d: marfan.id in _drawn(d) and _state(d)["disease"] == marfan.id)
    assert _console_errors(browser) == []


def test_a_diagnosis_reads_phenotypes_written_as_names(
    browser: WebDriver, open_url: str, agent: GraphAgent
) -> None:
    _open(browser, open_url)
    names = {"HP:0001166": "Arachnodactyly", "HP:0001083": "Ectopia lentis", SEIZURE: "Seizure"}
    browser.find_element(By.ID, "dx-observed").send_keys("arachnodactyly, Ectopia lentis")
    browser.find_element(By.ID, "dx-excluded").send_keys("seizure")
    browser.find_element(By.CSS_SELECTOR, "#dx-form button").click()
    _wait(browser, ANSWER_WAIT_S).until(lambda d: _ranked(d))
    assert _state(browser)["dx"] == "HP:0001166,HP:0001083" and _state(browser)["not"] == SEIZURE
    expected = diagnose(
        agent.store, agent.cache_dir, ["HP:0001166", "HP:0001083"], [SEIZURE], top=10
    )
    assert _ranked(browser) == [e.id for e in expected.ranking]
    read = browser.find_element(By.ID, "dx-read").text
    assert all(f"{term} {name}" in read for term, name in names.items())
    browser.find_element(By.ID, "dx-observed").clear()
    browser.find_element(By.ID, "dx-observed").send_keys("quantum ribosomal choreography")
    browser.find_element(By.CSS_SELECTOR, "#dx-form button").click()
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "status"), "no phenotype named"))
    assert _console_errors(browser) == []


OVERLAPS = """
const boxes = window.biokgExplorer.cy.nodes()
  .map(n => [n.id(), n.boundingBox({includeLabels: true})]);
const out = [];
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
  const [a, b] = [boxes[i][1], boxes[j][1]];
  if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) {
    out.push([boxes[i][0], boxes[j][0]]);
  }
}
return out;
"""


def _tap(driver: WebDriver, element_id: str) -> None:
    """Tap a drawn node or edge as a click would (the first test clicks by position)."""
    driver.execute_script(
        "window.biokgExplorer.cy.getElementById(arguments[0]).emit('tap')", element_id
    )


def _overlapping_captions(driver: WebDriver) -> list[list[str]]:
    """Pairs of drawn nodes whose boxes, captions included, overlap."""
    return driver.execute_script(OVERLAPS)
