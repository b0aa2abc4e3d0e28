// The API's neighbourhood rows over one relationship type and direction: up to $limit rows per
// seed (the entity and each bridged twin), so a twin's edges never crowd out the record's own.
// $outgoing: true = the seed is the edge's subject. Each row names the seed whose edge it is.
UNWIND $ids AS seed_id
MATCH (s:Entity {id: seed_id})-[r]-(n:Entity)
WHERE type(r) = $type AND (startNode(r) = s) = $outgoing
WITH s, r, n
ORDER BY coalesce(r.negated, false), n.name, n.id
WITH s, collect(r)[..$limit] AS picked
UNWIND picked AS r
WITH s, r, CASE WHEN $outgoing THEN endNode(r) ELSE startNode(r) END AS n
RETURN s.id AS seed,
       {id: r.id, type: type(r), subject: startNode(r).id, object: endNode(r).id,
        props: properties(r)} AS edge,
       {id: n.id, label: [l IN labels(n) WHERE l <> 'Entity'][0], name: n.name,
        symbol: n.symbol, brands: n.brand_names,
        kind: [k IN $kind_properties WHERE n[k] IS NOT NULL | n[k]][0]} AS node
