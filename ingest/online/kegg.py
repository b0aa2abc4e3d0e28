"""KEGG REST client: throttled, retried, cached by URL, resumable; fetches one release's snapshot.

KEGG's terms (https://www.kegg.jp/kegg/legal.html, https://www.kegg.jp/kegg/rest/): academic use
of the REST API, at most 3 requests a second, no bulk download, no redistribution. So:

* every request waits for the one :class:`TokenBucket` the process shares (3 a second, counted
  from the end of the previous request, so KEGG never sees two closer than 1/3 s whatever the
  network does);
* ``get`` asks for up to :data:`BATCH` entries at once (``get/dr:D00109+dr:D00110``), KGML one
  pathway per request (``get/hsa04010/kgml``), as the API allows;
* 5xx answers, dropped connections and cut answers are retried with exponential backoff, then
  raised as :class:`~biokg.errors.FetchError`; a 403 means KEGG blocked us: :class:`BlockedError`
  at once, nothing retried;
* every answer is kept under ``<cache>/kegg/<release>/<request path>`` (``get`` answers split
  into one file per entry, keyed by the entry's own URL path ``get/dr:D00109``) and written
  atomically, so a fetch stopped anywhere resumes without asking again for what it has. An
  entry KEGG does not have is kept as an empty file (asked once). ``manifest.json`` marks a
  complete snapshot.

The release comes from ``info/kegg`` (``Release 113.0+/01-12, Jan 25``), asked on every fetch:
a new release starts a new snapshot folder.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from biokg.core.files import atomic_path
from biokg.errors import (
    BlockedError,
    ConfigError,
    FetchError,
    FetchRefusedError,
    SourceFormatError,
)
from biokg.ingest.formats.kegg import RECORD_END, drug_id, local_id, read_flat, read_pairs
from biokg.ingest.formats.kegg_tables import INFO, LISTS, MANIFEST
from biokg.ingest.online.download import TRANSIENT_4XX, USER_AGENT, unresolved

log = logging.getLogger(__name__)

REST_URL = "https://rest.kegg.jp"
PER_SECOND = 3.0
BATCH = 10  # entries per ``get`` (KEGG's maximum; KGML: one)
_RELEASE = re.compile(r"Release\s+([^\s,]+)")


@dataclass
class TokenBucket:
    """At most ``rate`` requests a second, no bursts (capacity one), on a monotonic clock.

    The next token is due ``1/rate`` seconds after the previous request *finished*: a request's
    arrival at the server is then at least that long after the previous one's, even when the
    network or thread scheduling delays one of them. Requests through one bucket are serialised
    (thread-safe), which KEGG asks for anyway.
    """

    rate: float = PER_SECOND
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    _due: float | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __enter__(self) -> TokenBucket:
        self._lock.acquire()
        if self._due is not None:
            wait = self._due - self.clock()
            if wait > 0:
                self.sleep(wait)
        return self

    def __exit__(self, *exc: object) -> None:
        self._due = self.clock() + 1.0 / self.rate
        self._lock.release()


#: The bucket every KEGG client in this process shares.
SHARED_BUCKET = TokenBucket()


@dataclass
class KeggClient:
    """Cached, throttled requests to one KEGG REST server (module docstring)."""

    folder: Path
    base_url: str = REST_URL
    bucket: TokenBucket = field(default_factory=lambda: SHARED_BUCKET)
    retries: int = 4
    backoff_s: float = 1.0
    requests: int = 0

    def url(self, path: str) -> str:
        return f"{self.base_url.rstrip('/')}/{path}"

    def answer(self, path: str) -> Path:
        """The cached answer to ``path`` (``list/pathway/hsa``), asked for when absent.

        Raises:
            FetchError, BlockedError: see :meth:`request`.
        """
        target = self.folder / path
        if not target.exists():
            body = self.request(path)
            _write(target, body or b"")
        return target

    def entries(self, ids: Iterable[str], *, database: str) -> dict[str, Path]:
        """Each entry's cached DBGET record (``database``: ``dr``, ``ds``, ``path``), the
        missing ones asked for :data:`BATCH` at a time.

        Raises:
            FetchError, BlockedError: see :meth:`request`.
        """
        keys = sorted({f"{database}:{local_id(i)}" for i in ids})
        paths = {key: self.folder / "get" / key for key in keys}
        wanted = [key for key in keys if not paths[key].exists()]
        for start in range(0, len(wanted), BATCH):
            batch = wanted[start : start + BATCH]
            self._store_records(batch, self.request("get/" + "+".join(batch)) or b"")
        return paths

    def kgml(self, pathway: str) -> Path:
        """A pathway's cached KGML (``get/hsa04010/kgml``), asked for when absent."""
        return self.answer(f"get/{local_id(pathway)}/kgml")

    def _store_records(self, keys: list[str], body: bytes) -> None:
        """Split a ``get`` answer into one file per asked entry (empty: KEGG has none).

        Raises:
            SourceFormatError: the answer is not DBGET records, or its last one is cut short.
        """
        text = body.decode("utf-8")
        entries = read_flat(text, self.url("get/" + "+".join(keys)))
        records = [r + RECORD_END + "\n" for r in re.split(r"^///[ \t]*$\n?", text, flags=re.M)]
        by_id = {entry.id: record for entry, record in zip(entries, records, strict=False)}
        for key in keys:
            _write(self.folder / "get" / key, by_id.get(local_id(key), "").encode())

    def request(self, path: str) -> bytes | None:
        """One answer's body (None for 404: KEGG has nothing), retried on 5xx and network errors.

        Raises:
            BlockedError: HTTP 403, KEGG's answer to too many requests; not retried.
            FetchError: still failing after ``retries`` attempts (retryable).
            ConfigError: another 4xx: the URL is wrong, not the network.
        """
        url = self.url(path)
        problem: Exception | None = None
        for attempt in range(1, self.retries + 1):
            try:
                with self.bucket:
                    self.requests += 1
                    return _get(url)
            except urllib.error.HTTPError as err:
                if err.code == 404:
                    return None
                if err.code == 403:
                    raise BlockedError(
                        f"kegg: {url} answered 403 Forbidden: blocked: slow down. KEGG allows "
                        "at most 3 requests a second and no bulk download; stop, wait (hours) "
                        "and run again: what was fetched is cached and will not be asked again"
                    ) from err
                if err.code < 500 and err.code not in TRANSIENT_4XX:
                    raise ConfigError(
                        f"kegg: {url} was refused: HTTP {err.code}; check BIOKG_KEGG_URL "
                        f"(KEGG's REST API is {REST_URL})"
                    ) from err
                problem = err
            except (
                urllib.error.URLError,
                http.client.HTTPException,
                ConnectionError,
                TimeoutError,
            ) as err:
                if unresolved(err):
                    raise FetchRefusedError(f"kegg: {url}: host name not resolved: {err}") from err
                problem = err
            if attempt < self.retries:
                wait = self.backoff_s * 2 ** (attempt - 1)
                log.warning("kegg: %s failed (%s); retry in %.1f s", url, problem, wait)
                time.sleep(wait)
        raise FetchError(f"kegg: {url} failed after {self.retries} attempts: {problem}")


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=60) as response:
        body = response.read()
        expected = response.headers.get("Content-Length")
    if expected is not None and len(body) < int(expected):
        # http.client returns a short body without raising when the peer closes early
        raise ConnectionError(f"connection closed after {len(body)} of {expected} bytes")
    return body


