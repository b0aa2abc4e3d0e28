"""openFDA's bulk downloads at real size and shape: drug/label parts, the newest FAERS quarter's
drug/event parts, and the ``download.json`` index that lists them.

Sizes (openFDA, 2025): the drug/label export holds ~250,000 SPL records in 13 zipped parts of
``{"meta", "results"}``; about 40% are prescription labels with ~20 LOINC-coded sections of
0.3-12 KB text each (``indications_and_usage``, ``adverse_reactions``, ``boxed_warning`` on
~8%...), the rest OTC and other labels with ~9 short sections (``purpose``, ``do_not_use``,
``keep_out_of_reach_of_children``...); ~45,000 distinct UNIIs, one to three per label. A FAERS
quarter holds ~400,000 reports (parts of ~13,000), ~3 drugs (70% harmonised with
``openfda.unii``) and ~3 reactions each, over ~8,000 MedDRA preferred terms.

Real records are kept with their real ids: the 500 harmonised products of the offline folder
(each as a label record, its ``openfda`` block only), the three real SPL labels (read by
:func:`biokg.ingest.formats.spl.spl_to_label`, sections and all) and the real FAERS report.
Everything else is invented: UNIIs ``ZQ`` + 8 characters, pseudo-word names and MedDRA terms
(:func:`release_common.pseudo_words`), text built from pseudo-words at the sections' lengths.
"""

from __future__ import annotations

import io
import itertools
import json
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from release_common import pseudo_words, stamped

from biokg.core.settings import Settings
from biokg.ingest.formats.spl import spl_to_label
from biokg.ingest.sources.openfda import EVENTS_FILE, PRODUCTS_FILE, SAMPLE_FOLDER, SOURCE

#: the real openFDA sample the generated files start from (BIOKG_SHARED_DATA)
SAMPLE = SOURCE.fetch_options(Settings.from_env())["shared"][SAMPLE_FOLDER]

GENERATOR_VERSION = "2"  # 2: distinct invented UNIIs (1 gave every one ZQ00000000)
SEED = 2025
EXPORT = (2025, 11, 14)  # export date of every part (the zips' member time: the version)
FULL = {
    "labels": 250_000,
    "label_parts": 13,
    "uniis": 45_000,
    "reports": 400_000,
    "event_parts": 31,
    "terms": 8_000,
}
RX_SHARE = 0.4
#: section -> (share of labels that have it, mean characters), prescription and OTC labels
RX_SECTIONS = {
    "indications_and_usage": (1.0, 900),
    "dosage_and_administration": (1.0, 3_000),
    "dosage_forms_and_strengths": (0.8, 400),
    "contraindications": (0.95, 500),
    "warnings_and_cautions": (0.8, 6_000),
    "warnings": (0.2, 4_000),
    "adverse_reactions": (0.95, 8_000),
    "drug_interactions": (0.85, 2_500),
    "use_in_specific_populations": (0.8, 3_000),
    "pregnancy": (0.85, 1_500),
    "pediatric_use": (0.85, 500),
    "geriatric_use": (0.8, 600),
    "overdosage": (0.9, 700),
    "description": (1.0, 1_200),
    "clinical_pharmacology": (0.95, 4_000),
    "mechanism_of_action": (0.8, 500),
    "clinical_studies": (0.6, 5_000),
    "how_supplied": (1.0, 700),
    "information_for_patients": (0.7, 2_000),
    "boxed_warning": (0.08, 1_200),
    "package_label_principal_display_panel": (1.0, 300),
    "spl_unclassified_section": (0.3, 600),
}
OTC_SECTIONS = {
    "active_ingredient": (1.0, 80),
    "purpose": (1.0, 40),
    "indications_and_usage": (1.0, 200),
    "warnings": (1.0, 600),
    "do_not_use": (0.6, 150),
    "ask_doctor": (0.6, 200),
    "stop_use": (0.7, 200),
    "keep_out_of_reach_of_children": (0.95, 120),
    "dosage_and_administration": (1.0, 400),
    "inactive_ingredient": (0.95, 300),
    "package_label_principal_display_panel": (1.0, 200),
}


