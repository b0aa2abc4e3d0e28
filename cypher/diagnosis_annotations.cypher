// Disease → phenotype annotations (HAS_PHENOTYPE from Disease nodes; genes' edges are left out),
// with the frequency qualifier, negation, the publications the line cites (for leave-publication-out
// ranking) and the edge's id, source and source record the ranker cites.
MATCH (d:Disease)-[r:HAS_PHENOTYPE]->(p:Phenotype)
RETURN d.id AS disease, d.name AS name, p.id AS term, r.frequency AS frequency,
       r.negated AS negated, r.id AS edge, r.source AS source, r.source_record AS source_record,
       r.references AS references
