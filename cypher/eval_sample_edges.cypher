// `biokg eval`: edges of one relationship type (__TYPE__ is replaced by a type name validated
// against schema/; Cypher takes no parameter there), grouped by subject, positives only.
MATCH (s:Entity)-[r:__TYPE__]->(o:Entity)
WHERE coalesce(r.negated, false) = false AND s.name IS NOT NULL AND o.name IS NOT NULL
WITH s, o LIMIT $limit
RETURN s.id AS subject, s.name AS subject_name, o.id AS object, o.name AS object_name,
       [l IN labels(s) WHERE l <> 'Entity'][0] AS subject_label,
       [l IN labels(o) WHERE l <> 'Entity'][0] AS object_label
