// The bridge's SAME_AS edges between diseases, without a PrimeKG group's `grouped` edges (its
// members are related diseases, not one): the diagnosis ranker ranks each joined set once.
MATCH (a:Disease)-[r:SAME_AS]->(b:Disease)
WHERE coalesce(r.grouped, false) = false
RETURN a.id AS subject, b.id AS object, r.id AS edge, r.source_record AS source_record