def counts(scale: float) -> dict[str, int]:
    """The export's counts at ``scale`` (at least one of each)."""
    return {k: max(1, round(v * scale)) for k, v in FULL.items()}


def generate(folder: Path, scale: float) -> dict:
    """Bulk parts under ``folder/drug/label``, ``folder/drug/event/<quarter>`` and the index
    ``folder/download.json`` (with official URLs, as openFDA publishes it)."""
    key = {"version": GENERATOR_VERSION, "seed": SEED, "scale": scale}
    return stamped(folder, key, lambda out: _write(out, scale))


class Text:
    """Section text of a given length from a fixed pool of pseudo-word sentences (fast)."""

    def __init__(self, rng: np.random.Generator) -> None:
        words = pseudo_words(rng, 3_000).to_list()
        self.rng = rng
        self.sentences = [
            " ".join(rng.choice(words, size=rng.integers(6, 20))).capitalize() + "."
            for _ in range(4_000)
        ]

    def __call__(self, mean: int) -> str:
        length = max(20, int(self.rng.exponential(mean)))
        out, size = [], 0
        while size < length:
            out.append(self.sentences[int(self.rng.integers(len(self.sentences)))])
            size += len(out[-1]) + 1
        return " ".join(out)


def _write(folder: Path, scale: float) -> dict:
    rng = np.random.default_rng(SEED)
    want = counts(scale)
    text = Text(rng)
    names = pseudo_words(rng, want["uniis"] * 2 + 200).to_list()
    # distinct codes: ZQ + 8 hex digits (real UNIIs are 10 characters and never start ZQ)
    uniis = [f"ZQ{code:08X}" for code in rng.choice(16**8, size=want["uniis"], replace=False)]
    real = _real_labels()
    labels = itertools.chain(real, (_label(rng, text, names, uniis) for _ in range(want["labels"])))
    n_labels = len(real) + want["labels"]
    label_files = _parts(folder, "drug/label", "drug-label", labels, n_labels, want["label_parts"])
    terms = [w.upper() for w in pseudo_words(rng, want["terms"] * 2).to_list()]
    terms = [f"{terms[2 * i]} {terms[2 * i + 1]}" for i in range(want["terms"])]
    real_report = json.loads((SAMPLE / EVENTS_FILE).read_text())
    reports = itertools.chain(
        [real_report], (_report(rng, i, names, uniis, terms) for i in range(want["reports"]))
    )
    n_reports = want["reports"] + 1
    quarter = "drug/event/2025q3"
    events = _parts(folder, quarter, "drug-event", reports, n_reports, want["event_parts"])
    older = _parts(folder, "drug/event/2025q2", "drug-event", iter([real_report]), 1, 1)
    index = {
        "meta": {"last_updated": "2025-11-14"},
        "results": {
            "drug": {
                "label": _index_entry(label_files, n_labels),
                "event": _index_entry(older + events, n_reports + 1),
            }
        },
    }
    (folder / "download.json").write_text(json.dumps(index, indent=1))
    return {
        "labels": n_labels,
        "reports": n_reports,
        "uniis": len(uniis),
        "bytes": sum(p["path"].stat().st_size for p in label_files + events),
    }


def _real_labels() -> list[dict]:
    """The offline products as label records (``openfda`` block only), then the real SPLs."""
    records = []
    for line in (SAMPLE / PRODUCTS_FILE).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        p = json.loads(line)
        unii = p["unii_indexing"] if isinstance(p["unii_indexing"], list) else []
        openfda = {
            "brand_name": [p["brand_name"]],
            "generic_name": [p["generic_name"]],
            "manufacturer_name": [p["manufacturer_name"]],
            "product_type": [p["product_type"]],
            "unii": [u["unii"] for u in unii],
            "substance_name": [u["name"] for u in unii],
            "rxcui": [r["rxcui"] for r in p["rxnorm"]],
            "spl_set_id": [p["spl_set_id"]],
        }
        records.append(
            {
                "id": str(uuid.uuid5(uuid.NAMESPACE_URL, line)),
                "set_id": p["spl_set_id"],
                "version": p["spl_version"],
                "openfda": openfda,
            }
        )
    for spl in sorted(SAMPLE.glob("spl_*.xml")):
        record = spl_to_label(spl)
        record.pop("section_codes", None)  # the JSON export names sections by field only
        records.append(record)
    return records


