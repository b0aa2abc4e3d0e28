// Terms and their subtypes (IS_A, at most four levels down): what a claim about a term also
// covers ("X-linked inheritance" covers "X-linked recessive inheritance").
MATCH (d:Entity)-[:IS_A*0..4]->(t:Entity)
WHERE t.id IN $ids
RETURN DISTINCT d.id AS id
LIMIT $limit
