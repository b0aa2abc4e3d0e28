"""openFDA online fetching against a real loopback HTTP server (no network here).

The server answers like api.fda.gov: drug/label pages built from the 500 real harmonized product
records of ../shared/data/openfda (as openFDA builds each label's ``openfda`` block from them),
``Link: <...search_after=...>; rel="next"`` headers, one 429, a 404 for no matches, and the bulk
download index with zipped partitions.
"""

from __future__ import annotations

import io
import itertools
import json
import shutil
import threading
import time
import urllib.parse
import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from graph_state import snapshot
from offline_read import shared_sample
from typer.testing import CliRunner

from biokg.cli.app import app
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.errors import ConfigError, FetchError, RetryableError, SourceFormatError
from biokg.ingest.build import build
from biokg.ingest.online import openfda as openfda_fetch
from biokg.ingest.online.openfda import RequestBudget, fetch_api, fetch_bulk
from biokg.ingest.sources import openfda

DATA = shared_sample("openfda")[openfda.SAMPLE_FOLDER]
LAST_UPDATED = "2024-05-01"
KEY = "test-key-123"


def _label(product: dict) -> dict:
    """A drug/label record whose ``openfda`` block is the harmonized product's fields."""
    ingredients = product["unii_indexing"] if isinstance(product["unii_indexing"], list) else []
    return {
        "id": product["id"],
        "set_id": product["spl_set_id"],
        "version": product["spl_version"],
        "openfda": {
            "brand_name": [product["brand_name"]],
            "generic_name": [product["generic_name"]],
            "manufacturer_name": [product["manufacturer_name"]],
            "product_type": [product["product_type"]],
            "unii": [i["unii"] for i in ingredients],
            "substance_name": [i["name"] for i in ingredients],
            "rxcui": sorted({r["rxcui"] for r in product["rxnorm"]}),
        },
    }


PRODUCTS = [json.loads(line) for line in (DATA / openfda.PRODUCTS_FILE).read_text().splitlines()]
LABELS = [_label(p) for p in PRODUCTS]


def _page(records: list[dict], total: int) -> bytes:
    meta = {"last_updated": LAST_UPDATED, "results": {"skip": 0, "limit": 100, "total": total}}
    return json.dumps({"meta": meta, "results": records}).encode()


