"""Fixtures of the agent's fast layer: a small lexicon in memory, no graph engine.

The rows are shaped like the graph's lexicon rows (``cypher/agent_lexicon.cypher``) and go
through the same key building as the real lexicon (``Lexicon.from_rows``). Names are real ones
from HPO, OMIM, Orphanet, GO, NCBI Gene and ChEMBL, so that word frequencies and key rules meet
what they meet on the full graph; which edges exist does not matter here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.graph_agent.intent import QuestionReader
from biokg.graph_agent.lexicon import Lexicon
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.paraphrase import RelationMatcher
from biokg.graph_agent.planner import DeterministicPlanner
from biokg.schema import load_schema

ROWS = [
    {"id": "OMIM:154700", "label": "Disease", "name": "Marfan syndrome"},
    {"id": "ORPHA:558", "label": "Disease", "name": "Marfan syndrome"},
    {"id": "ORPHA:112", "label": "Disease", "name": "Bartter syndrome"},
    {"id": "OMIM:607364", "label": "Disease", "name": "Bartter syndrome, type 3"},
    {"id": "OMIM:602522", "label": "Disease", "name": "Bartter syndrome, type 4A"},
    {"id": "OMIM:162300", "label": "Disease", "name": "Multiple endocrine neoplasia, type IIB"},
    {
        "id": "OMIM:309900",
        "label": "Disease",
        "name": "Mucopolysaccharidosis, type II",
        "synonyms": ["Hunter syndrome"],
    },
    # an OMIM title with qualifiers, a phenotype spelt close to its head, a one-word head
    {
        "id": "OMIM:313200",
        "label": "Disease",
        "name": "Spinal and bulbar muscular atrophy, X-linked 1",
    },
    {"id": "HP:0007269", "label": "Phenotype", "name": "Spinal muscular atrophy"},
    {
        "id": "HP:0003202",
        "label": "Phenotype",
        "name": "Skeletal muscle atrophy",
        "synonyms": ["Muscular atrophy"],
    },
    {"id": "OMIM:220290", "label": "Disease", "name": "Deafness, autosomal recessive 1A"},
    # an inverted "of" title: its head is the complement, no disease
    {"id": "OMIM:178300", "label": "Disease", "name": "Radial heads, posterior dislocation of"},
    {"id": "HP:0003083", "label": "Phenotype", "name": "Dislocated radial head"},
    {
        "id": "HP:0100580",
        "label": "Phenotype",
        "name": "Barrett esophagus",
        "synonyms": ["Barrett syndrome"],
    },
    # a phenotype named by a change in a gene product's level, and the gene
    {
        "id": "HP:0006254",
        "label": "Phenotype",
        "name": "Elevated circulating alpha-fetoprotein concentration",
        "synonyms": ["Increased levels of alpha-fetoprotein"],
    },
    {"id": "NCBIGene:174", "label": "Gene", "name": "alpha fetoprotein", "symbol": "AFP"},
    # a symbol the lemmatizer reads as a stop word ("ins" -> "in")
    {"id": "NCBIGene:3630", "label": "Gene", "name": "insulin", "symbol": "INS"},
    # an alias written as one word with a dash (NCBI's), met by "IL-1β"
    {
        "id": "NCBIGene:3553",
        "label": "Gene",
        "name": "interleukin 1 beta",
        "symbol": "IL1B",
        "synonyms": ["IL1-BETA", "IL-1"],
    },
    {"id": "MESH:D006973", "label": "Disease", "name": "Hypertension"},
    {"id": "HP:0000822", "label": "Phenotype", "name": "Hypertension"},
    {"id": "HP:0012828", "label": "Phenotype", "name": "Severe"},
    {
        "id": "HP:0000006",
        "label": "Phenotype",
        "name": "Autosomal dominant inheritance",
        "synonyms": ["Autosomal dominant"],
    },
    {"id": "HP:0001166", "label": "Phenotype", "name": "Arachnodactyly"},
    {"id": "HP:0000005", "label": "Phenotype", "name": "Mode of inheritance"},
    {
        "id": "NCBIGene:2200",
        "label": "Gene",
        "name": "fibrillin 1",
        "symbol": "FBN1",
        "synonyms": ["MFS1", "SGS"],
    },
    # ID1's alias "ID" and an alias spelt like an English word, as the issue met them
    {
        "id": "NCBIGene:3397",
        "label": "Gene",
        "name": "inhibitor of DNA binding 1",
        "symbol": "ID1",
        "synonyms": ["ID", "bHLHb24"],
    },
    {
        "id": "NCBIGene:8717",
        "label": "Gene",
        "name": "TNFRSF1A associated via death domain",
        "symbol": "TRADD",
        "synonyms": ["Hs.89862", "TRADE"],
    },
    {
        "id": "NCBIGene:54363",
        "label": "Gene",
        "name": "hydroxyacid oxidase 1",
        "symbol": "HAO1",
        "synonyms": ["GO", "GOX1"],
    },
    # a gene alias that is a type's Roman number
    {
        "id": "NCBIGene:2651",
        "label": "Gene",
        "name": "glucosaminyl (N-acetyl) transferase 2 (I blood group)",
        "symbol": "GCNT2",
        "synonyms": ["II"],
    },
    # a symbol that wordfreq lists as a (rare) English word: "apoe" 2.0
    {"id": "NCBIGene:348", "label": "Gene", "name": "apolipoprotein E", "symbol": "APOE"},
    # a gene name one letter from DCLRE1C's alias ARTEMIS, which this lexicon lacks
    {"id": "NCBIGene:9048", "label": "Gene", "name": "artemin", "symbol": "ARTN"},
    {"id": "GO:0005739", "label": "GOTerm", "name": "mitochondrion"},
    {
        "id": "GO:1900711",
        "label": "GOTerm",
        "name": "negative regulation of tensidol B biosynthetic process",
    },
    {
        "id": "GO:1900708",
        "label": "GOTerm",
        "name": "negative regulation of tensidol A biosynthetic process",
    },
    {
        "id": "GO:0060837",
        "label": "GOTerm",
        "name": "blood vessel endothelial cell differentiation",
    },
    {
        "id": "NCBIGene:2532",
        "label": "Gene",
        "name": "atypical chemokine receptor 1 (Duffy blood group)",
        "symbol": "ACKR1",
    },
    {"id": "OMIM:223200", "label": "Disease", "name": "Disorganization, mouse, homolog of"},
    {
        "id": "GO:0032991",
        "label": "GOTerm",
        "name": "protein-containing complex",
        "synonyms": ["protein complex"],
    },
    {
        "id": "CHEMBL.COMPOUND:CHEMBL192",
        "label": "Drug",
        "name": "SILDENAFIL",
        "brand_names": ["VIAGRA", "Viagra", "REVATIO"],
        "generic_names": ["SILDENAFIL CITRATE"],
        "xrefs": ["UNII:BW9B0ZE037"],
    },
    {"id": "UNII:2P299V784P", "label": "Drug", "name": "LEAD"},
]


UNIT_TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in this folder ``unit``, so ``pytest -m unit`` runs the engine-free layer
    alone (a conftest's collection hook sees the whole session's items: filter by path)."""
    for item in items:
        if UNIT_TESTS in item.path.parents:
            item.add_marker(pytest.mark.unit)


@pytest.fixture(scope="session")
def reader() -> QuestionReader:
    return QuestionReader(load_schema())


@pytest.fixture(scope="session")
def linker(reader: QuestionReader) -> EntityLinker:
    return EntityLinker.reading_with(Lexicon.from_rows(ROWS), reader)


@pytest.fixture(scope="session")
def matcher(sentence_embedder: OnnxEmbedder) -> RelationMatcher:
    return RelationMatcher(load_schema(), sentence_embedder)


@pytest.fixture(scope="session")
def planner_with_matcher(matcher: RelationMatcher, reader: QuestionReader) -> DeterministicPlanner:
    return DeterministicPlanner(matcher.schema, reader=reader, matcher=matcher)


@pytest.fixture(scope="session")
def planner(reader: QuestionReader) -> DeterministicPlanner:
    return DeterministicPlanner(load_schema(), reader=reader)
