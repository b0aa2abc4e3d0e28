"""Reading a patient described in words: the differential-diagnosis cue, and the observed and
excluded phrases (no graph: the phrases are linked to HPO terms by the agent's linker later)."""

from __future__ import annotations

import pytest

from biokg.graph_agent.described import PhenotypeList, read_phenotype_list


@pytest.mark.parametrize(
    ("question", "observed", "excluded"),
    [
        (
            "a child with seizures, hypotonia and microcephaly but no fever: which diseases fit?",
            ["seizures", "hypotonia", "microcephaly"],
            ["fever"],
        ),
        (
            "Which diseases fit arachnodactyly, ectopia lentis and aortic root dilatation, "
            "without seizures?",
            ["arachnodactyly", "ectopia lentis", "aortic root dilatation"],
            ["seizures"],
        ),
        (
            "A 5-year-old boy has tall stature, lens dislocation; no intellectual disability "
            "or scoliosis. What fits?",
            ["tall stature", "lens dislocation"],
            ["intellectual disability", "scoliosis"],
        ),
        (
            "Differential diagnosis for a patient with hypotonia, seizures but not microcephaly",
            ["hypotonia", "seizures"],
            ["microcephaly"],
        ),
        (
            "Which disorders are consistent with cataract and deafness?",
            ["cataract", "deafness"],
            [],
        ),
        (
            "I have a patient with the following symptoms: short stature, cataract, hearing "
            "loss. What disease should I diagnose?",
            ["short stature", "cataract", "hearing loss"],
            [],
        ),
        (
            "My patient has seizures and hypotonia, no fever. Which syndrome would you suspect?",
            ["seizures", "hypotonia"],
            ["fever"],
        ),
    ],
    ids=[
        "child-but-no",
        "which-fit-without",
        "what-fits-no-or",
        "differential-but-not",
        "consistent-with",
        "should-i-diagnose",
        "would-you-suspect",
    ],
)
def test_a_described_patient_splits_into_observed_and_excluded_phrases(
    question: str, observed: list[str], excluded: list[str]
) -> None:
    assert read_phenotype_list(question) == PhenotypeList(observed, excluded)


@pytest.mark.parametrize(
    "question",
    [
        "Which diseases cause seizures?",
        "What are the phenotypes of Marfan syndrome?",
        "What does Viagra target?",
        "Which diseases fit?",
        "Which diseases should I consider?",
        "What conditions should we consider treating with metformin?",
    ],
    ids=[
        "cause",
        "phenotypes-of",
        "drug-targets",
        "nothing-described",
        "nothing-to-consider",
        "consider-treating",
    ],
)
def test_other_questions_are_not_read_as_a_patient(question: str) -> None:
    assert read_phenotype_list(question) is None
