"""SPL XML (HL7 v3 Structured Product Labeling) to a label record shaped like openFDA drug/label.

Format: SPL R5 (https://www.fda.gov/industry/fda-data-standards-advisory-board/structured-product-
labeling-resources), namespace ``urn:hl7-org:v3``. openFDA's drug/label endpoint
(https://open.fda.gov/apis/drug/label/) serves the same labels as JSON; :func:`spl_to_label`
returns that JSON's shape so the openFDA source treats an SPL file and an API record alike:

* ``set_id``, ``id``, ``version``, ``effective_time``: the document's ``setId/@root``,
  ``id/@root``, ``versionNumber/@value``, ``effectiveTime/@value``;
* ``openfda``: ``brand_name``, ``generic_name``, ``substance_name``, ``unii``,
  ``manufacturer_name``, ``product_type`` (lists, first-seen order, no duplicates), from the
  product data elements: ``manufacturedProduct/name``, ``genericMedicine/name``, the active
  ingredients' ``ingredientSubstance`` (UNII code system 2.16.840.1.113883.4.9), the author
  organization and the document type (``HUMAN PRESCRIPTION DRUG LABEL`` -> ``HUMAN PRESCRIPTION
  DRUG`` as openFDA writes it);
* one key per section whose LOINC code is in :data:`LOINC_SECTIONS`, a list of texts (one per
  section with that code, nested sections included, as openFDA does: ``pregnancy`` also sits
  inside ``use_in_specific_populations``). Text is the section's text content, title first,
  whitespace collapsed.

Sections whose code has no openFDA field (e.g. 60684-8 Cellular Therapy) and SPL unclassified
sections nested inside a mapped section (their text is already in the parent) get no key;
``section_codes`` lists the LOINC code of every key, for provenance.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from biokg.errors import SourceFormatError

NS = "{urn:hl7-org:v3}"
UNII_SYSTEM = "2.16.840.1.113883.4.9"  # FDA UNII code system OID
LOINC_SYSTEM = "2.16.840.1.113883.6.1"
UNCLASSIFIED = "42229-5"
# Ingredient classCodes of active ingredients (SPL R5: ACTIB basis of strength, ACTIM moiety
# basis, ACTIR reference drug); older SPL uses <activeIngredient> elements instead.
ACTIVE_CLASSES = frozenset({"ACTIB", "ACTIM", "ACTIR"})

# LOINC section code -> openFDA drug/label field. Names from the SPL section->LOINC map shipped
# with openFDA (spl_sections.csv, https://github.com/FDA/openfda), field names from the label
# schema (druglabel_schema.json, https://open.fda.gov/apis/drug/label/searchable-fields/):
# lower-cased, "&" -> "and", "/" -> "or", other punctuation -> "_", except where openFDA's field
# differs (43685-7 warnings_and_cautions, 42229-5 spl_unclassified_section, 60558-4 cleaning,
# 60562-6 route). 60684-8 Cellular Therapy has no openFDA field and is left out.
LOINC_SECTIONS = {
    "34086-9": "abuse",  # Abuse
    "60555-0": "accessories",  # Accessories
    "55106-9": "active_ingredient",  # Active Ingredient
    "34084-4": "adverse_reactions",  # Adverse Reactions
    "69761-5": "alarms",  # Alarms
    "34091-9": "animal_pharmacology_and_or_toxicology",  # Animal Pharmacology & or Toxicology
    "50569-3": "ask_doctor",  # Ask Doctor
    "50568-5": "ask_doctor_or_pharmacist",  # Ask Doctor/Pharmacist
    "60556-8": "assembly_or_installation_instructions",  # Assembly or Installation Instructions
    "34066-1": "boxed_warning",  # Boxed Warning
    "60557-6": "calibration_instructions",  # Calibration Instructions
    # Carcinogenesis & Mutagenesis & Impairment of Fertility
    "34083-6": "carcinogenesis_and_mutagenesis_and_impairment_of_fertility",
    "60558-4": "cleaning",  # Cleaning, Disinfecting, and Sterilization Instructions
    "34090-1": "clinical_pharmacology",  # Clinical Pharmacology
    "34092-7": "clinical_studies",  # Clinical Studies
    "69760-7": "compatible_accessories",  # Compatible Accessories
    "60559-2": "components",  # Components
    "34070-3": "contraindications",  # Contraindications
    "34085-1": "controlled_substance",  # Controlled Substance
    "34087-7": "dependence",  # Dependence
    "34089-3": "description",  # Description
    "69758-1": "diagram_of_device",  # Diagram of Device
    "69763-1": "disposal_and_waste_handling",  # Disposal and Waste Handling
    "50570-1": "do_not_use",  # Do Not Use
    "34068-7": "dosage_and_administration",  # Dosage & Administration
    "43678-2": "dosage_forms_and_strengths",  # Dosage Forms & Strengths
    "42227-9": "drug_abuse_and_dependence",  # Drug Abuse and Dependence
    "34074-5": "drug_and_or_laboratory_test_interactions",  # Drug & or Laboratory Test Interactions
    "34073-7": "drug_interactions",  # Drug Interactions
    "50742-6": "environmental_warning",  # Environmental Warning
    "50743-4": "food_safety_warning",  # Food Safety Warning
    "34072-9": "general_precautions",  # General Precautions
    "34082-8": "geriatric_use",  # Geriatric Use
    "50740-0": "guaranteed_analysis_of_feed",  # Guaranteed Analysis of Feed
    "71744-7": "health_care_provider_letter",  # Health Care Provider Letter
    "69719-3": "health_claim",  # Health Claim
    "34069-5": "how_supplied",  # How Supplied
    "51727-6": "inactive_ingredient",  # Inactive Ingredient
    "34067-9": "indications_and_usage",  # Indications & Usage
    "50744-2": "information_for_owners_or_caregivers",  # Information for Owners/Caregivers
    "34076-0": "information_for_patients",  # Information for Patients
    "59845-8": "instructions_for_use",  # Instructions for Use
    "60560-0": "intended_use_of_the_device",  # Intended Use of the Device
    "50565-1": "keep_out_of_reach_of_children",  # Keep Out of Reach of Children
    "34079-4": "labor_and_delivery",  # Labor & Delivery
    "34075-2": "laboratory_tests",  # Laboratory Tests
    "43679-0": "mechanism_of_action",  # Mechanism of Action
    "49489-8": "microbiology",  # Microbiology
    "43680-8": "nonclinical_toxicology",  # Nonclinical Toxicology
    "34078-6": "nonteratogenic_effects",  # Nonteratogenic Effects
    "34080-2": "nursing_mothers",  # Nursing Mothers
    "60561-8": "other_safety_information",  # Other Safety Information
    "34088-5": "overdosage",  # Overdosage
    "51945-4": "package_label_principal_display_panel",  # Package Label: Principal Display Panel
    "68498-5": "patient_medication_information",  # Patient Medication Information
    "34081-0": "pediatric_use",  # Pediatric Use
    "43681-6": "pharmacodynamics",  # Pharmacodynamics
    "66106-6": "pharmacogenomics",  # Pharmacogenomics
    "43682-4": "pharmacokinetics",  # Pharmacokinetics
    "42232-9": "precautions",  # Precautions
    "42228-7": "pregnancy",  # Pregnancy
    "53414-9": "pregnancy_or_breast_feeding",  # Pregnancy or Breast Feeding
    "55105-1": "purpose",  # Purpose
    "53413-1": "questions",  # Questions
    "43683-2": "recent_major_changes",  # Recent Major Changes
    "34093-5": "references",  # References
    "53412-3": "residue_warning",  # Residue Warning
    "69759-9": "risks",  # Risks
    "60562-6": "route",  # Route, Method and Frequency of Administration
    "50741-8": "safe_handling_warning",  # Safe Handling Warning
    "48779-3": "spl_indexing_data_elements",  # SPL Indexing Data Elements
    "42231-1": "spl_medguide",  # SPL Medguide
    "42230-3": "spl_patient_package_insert",  # SPL Patient Package Insert
    "48780-1": "spl_product_data_elements",  # SPL Product Data Elements
    "42229-5": "spl_unclassified_section",  # SPL Unclassified
    "69718-5": "statement_of_identity",  # Statement of Identity
    "50566-9": "stop_use",  # Stop Use
    "44425-7": "storage_and_handling",  # Storage and Handling
    "60563-4": "summary_of_safety_and_effectiveness",  # Summary of Safety and Effectiveness
    "34077-8": "teratogenic_effects",  # Teratogenic Effects
    "69762-3": "troubleshooting",  # Troubleshooting
    "43684-0": "use_in_specific_populations",  # Use in Specific Populations
    "54433-8": "user_safety_warnings",  # User Safety Warnings
    "50745-9": "veterinary_indications",  # Veterinary Indications
    "34071-1": "warnings",  # Warnings
    "43685-7": "warnings_and_cautions",  # Warnings and cautions
    "50567-7": "when_using",  # When Using
}


def spl_to_label(path: Path) -> dict:
    """Parse one SPL XML file into an openFDA drug/label-shaped record (see module docstring).

    Args:
        path: an SPL document (``<document xmlns="urn:hl7-org:v3">``).

    Returns:
        The record, plus ``section_codes`` ({field: LOINC code}).

    Raises:
        SourceFormatError: the XML is malformed or truncated (message names file, line and
            column), the root is not an HL7 v3 ``document``, or ``setId`` is missing.
    """
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        line, column = err.position
        raise SourceFormatError(
            f"{path}:{line}: malformed SPL XML at column {column} ({err.msg}); the file is "
            "truncated or not XML, download it again"
        ) from err
    if root.tag != f"{NS}document":
        raise SourceFormatError(f"{path}: root element is {root.tag}, expected {NS}document")
    set_id = _attr(root, "setId", "root")
    if not set_id:
        raise SourceFormatError(f"{path}: SPL document has no <setId root=...>")
    doc_type = _attr(root, "code", "displayName") or ""
    record: dict = {
        "set_id": set_id,
        "id": _attr(root, "id", "root"),
        "version": _attr(root, "versionNumber", "value"),
        "effective_time": _attr(root, "effectiveTime", "value"),
        "openfda": _openfda(root, doc_type),
        "section_codes": {},
    }
    for code, key, section in _sections(root):
        record.setdefault(key, []).append(_text(section))
        record["section_codes"].setdefault(key, code)
    return record


def _attr(parent: ET.Element, child: str, name: str) -> str | None:
    element = parent.find(f"{NS}{child}")
    return None if element is None else element.get(name)


def _openfda(root: ET.Element, doc_type: str) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {
        k: []
        for k in (
            "brand_name",
            "generic_name",
            "substance_name",
            "unii",
            "manufacturer_name",
            "product_type",
        )
    }
    org = root.find(f"{NS}author/{NS}assignedEntity/{NS}representedOrganization/{NS}name")
    _add(fields["manufacturer_name"], _clean(org.text if org is not None else None))
    _add(fields["product_type"], re.sub(r"\s+LABEL$", "", doc_type.strip()) or None)
    for product in root.iter(f"{NS}manufacturedProduct"):
        _add(fields["brand_name"], _clean(product.findtext(f"{NS}name")))
        generic = product.find(f"{NS}asEntityWithGeneric/{NS}genericMedicine/{NS}name")
        _add(fields["generic_name"], _clean(generic.text if generic is not None else None))
        for substance in _active_substances(product):
            code = substance.find(f"{NS}code")
            if code is not None and code.get("codeSystem") == UNII_SYSTEM:
                _add(fields["unii"], code.get("code"))
            _add(fields["substance_name"], _clean(substance.findtext(f"{NS}name")))
    return fields


def _active_substances(product: ET.Element) -> list[ET.Element]:
    found = []
    for ingredient in product.findall(f"{NS}ingredient"):
        if ingredient.get("classCode") in ACTIVE_CLASSES:
            found += ingredient.findall(f"{NS}ingredientSubstance")
    for ingredient in product.findall(f"{NS}activeIngredient"):
        found += ingredient.findall(f"{NS}activeIngredientSubstance")
    return found


def _sections(root: ET.Element):
    """(LOINC code, field, element) of every mapped section, document order."""
    body = root.find(f"{NS}component/{NS}structuredBody")
    if body is None:
        return
    stack = [(s, False) for s in reversed(body.findall(f"{NS}component/{NS}section"))]
    while stack:
        section, inside_mapped = stack.pop()
        code = _attr(section, "code", "code")
        key = LOINC_SECTIONS.get(code or "")
        if key and not (code == UNCLASSIFIED and inside_mapped):
            yield code, key, section
        nested = section.findall(f"{NS}component/{NS}section")
        stack += [(s, inside_mapped or bool(key)) for s in reversed(nested)]


def _text(element: ET.Element) -> str:
    return re.sub(r"\s+", " ", "".join(element.itertext())).strip()


def _clean(text: str | None) -> str | None:
    return re.sub(r"\s+", " ", text).strip() or None if text else None


def _add(values: list[str], value: str | None) -> None:
    if value and value not in values:
        values.append(value)
