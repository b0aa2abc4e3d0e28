"""Download cache for source files: one copy per URL, reused while the server says unchanged.

Each cached file has a sidecar ``<name>.meta.json`` with the URL, its ``Last-Modified`` and
``ETag`` and the sha256 of the bytes, so a refresh sends a conditional request and a build can
skip a source whose inputs did not change. A download is written to ``<name>.part`` and renamed
only when complete, so an interrupted download never leaves a truncated file under the real
name, and the next attempt resumes it (``Range``) instead of starting over.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from biokg.core.files import sha256
from biokg.errors import FetchError, FetchRefusedError

log = logging.getLogger(__name__)
USER_AGENT = "biokg/0.1 (+https://github.com/biokg)"
#: HTTP client errors that may pass: the request timed out, or too many requests.
TRANSIENT_4XX = (408, 429)


def unresolved(err: BaseException) -> bool:
    """Whether ``err`` is a host name that did not resolve: a wrong URL or no network, which
    minutes of retries do not mend (the next scheduled run tries again)."""
    return isinstance(err, urllib.error.URLError) and isinstance(err.reason, socket.gaierror)


def mirrored(url: str, base: str | None, official: str | None = None) -> str:
    """``url`` on a mirror: the official URL's path (and query) under ``base``.

    A mirror (``BIOKG_<SOURCE>_URL``: another server, the benchmarks' loopback release mirror)
    keeps each official file at its official path, so one base serves files that officially
    live on several hosts. ``base`` None or equal to ``official`` (the source's own server)
    leaves ``url`` as it is.

    >>> mirrored("https://ftp.ebi.ac.uk/pub/chembl/x.tar.gz", "http://127.0.0.1:8000/m")
    'http://127.0.0.1:8000/m/pub/chembl/x.tar.gz'
    >>> mirrored("https://ftp.ebi.ac.uk/pub/x", "https://ftp.ebi.ac.uk", "https://ftp.ebi.ac.uk")
    'https://ftp.ebi.ac.uk/pub/x'
    """
    if base is None or base.rstrip("/") == (official or "").rstrip("/"):
        return url
    parts = urllib.parse.urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    return base.rstrip("/") + path


def download(
    url: str,
    cache_dir: Path,
    *,
    retries: int = 3,
    backoff_s: float = 2.0,
    expected_sha256: str | None = None,
) -> Path:
    """Return a local copy of ``url``, downloading it only when the cached copy is stale.

    A download cut off (a dropped connection, a killed process) resumes where it stopped: the
    bytes so far stay in ``<name>.part`` and the next attempt, or the next run, asks for the rest
    with an HTTP ``Range`` request (``If-Range`` on the validator the first bytes came with, so
    a file changed in between is fetched whole again). Only a complete file takes the real name.

    Args:
        expected_sha256: the checksum the publisher lists for the file (ChEMBL's
            ``checksums.txt``); a complete download that does not match it is deleted.

    Raises:
        FetchError: the server could not be reached or answered with an error after retries.
        FetchRefusedError: at once, without retries: the host name does not resolve, the server
            refused the request (HTTP 4xx but 408 and 429), or the file does not match
            ``expected_sha256`` (deleted: the next run fetches it whole).
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / url.rstrip("/").rsplit("/", 1)[-1]
    meta_path = target.with_name(target.name + ".meta.json")
    partial = target.with_name(target.name + ".part")
    partial_meta = target.with_name(target.name + ".part.json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() and target.exists() else {}
    for attempt in range(1, retries + 1):
        headers = {"User-Agent": USER_AGENT}
        have = partial.stat().st_size if partial.exists() and partial_meta.exists() else 0
        if have:
            validator = json.loads(partial_meta.read_text()).get("validator")
            headers["Range"] = f"bytes={have}-"
            if validator:
                headers["If-Range"] = validator
        else:
            if meta.get("last_modified"):
                headers["If-Modified-Since"] = meta["last_modified"]
            if meta.get("etag"):
                headers["If-None-Match"] = meta["etag"]
        try:
            request = urllib.request.Request(url, headers=headers)
            with urllib.request.urlopen(request, timeout=60) as response:
                resumed = response.status == 206
                if not resumed:
                    validator = response.headers.get("ETag") or response.headers.get(
                        "Last-Modified"
                    )
                    partial_meta.write_text(json.dumps({"url": url, "validator": validator}))
                expected = response.headers.get("Content-Length")
                got = 0
                with open(partial, "ab" if resumed else "wb") as out:
                    while block := response.read(1 << 20):
                        out.write(block)
                        got += len(block)
                if expected is not None and got < int(expected):
                    # http.client returns a short body without raising when the peer closes
                    raise ConnectionError(f"connection closed after {got} of {expected} bytes")
                os.replace(partial, target)
                partial_meta.unlink(missing_ok=True)
                meta = {
                    "url": url,
                    "last_modified": response.headers.get("Last-Modified"),
                    "etag": response.headers.get("ETag"),
                    "sha256": sha256(target),
                }
                meta_path.write_text(json.dumps(meta, indent=1))
                return _verified(target, meta_path, meta["sha256"], expected_sha256)
        except urllib.error.HTTPError as err:
            if err.code == 304:
                return _verified(target, meta_path, meta.get("sha256"), expected_sha256)
            if err.code == 416:  # the saved bytes do not fit the file any more: start over
                partial.unlink(missing_ok=True)
                problem: Exception = err
                continue
            if err.code < 500 and err.code not in TRANSIENT_4XX:
                raise FetchRefusedError(f"{url}: HTTP {err.code} {err.reason}") from err
            problem = err
        except (
            urllib.error.URLError,
            http.client.HTTPException,
            TimeoutError,
            ConnectionError,
        ) as err:
            if unresolved(err):
                raise FetchRefusedError(f"{url}: host name not resolved: {err.reason}") from err
            problem = err
        log.warning("download of %s failed (attempt %d/%d): %s", url, attempt, retries, problem)
        time.sleep(backoff_s * attempt)
    raise FetchError(f"{url}: download failed after {retries} attempts: {problem}")


def _verified(target: Path, meta_path: Path, actual: str | None, expected: str | None) -> Path:
    """``target`` if it matches the published checksum (or none is published), else deleted.

    Raises:
        FetchRefusedError: a mismatch (the file changed on the server, or its checksum list is
            wrong); the file and its metadata are gone, so the next run downloads it anew.
    """
    if expected is None:
        return target
    actual = actual or sha256(target)
    if actual.lower() != expected.lower():
        target.unlink(missing_ok=True)
        meta_path.unlink(missing_ok=True)
        raise FetchRefusedError(
            f"{target.name}: sha256 {actual} does not match the published {expected}; the "
            "download was damaged or the file changed on the server: fetch it again"
        )
    return target
