"""A loopback HTTP mirror of the sources' release servers, for ``biokg build --online``.

Each source's files are served at their **official paths** under ``/<source>`` (the rule of
:func:`biokg.ingest.online.download.mirrored`), so ``BIOKG_<SOURCE>_URL=http://127.0.0.1:P/<source>``
sends the real online fetch here unchanged:


* ChEMBL: ``ftp.ebi.ac.uk/pub/databases/chembl/ChEMBLdb/latest/`` (listing, tarball,
  ``checksums.txt``);
* openFDA: ``api.fda.gov/download.json`` and the parts at ``download.open.fda.gov/drug/label/``
  and ``drug/event/<quarter>/``;
* PrimeKG: ``dataverse.harvard.edu/api/access/datafile/6180620`` and the DrugBank map's GitHub
  path;
* KEGG: ``rest.kegg.jp`` (info, list, link, batched get, KGML), answered from a snapshot;

and, for ``biokg refresh``, each release marker (:mod:`biokg.ingest.upstream`: ``status.json``,
``download.json``, ``dataset.json``, ``info/kegg``); a refresh that finds a new release reads
the files at the same paths as the build (PrimeKG's also under their standard names).

The server speaks what the clients rely on: ``ETag`` and ``Last-Modified`` with conditional
requests (``304``), byte ranges with ``If-Range`` (``206``), and it can cut one answer half-way
(:meth:`Mirror.cut_next`) to test resuming. It binds 127.0.0.1 only and logs each request
(:attr:`Mirror.requests`).
"""

from __future__ import annotations

import email.utils
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CHEMBL_LATEST = "/pub/databases/chembl/ChEMBLdb/latest/"
PRIMEKG_KG = "/api/access/datafile/6180620"
PRIMEKG_MAP = "/dhimmel/drugbank/6b9ae38/data/mapping/chembl.tsv"


@dataclass(frozen=True)
class Logged:
    """One request as the mirror saw it."""

    path: str
    status: int
    range: str | None
    conditional: bool
    sent: int


class Mirror(ThreadingHTTPServer):
    """The loopback server: ``routes`` maps URL paths to files; ``kegg`` to a REST snapshot."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes: dict[str, Path] = {}
        self.kegg: Path | None = None
        self.requests: list[Logged] = []
        self._cut: set[str] = set()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def base(self, source: str) -> str:
        """``BIOKG_<SOURCE>_URL`` for a source published here."""
        return f"{self.url}/{source}"

    def env(self, sources: tuple[str, ...]) -> dict[str, str]:
        """The ``BIOKG_<SOURCE>_URL`` variables of ``sources``."""
        return {f"BIOKG_{s.upper()}_URL": self.base(s) for s in sources}

    def cut_next(self, path: str) -> None:
        """Send only the first half of the next answer to ``path``, then drop the connection."""
        self._cut.add(path)

    def take_cut(self, path: str) -> bool:
        if path in self._cut:
            self._cut.discard(path)
            return True
        return False

    def __enter__(self) -> Mirror:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


def _etag(path: Path) -> str:
    stat = path.stat()
    return f'"{stat.st_size:x}-{stat.st_mtime_ns:x}"'


class _Handler(BaseHTTPRequestHandler):
    server: Mirror
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        body_file = self.server.routes.get(path)
        if body_file is None and self.server.kegg is not None and path.startswith("/kegg/"):
            return self._kegg(path.removeprefix("/kegg/"))
        if body_file is None or not body_file.is_file():
            return self._send(404, b"not found\n", path)
        etag = _etag(body_file)
        modified = email.utils.formatdate(body_file.stat().st_mtime, usegmt=True)
        conditional = "If-None-Match" in self.headers or "If-Modified-Since" in self.headers
        if self.headers.get("If-None-Match") == etag or (
            "If-None-Match" not in self.headers
            and self.headers.get("If-Modified-Since") == modified
        ):
            return self._send(304, b"", path, {"ETag": etag, "Last-Modified": modified}, True)
        size = body_file.stat().st_size
        start = 0
        wanted = self.headers.get("Range")
        if wanted and self.headers.get("If-Range") in (None, etag, modified):
            start = int(wanted.removeprefix("bytes=").split("-")[0])
            if start >= size:
                return self._send(416, b"", path, {"Content-Range": f"bytes */{size}"})
        headers = {"ETag": etag, "Last-Modified": modified, "Accept-Ranges": "bytes"}
        if start:
            headers["Content-Range"] = f"bytes {start}-{size - 1}/{size}"
        self._stream(206 if start else 200, body_file, start, size, path, headers, conditional)

    def _stream(self, status: int, file: Path, start: int, size: int, path: str,
                headers: dict[str, str], conditional: bool) -> None:  # fmt: skip
        """Send ``file`` from ``start``; half of it, then a dropped connection, when cut."""
        length = size - start
        send = length // 2 if self.server.take_cut(path) else length
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        with open(file, "rb") as handle:
            handle.seek(start)
            left = send
            while left > 0:
                block = handle.read(min(left, 1 << 20))
                self.wfile.write(block)
                left -= len(block)
        self.server.requests.append(
            Logged(path, status, self.headers.get("Range"), conditional, send)
        )
        if send < length:
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)

    def _kegg(self, rest: str) -> None:
        """KEGG REST over a snapshot: a batched ``get/a+b`` joins the entries' files."""
        folder = self.server.kegg or Path("/nonexistent")
        parts = rest.split("/")
        if parts[0] == "get" and len(parts) == 2:
            files = [folder / "get" / key for key in parts[1].split("+")]
        else:
            files = [folder / rest]
        body = b"".join(f.read_bytes() for f in files if f.is_file())
        self._send(200 if body else 404, body, "/kegg/" + rest)

    def _send(self, status: int, body: bytes, path: str, headers: dict[str, str] | None = None,
              conditional: bool = False) -> None:  # fmt: skip
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)
        self.server.requests.append(Logged(path, status, None, conditional, len(body)))

    def log_message(self, *args: object) -> None:
        pass


