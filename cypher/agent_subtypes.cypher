// Terms, their subtypes and their parts (IS_A and PART_OF, at most six levels down): what a
// statement about a term also covers ("X-linked inheritance" covers "X-linked recessive
// inheritance"; a gene annotated with a part of a process takes part in the process, GO's
// true-path rule).
MATCH (d:Entity)-[:IS_A|PART_OF*0..6]->(t:Entity)
WHERE t.id IN $ids
RETURN DISTINCT d.id AS id
LIMIT $limit