def _zip(name: str, records: list[dict]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo(name.removesuffix(".zip"), date_time=(2024, 5, 1, 0, 0, 0))
        archive.writestr(info, _page(records, len(records)), zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


class FakeOpenFDA(BaseHTTPRequestHandler):
    """api.fda.gov and download.open.fda.gov in one loopback server (state on the server)."""

    server: OpenFDAServer

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        self.server.log.append((time.monotonic(), url.path, query))
        if url.path == "/drug/broken.json":
            return self._send(503, b'{"error": {"code": "SERVER_ERROR"}}')
        if url.path == "/download.json":
            return self._send(200, json.dumps(self.server.index()).encode())
        if url.path.startswith("/bulk/"):
            return self._send(200, self.server.zips[url.path.rsplit("/", 1)[1]])
        if url.path != "/drug/label.json":
            return self._send(404, b'{"error": {"code": "NOT_FOUND"}}')
        if query.get("search") == "nothing":
            return self._send(404, b'{"error": {"code": "NOT_FOUND", "message": "No matches"}}')
        if query.get("search") == "bad:[":
            return self._send(400, b'{"error": {"code": "BAD_REQUEST", "message": "syntax"}}')
        offset = int(query.get("search_after", "0=0").partition("=")[2])
        if offset == 100 and not self.server.throttled:  # the second page, once
            self.server.throttled = True
            return self._send(
                429, b'{"error": {"code": "TOO_MANY_REQUESTS"}}', {"Retry-After": "0"}
            )
        limit = int(query["limit"])
        headers = {}
        if offset + limit < len(LABELS):
            following = {**query, "skip": "0", "search_after": f"0={offset + limit}"}
            following["api_key"] = "someone-elses-key"  # must never be used
            link = f"http://{self.headers['Host']}{url.path}?{urllib.parse.urlencode(following)}"
            headers["Link"] = f'<{link}>; rel="next"'
        self._send(200, _page(LABELS[offset : offset + limit], len(LABELS)), headers)

    def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet: the test reads ``server.log`` instead."""


class OpenFDAServer(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), FakeOpenFDA)
        self.log: list[tuple[float, str, dict[str, str]]] = []
        self.throttled = False
        half = len(LABELS) // 2
        self.zips = {
            "drug-label-0001-of-0002.json.zip": _zip("drug-label-0001-of-0002.json", LABELS[:half]),
            "drug-label-0002-of-0002.json.zip": _zip("drug-label-0002-of-0002.json", LABELS[half:]),
        }

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def index(self) -> dict:
        """download.json's shape: results.<category>.<endpoint>.partitions[].file."""
        partitions = [
            {"display_name": name, "file": f"{self.url}/bulk/{name}", "size_mb": "0.1"}
            for name in sorted(self.zips)
        ]
        label = {"export_date": LAST_UPDATED, "partitions": partitions}
        return {"meta": {"last_updated": LAST_UPDATED}, "results": {"drug": {"label": label}}}


@pytest.fixture
def server() -> Iterator[OpenFDAServer]:
    httpd = OpenFDAServer()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _records(pages: list[Path]) -> list[dict]:
    return [r for page in pages for r in json.loads(page.read_text())["results"]]


def test_api_pages_follow_links_retry_429_space_requests_and_cache(
    server: OpenFDAServer, tmp_path: Path
) -> None:
    pages = fetch_api(
        "drug/label", "", cache_dir=tmp_path, api_key=KEY, limit=100, base_url=server.url
    )
    # 500 real records in 100-record pages, in order, none twice
    assert len(pages) == 5
    assert [r["id"] for r in _records(pages)] == [p["id"] for p in PRODUCTS]
    assert pages[0].name.startswith("drug-label-api-") and pages[0].name.endswith("-00001.json")
    # 6 requests: page 2 was refused once (429, Retry-After: 0) and asked again
    log = [(t, q) for t, path, q in server.log if path == "/drug/label.json"]
    assert len(log) == 6
    assert [q.get("search_after") for _, q in log] == [
        None,
        "0=100",
        "0=100",
        "0=200",
        "0=300",
        "0=400",
    ]
    assert "skip" not in log[0][1]  # skip and search_after do not mix
    assert {q["api_key"] for _, q in log} == {KEY}  # ours, never the Link's
    # paced (<= 240 a minute; each gap exactly in the fake-clock test below): seen from the
    # server, thread scheduling moves single arrivals by tens of ms, so the whole span is checked
    span = log[-1][0] - log[0][0]
    assert span >= 5 * 60 / openfda_fetch.PER_MINUTE - 0.1, span
    today = datetime.now(UTC).date().isoformat()
    budget = json.loads((tmp_path / "openfda-api" / "budget.json").read_text())
    assert budget == {"date": today, "requests": 6}
    assert KEY not in "".join(p.read_text() for p in (tmp_path / "openfda-api").rglob("*.json"))
    # a complete cached answer is served from disk
    again = fetch_api(
        "drug/label", "", cache_dir=tmp_path, api_key=KEY, limit=100, base_url=server.url
    )
    assert again == pages and len(server.log) == 6


def test_requests_are_spaced_to_the_per_minute_limit(tmp_path: Path) -> None:
    now = [100.0]
    started: list[float] = []

    def sleep(seconds: float) -> None:
        now[0] += seconds

    budget = openfda_fetch.RequestBudget(
        tmp_path / "budget.json", per_day=10, clock=lambda: now[0], sleep=sleep
    )
    for work in (0.0, 0.1, 0.3, 0.0, 0.05):  # seconds each request itself takes
        budget.spend()
        started.append(now[0])
        now[0] += work
    gaps = [round(b - a, 6) for a, b in itertools.pairwise(started)]
    assert gaps == [0.25, 0.25, 0.3, 0.25]  # a slow request needs no extra wait


def test_api_pages_are_a_data_folder_for_the_source(server: OpenFDAServer, tmp_path: Path) -> None:
    pages = fetch_api("drug/label", "", cache_dir=tmp_path, limit=250, base_url=server.url)
    folder = _folder(tmp_path / "data", pages)
    fetched = openfda.fetch(tmp_path, data_dir=folder)
    assert fetched.version == LAST_UPDATED  # meta.last_updated beats the 2008 FAERS report
    labels = openfda.parse(fetched)["labels"]
    assert labels.height == len(PRODUCTS)
    assert set(labels["set_id"]) == {p["spl_set_id"] for p in PRODUCTS}


def test_daily_budget_without_a_key_stops_with_a_clear_error(
    server: OpenFDAServer, tmp_path: Path
) -> None:
    state = tmp_path / "openfda-api" / "budget.json"
    state.parent.mkdir(parents=True)
    today = datetime.now(UTC).date().isoformat()
    state.write_text(json.dumps({"date": today, "requests": 999}))  # one left of 1,000
    with pytest.raises(ConfigError, match="BIOKG_OPENFDA_API_KEY") as info:
        fetch_api("drug/label", "", cache_dir=tmp_path, limit=100, base_url=server.url)
    assert "1,000" in str(info.value)
    assert len(server.log) == 1  # the last request of the day was made, no more
    # yesterday's count does not carry over
    state.write_text(json.dumps({"date": "2000-01-01", "requests": 5000}))
    budget = RequestBudget(state, per_day=1)
    budget.spend()
    assert json.loads(state.read_text()) == {"date": today, "requests": 1}


def test_no_match_refused_query_and_persistent_5xx(server: OpenFDAServer, tmp_path: Path) -> None:
    assert fetch_api("drug/label", "nothing", cache_dir=tmp_path, base_url=server.url) == []
    with pytest.raises(ConfigError, match="HTTP 400"):
        fetch_api("drug/label", "bad:[", cache_dir=tmp_path, base_url=server.url)
    with pytest.raises(FetchError, match="failed after 2 attempts") as info:
        fetch_api(
            "drug/broken",
            "x",
            cache_dir=tmp_path,
            api_key=KEY,
            base_url=server.url,
            retries=2,
            backoff_s=0.01,
        )
    assert isinstance(info.value, RetryableError)  # flows retry it
    assert KEY not in str(info.value) and "api_key=***" in str(info.value)


def test_bulk_index_partitions_download_and_parse(server: OpenFDAServer, tmp_path: Path) -> None:
    zips = fetch_bulk("drug/label", cache_dir=tmp_path, index_url=f"{server.url}/download.json")
    assert [z.name for z in zips] == sorted(server.zips)
    assert [z.read_bytes() for z in zips] == [server.zips[z.name] for z in zips]
    fetched = openfda.fetch(tmp_path, data_dir=_folder(tmp_path / "data", zips))
    assert fetched.version == LAST_UPDATED  # the zips' export time
    labels = openfda.parse(fetched)["labels"]
    assert labels.height == len(PRODUCTS)
    assert labels["source_record"][0] == f"drug-label-0001-of-0002.json.zip#{PRODUCTS[0]['id']}"
    with pytest.raises(SourceFormatError, match="no partitions for 'drug/ndc'"):
        fetch_bulk("drug/ndc", cache_dir=tmp_path, index_url=f"{server.url}/download.json")


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _corrupted(data: bytes) -> bytes:
    middle = len(data) // 2  # inside the compressed member; the directory stays readable
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :]


@pytest.mark.parametrize("spoil", [_truncated, _corrupted], ids=["truncated", "corrupted"])
def test_broken_bulk_zip_names_the_file_and_changes_nothing(
    store: GraphStore, settings: Settings, tmp_path: Path, spoil: Callable[[bytes], bytes]
) -> None:
    name = "drug-label-0001-of-0001.json.zip"
    folder = _folder(tmp_path / "data", [])
    (folder / name).write_bytes(spoil(_zip(name, LABELS)))
    before = snapshot(store)
    with pytest.raises(SourceFormatError, match="not a complete zip archive") as info:
        build(store, settings, ("openfda",), data_dir=folder, sample=True)
    assert str(folder / name) in str(info.value)
    assert snapshot(store) == before


def _folder(folder: Path, extra: list[Path]) -> Path:
    """An openFDA data folder: the offline products and FAERS files plus ``extra``."""
    folder.mkdir()
    for path in [DATA / openfda.PRODUCTS_FILE, DATA / openfda.EVENTS_FILE, *extra]:
        shutil.copy(path, folder / path.name)
    return folder


def test_cli_fetches_api_pages_into_a_data_folder(server: OpenFDAServer, tmp_path: Path) -> None:
    env = {"BIOKG_HOME": str(tmp_path / "home")}
    args = ["fetch", "openfda", "drug/label", "--into", str(tmp_path / "data")]
    result = CliRunner().invoke(app, [*args, "--api-url", server.url], env=env)
    assert result.exit_code == 0, result.output
    pages = sorted((tmp_path / "data").glob("drug-label-api-*.json"))
    assert [r["id"] for r in _records(pages)] == [p["id"] for p in PRODUCTS]
    refused = CliRunner().invoke(
        app, [*args, "--api-url", server.url, "--search", "bad:["], env=env
    )
    assert refused.exit_code == 1 and "HTTP 400" in refused.output  # one line, no traceback
