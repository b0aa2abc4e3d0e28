"""Upstream release discovery: which release each source publishes now, in one small request.

Each source has a *marker*: the smallest document its publisher keeps current with the release,
declared with the source (``SOURCE.upstream``, :class:`~biokg.ingest.sources.base.Upstream`). A
refresh asks for it conditionally (``If-None-Match`` with the ETag, ``If-Modified-Since`` with
the ``Last-Modified`` of the previous answer, both kept on the current ``:SourceVersion``), so an
unchanged source costs one request answered ``304`` and no download, parse or write.

| source | marker | release read from it |
|---|---|---|
| HPO | GitHub's latest-release JSON of obophenotype/human-phenotype-ontology | ``tag_name`` |
| GO | ``current.geneontology.org/metadata/release-date.json`` | ``date`` |
| ChEMBL | the ChEMBL API's ``status.json`` | ``chembl_db_version`` |
| openFDA | ``api.fda.gov/download.json`` | drug/label and drug/event ``export_date`` |
| PrimeKG | Harvard Dataverse's latest dataset version (doi:10.7910/DVN/IXA7BM) | version number |
| KEGG | ``info/kegg`` of the REST API | ``Release ...`` line |

Where a publisher keeps no validators, the marker's body decides (a changed release string). A
*mirror* (``BIOKG_<SOURCE>_URL``: another server, a local copy, the tests' loopback server)
serves the marker under :attr:`Upstream.marker_name`; HPO's, GO's and PrimeKG's files under their
standard names; ChEMBL's, openFDA's and KEGG's in their publishers' own layouts, which the
sources' online fetch reads, as for ``biokg build --online``.
"""

from __future__ import annotations

import gzip
import http.client
import json
import shutil
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from biokg.core.settings import Settings
from biokg.errors import ConfigError, FetchError, FetchRefusedError, SourceFormatError
from biokg.ingest.build import source_module
from biokg.ingest.online.download import TRANSIENT_4XX, USER_AGENT, download, unresolved
from biokg.ingest.sources.base import Upstream

MARKER_TIMEOUT_S = 30


@dataclass(frozen=True)
class UpstreamState:
    """What the marker said: the release, and the validators to ask again conditionally."""

    url: str
    version: str
    etag: str | None = None
    last_modified: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> UpstreamState | None:
        return cls(**json.loads(text)) if text else None


def upstream_of(name: str) -> Upstream:
    """The source's release marker, as its ``SOURCE`` declares it.

    Raises:
        BiokgError: an unknown source name.
    """
    return source_module(name).SOURCE.upstream


def marker_url(name: str, settings: Settings) -> str:
    """The marker's URL: under the source's mirror when ``BIOKG_<SOURCE>_URL`` is set."""
    upstream = upstream_of(name)
    base = settings.source_url(name)
    return f"{base.rstrip('/')}/{upstream.marker_name}" if base else upstream.marker_url


def check_upstream(name: str, settings: Settings, previous: UpstreamState | None) -> UpstreamState:
    """Ask the source's marker which release it publishes, conditionally on ``previous``.

    Returns:
        ``previous`` itself when the server answers 304 Not Modified, else the new state.

    Raises:
        FetchError: no answer, or a 5xx/408/429 (retryable).
        FetchRefusedError: the host name does not resolve (retrying will not help).
        ConfigError: another 4xx (a wrong URL: retrying will not help).
        SourceFormatError: the marker does not hold what it should.
    """
    url = marker_url(name, settings)
    headers = {"User-Agent": USER_AGENT}
    if previous is not None and previous.url == url:
        if previous.etag:
            headers["If-None-Match"] = previous.etag
        if previous.last_modified:
            headers["If-Modified-Since"] = previous.last_modified
    try:
        request = urllib.request.Request(url, headers=headers)
        with urllib.request.urlopen(request, timeout=MARKER_TIMEOUT_S) as response:
            body = response.read()
            etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
    except urllib.error.HTTPError as err:
        if err.code == 304 and previous is not None:
            return previous
        if err.code >= 500 or err.code in TRANSIENT_4XX:
            raise FetchError(f"{name}: release marker {url}: HTTP {err.code} {err.reason}") from err
        raise ConfigError(
            f"{name}: release marker {url}: HTTP {err.code} {err.reason}; check "
            f"BIOKG_{name.upper()}_URL or the source's marker URL"
        ) from err
    except (urllib.error.URLError, http.client.HTTPException, TimeoutError, OSError) as err:
        if unresolved(err):
            raise FetchRefusedError(f"{name}: release marker {url}: host not found: {err}") from err
        raise FetchError(f"{name}: release marker {url} unreachable: {err}") from err
    version = upstream_of(name).read_marker(body, f"{name}: release marker {url}")
    return UpstreamState(url, version, etag, modified)


def download_inputs(name: str, settings: Settings) -> Path | None:
    """Download the source's files from its mirror or official URLs into a folder that
    ``fetch(data_dir=...)`` reads (conditional requests: unchanged files are not downloaded
    again); None when the source is fetched by its own online client instead.

    Raises:
        FetchError: a download failed after retries (retryable).
    """
    upstream = upstream_of(name)
    base = settings.source_url(name)
    if base and upstream.files:
        urls = {file: f"{base.rstrip('/')}/{file}" for file in upstream.files}
    elif upstream.official is not None:
        urls = upstream.official
    else:
        return None
    folder = settings.cache_dir / "refresh" / name
    for file, url in urls.items():
        path = download(url, folder / "downloads")
        _place(path, folder / file.removesuffix(".gz"), packed=file.endswith(".gz"))
    return folder


def _place(downloaded: Path, target: Path, *, packed: bool) -> None:
    """Copy (or unpack) a downloaded file under the name the source reads."""
    if target.is_file() and target.stat().st_mtime_ns >= downloaded.stat().st_mtime_ns:
        return
    partial = target.with_name(target.name + ".part")
    with (gzip.open if packed else open)(downloaded, "rb") as src, open(partial, "wb") as out:
        try:
            shutil.copyfileobj(src, out, 1 << 20)
        except (OSError, EOFError) as err:
            raise SourceFormatError(f"{downloaded}: cannot unpack: {err}") from err
    partial.replace(target)
