"""Download cache for source files: one copy per URL, reused while the server says unchanged.

Each cached file has a sidecar ``<name>.meta.json`` with the URL, its ``Last-Modified`` and
``ETag`` and the sha256 of the bytes, so a refresh sends a conditional request and a build can
skip a source whose inputs did not change. A download is written to a temporary name and renamed
only when complete, so an interrupted download never leaves a truncated file behind.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from pathlib import Path

from biokg.errors import FetchError
from biokg.ingest.files import atomic_path, sha256

log = logging.getLogger(__name__)
USER_AGENT = "biokg/0.1 (+https://github.com/biokg)"


def download(url: str, cache_dir: Path, *, retries: int = 3, backoff_s: float = 2.0) -> Path:
    """Return a local copy of ``url``, downloading it only when the cached copy is stale.

    Raises:
        FetchError: the server could not be reached or answered with an error after retries.
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / url.rstrip("/").rsplit("/", 1)[-1]
    meta_path = target.with_name(target.name + ".meta.json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() and target.exists() else {}
    headers = {"User-Agent": USER_AGENT}
    if meta.get("last_modified"):
        headers["If-Modified-Since"] = meta["last_modified"]
    if meta.get("etag"):
        headers["If-None-Match"] = meta["etag"]
    for attempt in range(1, retries + 1):
        try:
            request = urllib.request.Request(url, headers=headers)
            with urllib.request.urlopen(request, timeout=60) as response:
                with atomic_path(target) as partial, open(partial, "wb") as out:
                    while block := response.read(1 << 20):
                        out.write(block)
                meta = {
                    "url": url,
                    "last_modified": response.headers.get("Last-Modified"),
                    "etag": response.headers.get("ETag"),
                    "sha256": sha256(target),
                }
                meta_path.write_text(json.dumps(meta, indent=1))
                return target
        except urllib.error.HTTPError as err:
            if err.code == 304:
                return target
            if err.code < 500 and err.code != 429:
                raise FetchError(f"{url}: HTTP {err.code} {err.reason}") from err
            problem: Exception = err
        except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
            problem = err
        log.warning("download of %s failed (attempt %d/%d): %s", url, attempt, retries, problem)
        time.sleep(backoff_s * attempt)
    raise FetchError(f"{url}: download failed after {retries} attempts: {problem}")
