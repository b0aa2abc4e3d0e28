"""openFDA online: paged API queries and the bulk download files, within openFDA's limits.

* API (https://open.fda.gov/apis/): 240 requests a minute and 1,000 a day per IP without a key,
  120,000 a day with one (https://open.fda.gov/apis/authentication/; ``BIOKG_OPENFDA_API_KEY``,
  passed in from Settings); at most 1,000 records per request. Pages follow each answer's
  ``Link: <...search_after=...>; rel="next"`` header, which, unlike ``skip`` (at most 25,000),
  pages through any number of results (https://open.fda.gov/apis/paging/). A 404 answer means
  "no matches". 429 and 5xx answers are retried with exponential backoff (``Retry-After``
  honoured), then raised as :class:`~biokg.errors.FetchError` (retryable).
* Bulk files: the index https://api.fda.gov/download.json lists each endpoint's partitions
  (``results.drug.label.partitions[].file``: zipped ``{"meta", "results"}`` JSON), downloaded
  into the cache by :func:`biokg.ingest.fetch.download` (sha256, ETag, conditional requests).

Answers are cached: a query's pages sit in ``<cache>/openfda-api/<digest>/`` with a manifest of
their sha256; a complete cached query is answered from disk without a request. Pages are named
``<endpoint>-api-<digest>-<n>.json`` (``drug-label-api-...``), so a folder of them is a data
folder :func:`biokg.ingest.sources.openfda.fetch` reads. Requests are spaced to the per-minute
limit and counted per UTC day in ``<cache>/openfda-api/budget.json``, shared by every run that
uses the cache (one at a time).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import Message
from pathlib import Path

from biokg.core.files import sha256
from biokg.errors import ConfigError, FetchError, FetchRefusedError, SourceFormatError
from biokg.ingest.online.download import TRANSIENT_4XX, USER_AGENT, download, mirrored, unresolved

log = logging.getLogger(__name__)

API_URL = "https://api.fda.gov"
DOWNLOAD_INDEX = "https://api.fda.gov/download.json"
MAX_LIMIT = 1000  # records per request
PER_MINUTE = 240
PER_DAY_WITHOUT_KEY = 1_000
PER_DAY_WITH_KEY = 120_000
_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


@dataclass
class RequestBudget:
    """Spaces API requests to ``per_minute`` and stops at ``per_day`` (a UTC day, on disk).

    Raises (from :meth:`spend`):
        ConfigError: today's requests are used up; not retryable until tomorrow.
    """

    state: Path
    per_day: int
    per_minute: int = PER_MINUTE
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    _last: float | None = field(default=None, init=False)

    @classmethod
    def for_key(cls, cache_dir: Path, api_key: str | None) -> RequestBudget:
        per_day = PER_DAY_WITH_KEY if api_key else PER_DAY_WITHOUT_KEY
        return cls(Path(cache_dir) / "openfda-api" / "budget.json", per_day)

    def spend(self) -> None:
        """Wait for the next request slot and count the request against today's budget."""
        today = datetime.now(UTC).date().isoformat()
        used = self.used_today(today)
        if used >= self.per_day:
            raise ConfigError(
                f"openfda: {used} API requests made today (UTC {today}), the limit is "
                f"{self.per_day:,}; set BIOKG_OPENFDA_API_KEY (120,000 a day) or wait until "
                "tomorrow, or load the bulk files instead"
            )
        if self._last is not None:
            self.sleep(max(0.0, self._last + 60.0 / self.per_minute - self.clock()))
        self._last = self.clock()
        self.state.parent.mkdir(parents=True, exist_ok=True)
        self.state.write_text(json.dumps({"date": today, "requests": used + 1}))

    def used_today(self, today: str) -> int:
        if not self.state.exists():
            return 0
        saved = json.loads(self.state.read_text())
        return int(saved["requests"]) if saved.get("date") == today else 0