# -- publishing the generated releases ---------------------------------------------------------
def publish_chembl(mirror: Mirror, folder: Path, release: str) -> None:
    """The ``latest/`` listing, tarball and checksums; ``status.json``."""
    tarball = f"chembl_{release}_sqlite.tar.gz"
    listing = folder / "latest.html"
    listing.write_text(
        "<html><body><pre>"
        + "".join(f'<a href="{n}">{n}</a>\n' for n in ("checksums.txt", tarball))
        + "</pre></body></html>\n"
    )
    status = folder / "status.json"
    status.write_text(json.dumps({"chembl_db_version": f"ChEMBL_{release}", "status": "UP"}))
    base = "/chembl"
    mirror.routes |= {
        base + CHEMBL_LATEST: listing,
        base + CHEMBL_LATEST + tarball: folder / tarball,
        base + CHEMBL_LATEST + "checksums.txt": folder / "checksums.txt",
        base + "/status.json": status,
    }


def publish_openfda(mirror: Mirror, folder: Path) -> None:
    """``download.json`` and every part at its download.open.fda.gov path."""
    mirror.routes["/openfda/download.json"] = folder / "download.json"
    for part in sorted(folder.glob("drug/**/*.zip")):
        mirror.routes["/openfda/" + part.relative_to(folder).as_posix()] = part


def publish_primekg(mirror: Mirror, folder: Path, version: str = "2.1") -> None:
    """kg.csv at its Dataverse access path, the DrugBank map at its GitHub path, the marker."""
    major, _, minor = version.partition(".")
    marker = folder / "dataset.json"
    marker.write_text(
        json.dumps({"data": {"versionNumber": int(major), "versionMinorNumber": int(minor)}})
    )
    mirror.routes |= {
        "/primekg" + PRIMEKG_KG: folder / "kg.csv",
        "/primekg" + PRIMEKG_MAP: folder / "drugbank_chembl.tsv",
        "/primekg/kg.csv": folder / "kg.csv",
        "/primekg/drugbank_chembl.tsv": folder / "drugbank_chembl.tsv",
        "/primekg/dataset.json": marker,
    }


def publish_kegg(mirror: Mirror, snapshot: Path) -> None:
    """KEGG's REST API answered from a snapshot folder (bench_kegg's)."""
    mirror.kegg = snapshot


def generated(source: str, scale: float) -> Path:
    """The cached folder of one source's generated release at ``scale`` (made when missing)."""
    import bench_primekg
    import gen_chembl
    import gen_openfda
    from release_common import CACHE

    folder = CACHE / source / f"release-scale-{scale:g}"
    if source == "chembl":
        gen_chembl.generate(folder, scale)
    elif source == "openfda":
        gen_openfda.generate(folder, scale)
    elif source == "primekg":
        bench_primekg.write_kg(folder, max(1, round(bench_primekg.FULL_ROWS * scale)))
    else:
        raise ValueError(f"no generator for {source!r}")
    return folder


def publish(mirror: Mirror, sources: tuple[str, ...], scale: float) -> dict[str, Path]:
    """Generate (or reuse) and publish each of ``sources`` (``kegg`` too: bench_kegg's
    snapshot); returns each source's generated folder."""
    folders = {}
    for source in sources:
        if source == "kegg":
            import bench_kegg

            folders[source], _ = bench_kegg.snapshot(max(scale, 0.01))
            publish_kegg(mirror, folders[source])
            continue
        folders[source] = generated(source, scale)
        if source == "chembl":
            import gen_chembl

            publish_chembl(mirror, folders[source], gen_chembl.RELEASE)
        elif source == "openfda":
            publish_openfda(mirror, folders[source])
        else:
            publish_primekg(mirror, folders[source])
    return folders
