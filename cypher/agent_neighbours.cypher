// Breadth-first rows: the seeds' neighbours over one relationship type and direction, limited.
// $outgoing: true = seed is the subject, false = the object, null = either.
UNWIND $ids AS seed_id
MATCH (s:Entity {id: seed_id})-[r]-(n:Entity)
WHERE type(r) = $type AND [l IN labels(n) WHERE l <> 'Entity'][0] IN $labels
  AND ($outgoing IS NULL OR (startNode(r) = s) = $outgoing)
WITH s, r, n
ORDER BY coalesce(r.negated, false), n.name
LIMIT $limit
RETURN {id: s.id, label: [l IN labels(s) WHERE l <> 'Entity'][0], name: s.name,
        symbol: s.symbol, brands: s.brand_names,
        kind: [k IN $kind_properties WHERE s[k] IS NOT NULL | s[k]][0]} AS seed,
       {id: r.id, type: type(r), subject: startNode(r).id, object: endNode(r).id,
        props: properties(r)} AS edge,
       {id: n.id, label: [l IN labels(n) WHERE l <> 'Entity'][0], name: n.name,
        symbol: n.symbol, brands: n.brand_names,
        kind: [k IN $kind_properties WHERE n[k] IS NOT NULL | n[k]][0]} AS node