def _write(target: Path, body: bytes) -> None:
    with atomic_path(target) as partial:
        partial.write_bytes(body)


def release_of(info: str, where: str) -> str:
    """KEGG's release from an ``info/kegg`` answer (``Release 113.0+/01-12, Jan 25``).

    Raises:
        SourceFormatError: no ``Release`` line.
    """
    found = _RELEASE.search(info)
    if found is None:
        raise SourceFormatError(f"{where}: no 'Release <version>' line in KEGG's info answer")
    return found.group(1)


def snapshot_folder(cache_dir: Path, release: str) -> Path:
    """Where one release's answers are kept (the release made safe as a folder name)."""
    return Path(cache_dir) / "kegg" / re.sub(r"[^A-Za-z0-9.+-]", "_", release)


def fetch_snapshot(
    cache_dir: Path,
    *,
    base_url: str = REST_URL,
    bucket: TokenBucket = SHARED_BUCKET,
    retries: int = 4,
    backoff_s: float = 1.0,
) -> Path:
    """Fetch (or finish fetching) the current release's human data into the cache.

    In order: ``info/kegg``; the :data:`LISTS` answers; the PATHWAY entries of every human
    pathway, the DISEASE entries linked to human genes, the DRUG entries those link to and
    that target human genes; each pathway's KGML. Cached answers are not asked again.

    Returns:
        The snapshot folder (with ``manifest.json``: release, base URL, request counts).

    Raises:
        BlockedError: KEGG answered 403; FetchError: a request kept failing (rerun resumes);
        SourceFormatError: an answer is not in KEGG's format.
    """
    probe = KeggClient(Path(cache_dir) / "kegg", base_url, bucket, retries, backoff_s)
    info = probe.request(INFO) or b""
    release = release_of(info.decode("utf-8"), probe.url(INFO))
    client = KeggClient(snapshot_folder(cache_dir, release), base_url, bucket, retries, backoff_s)
    _write(client.folder / INFO, info)
    answers = {name: client.answer(path) for name, path in LISTS.items()}

    def column(name: str, side: int) -> list[str]:
        text = answers[name].read_text(encoding="utf-8")
        return [pair[side] for pair in read_pairs(text, client.url(LISTS[name]))]

    pathways = column("pathways", 1)
    pathway_entries = client.entries(pathways, database="path")
    diseases = client.entries(column("gene_diseases", 2), database="ds")
    drugs = set(column("drug_genes", 1))
    for path in (*pathway_entries.values(), *diseases.values()):
        for entry in read_flat(path.read_text(encoding="utf-8"), str(path)):
            drugs |= {drug_id(line.text) for line in entry.values("DRUG")} - {""}
    client.entries(drugs, database="dr")
    for pathway in pathways:
        client.kgml(pathway)
    manifest = {
        "release": release,
        "base_url": base_url,
        "requests": probe.requests + client.requests,
        "pathways": len(pathways),
        "diseases": len(diseases),
        "drugs": len(drugs),
    }
    _write(client.folder / MANIFEST, json.dumps(manifest, indent=1).encode())
    log.info("kegg %s: snapshot complete in %s (%s)", release, client.folder, manifest)
    return client.folder
