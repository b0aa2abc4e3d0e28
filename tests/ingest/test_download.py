"""The download cache resumes a cut-off download with an HTTP Range request (PrimeKG's kg.csv is
~1 GB), on a loopback server that drops the first connection half-way through the file."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from biokg.core.files import sha256
from biokg.ingest.online.download import download

BODY = b"".join(b"relation,row,%d\n" % i for i in range(50_000))
ETAG = '"kg-v2.1"'


class Server(ThreadingHTTPServer):
    cut_first: bool = True
    ranges: list[str | None]


class Handler(BaseHTTPRequestHandler):
    server: Server

    def do_GET(self) -> None:
        wanted = self.headers.get("Range")
        self.server.ranges.append(wanted)
        start = 0
        if wanted and self.headers.get("If-Range") == ETAG:
            start = int(wanted.removeprefix("bytes=").split("-")[0])
        body = BODY[start:]
        self.send_response(206 if start else 200)
        self.send_header("ETag", ETAG)
        self.send_header("Content-Length", str(len(body)))
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(BODY) - 1}/{len(BODY)}")
        self.end_headers()
        if self.server.cut_first:
            self.server.cut_first = False
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.connection.close()  # the client sees an incomplete read
            return
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[Server]:
    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.ranges = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()


def test_a_cut_download_resumes_from_where_it_stopped(server: Server, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{server.server_address[1]}/api/access/datafile/6180620"
    path = download(url, tmp_path, backoff_s=0)
    assert path.read_bytes() == BODY
    first, second = server.ranges
    assert first is None
    assert second is not None and int(second.removeprefix("bytes=").rstrip("-")) == len(BODY) // 2
    assert not list(tmp_path.glob("*.part*"))
    assert (tmp_path / "6180620.meta.json").read_text().count(sha256(path)) == 1
