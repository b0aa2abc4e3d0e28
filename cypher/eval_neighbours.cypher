// `biokg eval` gold answers: positive neighbours of nodes over one type and direction.
UNWIND $ids AS node_id
MATCH (s:Entity {id: node_id})-[r]-(o:Entity)
WHERE type(r) = $type AND coalesce(r.negated, false) = false AND (startNode(r) = s) = $outgoing
RETURN s.id AS id, collect(DISTINCT o.id) AS neighbours,
       collect(DISTINCT [l IN labels(o) WHERE l <> 'Entity'][0]) AS labels