def _label(rng: np.random.Generator, text: Text, names: list[str], uniis: list[str]) -> dict:
    rx = rng.random() < RX_SHARE
    k = 1 if rng.random() < 0.85 else int(rng.integers(2, 4))
    picks = rng.choice(len(uniis), size=k, replace=False)
    brand = names[int(rng.integers(len(names)))].capitalize()
    sections = RX_SECTIONS if rx else OTC_SECTIONS
    record = {
        "id": str(uuid.UUID(int=int(rng.integers(2**63)) << 64 | int(rng.integers(2**63)))),
        "set_id": str(uuid.UUID(int=int(rng.integers(2**63)) << 63 | int(rng.integers(2**62)))),
        "version": str(int(rng.integers(1, 30))),
        "effective_time": f"20{int(rng.integers(10, 26))}{int(rng.integers(1, 13)):02d}15",
        "openfda": {
            "brand_name": [brand],
            "generic_name": [" and ".join(names[i].upper() for i in picks)],
            "manufacturer_name": [f"{names[int(rng.integers(len(names)))].capitalize()} Inc."],
            "product_type": ["HUMAN PRESCRIPTION DRUG" if rx else "HUMAN OTC DRUG"],
            "unii": [uniis[i] for i in picks],
            "substance_name": [names[i].upper() for i in picks],
        },
    }
    for section, (share, mean) in sections.items():
        if rng.random() < share:
            record[section] = [text(mean)]
    return record


def _report(
    rng: np.random.Generator, i: int, names: list[str], uniis: list[str], terms: list[str]
) -> dict:
    drugs = []
    for _ in range(max(1, int(rng.poisson(3)))):
        u = int(rng.integers(len(uniis)))
        drug = {
            "medicinalproduct": names[u].upper(),
            "drugcharacterization": str(rng.choice(["1", "2", "3"], p=[0.5, 0.45, 0.05])),
        }
        if rng.random() < 0.7:
            drug["openfda"] = {"unii": [uniis[u]]}
        drugs.append(drug)
    reactions = [
        {"reactionmeddrapt": terms[int(rng.integers(len(terms)))]}
        for _ in range(max(1, int(rng.poisson(3))))
    ]
    return {
        "safetyreportid": str(90_000_000 + i),
        "transmissiondate": "20251014",
        "serious": "1",
        "patient": {"drug": drugs, "reaction": reactions},
    }


def _parts(
    folder: Path, path: str, stem: str, records: Iterator[dict], total: int, parts: int
) -> list[dict]:
    """Zipped ``{"meta", "results"}`` parts under ``folder/path`` (one part in memory at a
    time); their index entries."""
    out = folder / path
    out.mkdir(parents=True, exist_ok=True)
    size = -(-total // parts)
    entries = []
    for n in range(parts):
        name = f"{stem}-{n + 1:04d}-of-{parts:04d}.json"
        chunk = list(itertools.islice(records, size))
        body = json.dumps(
            {
                "meta": {
                    "last_updated": "2025-11-14",
                    "results": {"skip": 0, "limit": len(chunk), "total": len(chunk)},
                },
                "results": chunk,
            }
        )
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
            archive.writestr(
                zipfile.ZipInfo(name, (*EXPORT, 0, 0, 0)), body, compress_type=zipfile.ZIP_DEFLATED
            )
        (out / f"{name}.zip").write_bytes(buffer.getvalue())
        entries.append(
            {"path": out / f"{name}.zip", "url": f"{path}/{name}.zip", "records": len(chunk)}
        )
    return entries


def _index_entry(parts: list[dict], total: int) -> dict:
    """One endpoint of download.json, with the official download.open.fda.gov URLs."""
    return {
        "export_date": "{:04d}-{:02d}-{:02d}".format(*EXPORT),
        "total_records": total,
        "partitions": [
            {
                "display_name": f"{p['url'].rsplit('/', 1)[-1]}",
                "records": p["records"],
                "size_mb": f"{p['path'].stat().st_size / 1e6:.2f}",
                "file": f"https://download.open.fda.gov/{p['url']}",
            }
            for p in parts
        ],
    }