def fetch_api(
    endpoint: str,
    search: str,
    *,
    cache_dir: Path,
    api_key: str | None = None,
    limit: int = MAX_LIMIT,
    max_records: int | None = None,
    base_url: str = API_URL,
    refresh: bool = False,
    budget: RequestBudget | None = None,
    retries: int = 4,
    backoff_s: float = 2.0,
) -> list[Path]:
    """Every page of an API query as cached JSON files, in order.

    Args:
        endpoint: e.g. ``drug/label`` or ``drug/event``.
        search: openFDA search syntax, e.g. ``openfda.unii:"BW9B0ZE037"``.
        api_key: raises the daily limit; sent with every request, never cached or logged.
        limit: records per request (1..1,000).
        max_records: stop once this many records are in; default all of them.
        refresh: query again even when a complete answer is cached.
        budget: the request budget (default: by key, in the cache).

    Raises:
        ConfigError: ``limit`` out of range, the query was refused (4xx) or today's budget is used.
        FetchError: a request still failed (429/5xx/network) after ``retries`` attempts.
        SourceFormatError: an answer is not openFDA's JSON shape, or stops short of its total
            without a next link.
    """
    if not 0 < limit <= MAX_LIMIT:
        raise ConfigError(f"openfda: limit must be 1..{MAX_LIMIT}, not {limit}")
    key = json.dumps([endpoint, search, limit, max_records])
    digest = hashlib.sha1(key.encode()).hexdigest()[:12]
    folder = Path(cache_dir) / "openfda-api" / digest
    cached = None if refresh else _cached_pages(folder)
    if cached is not None:
        return cached
    budget = budget or RequestBudget.for_key(cache_dir, api_key)
    query = {"search": search, "limit": str(limit)} if search else {"limit": str(limit)}
    url: str | None = _with_key(f"{base_url.rstrip('/')}/{endpoint}.json", query, api_key)
    folder.mkdir(parents=True, exist_ok=True)
    pages: list[dict] = []
    fetched = 0
    while url is not None:
        answer = _get(url, budget, retries=retries, backoff_s=backoff_s)
        if answer is None:  # 404: no (more) matches
            break
        body, headers = answer
        records, total = _page_counts(body, _redact(url))
        name = f"{endpoint.replace('/', '-')}-api-{digest}-{len(pages) + 1:05d}.json"
        (folder / name).write_bytes(body)
        pages.append({"file": name, "sha256": sha256(folder / name), "records": records})
        fetched += records
        if records == 0 or fetched >= min(total, max_records or total):
            break
        url = _next_url(headers, base_url, api_key)
        if url is None:
            raise SourceFormatError(
                f"openfda: {endpoint} answered {fetched:,} of {total:,} records for "
                f"{search!r} and no Link rel=next to page on; narrow the search or use the "
                "bulk files"
            )
    manifest = {"endpoint": endpoint, "search": search, "records": fetched, "pages": pages}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return [folder / p["file"] for p in pages]


def fetch_bulk(
    endpoint: str,
    *,
    cache_dir: Path,
    index_url: str = DOWNLOAD_INDEX,
    mirror: str | None = None,
    newest_folder: bool = False,
) -> list[Path]:
    """The bulk files of ``endpoint`` (e.g. ``drug/label``), downloaded into the cache.

    Args:
        mirror: a server keeping the files at their official paths (``BIOKG_OPENFDA_URL``;
            :func:`~biokg.ingest.online.download.mirrored`); the index's URLs are official.
        newest_folder: only the partitions in the newest folder (drug/event: the latest
            quarter, ``.../drug/event/2025q3/drug-event-0001-of-0031.json.zip``); every
            quarter's parts share their names, so all of them would not fit one folder anyway.

    Raises:
        FetchError: the index or a file could not be downloaded (retryable).
        SourceFormatError: the index lacks the endpoint or its partitions.
    """
    folder = Path(cache_dir) / "openfda-bulk"
    index = download(index_url, folder)
    try:
        node = json.loads(index.read_text(encoding="utf-8"))["results"]
        for part in endpoint.split("/"):
            node = node[part]
        files = [p["file"] for p in node["partitions"]]
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise SourceFormatError(
            f"{index}: no partitions for {endpoint!r} in openFDA's download index "
            f"({type(err).__name__}: {err}); expected results.{endpoint.replace('/', '.')}"
            ".partitions[].file"
        ) from err
    if newest_folder and files:
        newest = max(url.rsplit("/", 2)[-2] for url in files)
        files = [url for url in files if url.rsplit("/", 2)[-2] == newest]
    target = folder / endpoint.replace("/", "-")
    return [download(mirrored(url, mirror), target) for url in files]


