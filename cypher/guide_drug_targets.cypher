// title: A drug's targets and its label sections
// params: {"drug": "CHEMBL.COMPOUND:CHEMBL192"}
// Sildenafil (Viagra) and the genes it targets (ChEMBL mechanisms), each edge with the record it
// comes from, and the sections of its openFDA labels.
MATCH (d:Drug {id: $drug})-[t:TARGETS]->(g:Gene)
OPTIONAL MATCH (d)-[:HAS_LABEL]->(:Label)-[:HAS_LABEL_SECTION]->(s:LabelSection)
RETURN d.name AS drug, g.symbol AS target, g.name AS target_name, t.source AS source,
       t.source_record AS record, collect(DISTINCT s.section) AS label_sections