def _cached_pages(folder: Path) -> list[Path] | None:
    """The pages of a complete cached answer whose files are intact, else None."""
    manifest = folder / "manifest.json"
    if not manifest.exists():
        return None
    pages = json.loads(manifest.read_text())["pages"]
    paths = [folder / p["file"] for p in pages]
    if all(
        p.exists() and sha256(p) == page["sha256"] for p, page in zip(paths, pages, strict=True)
    ):
        return paths
    return None


def _get(
    url: str, budget: RequestBudget, *, retries: int, backoff_s: float
) -> tuple[bytes, Message] | None:
    """One answer (body, headers), None on 404; 429/5xx/network errors retried with backoff."""
    problem: Exception | None = None
    for attempt in range(1, retries + 1):
        budget.spend()
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.read(), response.headers
        except urllib.error.HTTPError as err:
            if err.code == 404:
                return None
            if err.code not in TRANSIENT_4XX and err.code < 500:
                detail = err.read(300).decode("utf-8", "replace")
                raise ConfigError(
                    f"openfda: {_redact(url)} was refused: HTTP {err.code} {detail}; check "
                    "the search syntax (https://open.fda.gov/apis/query-syntax/)"
                ) from err
            problem, wait = err, _retry_after(err.headers)
        except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
            if unresolved(err):
                raise FetchRefusedError(f"openfda: {_redact(url)}: host name not resolved") from err
            problem, wait = err, None
        if attempt < retries:
            wait = backoff_s * 2 ** (attempt - 1) if wait is None else wait
            log.warning("openfda: %s failed (%s); retry in %.1f s", _redact(url), problem, wait)
            time.sleep(wait)
    raise FetchError(f"openfda: {_redact(url)} failed after {retries} attempts: {problem}")


def _retry_after(headers: Message | None) -> float | None:
    value = headers.get("Retry-After") if headers is not None else None
    return float(value) if value and value.strip().isdigit() else None


def _page_counts(body: bytes, where: str) -> tuple[int, int]:
    """(records in this page, total the query matches) of one answer."""
    try:
        data = json.loads(body)
        records = data["results"]
        total = data["meta"]["results"]["total"]
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise SourceFormatError(
            f"openfda: answer to {where} is not an openFDA result page "
            f"({type(err).__name__}: {err}); expected meta.results.total and results[]"
        ) from err
    if not isinstance(records, list) or not isinstance(total, int):
        raise SourceFormatError(f"openfda: answer to {where}: results must be a list")
    return len(records), total


def _next_url(headers: Message, base_url: str, api_key: str | None) -> str | None:
    """The Link rel=next URL, re-aimed at ``base_url`` and carrying our key (never theirs)."""
    found = _NEXT_LINK.search(headers.get("Link") or "")
    if found is None:
        return None
    link = urllib.parse.urlsplit(found.group(1))
    query = dict(urllib.parse.parse_qsl(link.query, keep_blank_values=True))
    query.pop("api_key", None)
    return _with_key(f"{base_url.rstrip('/')}{link.path}", query, api_key)


def _with_key(url: str, query: dict[str, str], api_key: str | None) -> str:
    params = query | ({"api_key": api_key} if api_key else {})
    return f"{url}?{urllib.parse.urlencode(params)}"


def _redact(url: str) -> str:
    """``url`` without the value of its api_key, for messages and logs."""
    return re.sub(r"(api_key=)[^&]+", r"\1***", url)
