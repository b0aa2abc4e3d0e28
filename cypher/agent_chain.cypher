// Depth-first, two hops along a typed chain seed -[$first]- via -[$second]- target (a node of
// one of the labels $targets, and of one of the $kinds when given), ranked by how many distinct
// paths support each target; up to three paths kept per target as evidence. Negated edges
// (GO/HPO NOT) do not carry a chain. $first_out/$second_out: true = the nearer node is the
// edge's subject, false = its object, null = either.
MATCH (s:Entity {id: $seed})-[r1]-(m:Entity)-[r2]-(t:Entity)
WHERE type(r1) = $first AND type(r2) = $second AND $via IN labels(m)
  AND size([l IN labels(t) WHERE l IN $targets]) > 0
  AND t <> s AND coalesce(r1.negated, false) = false AND coalesce(r2.negated, false) = false
  AND ($first_out IS NULL OR (startNode(r1) = s) = $first_out)
  AND ($second_out IS NULL OR (startNode(r2) = m) = $second_out)
  AND (size($kinds) = 0
       OR [k IN $kind_properties WHERE t[k] IS NOT NULL | t[k]][0] IN $kinds)
WITH s, t, collect({
  via: {id: m.id, label: [l IN labels(m) WHERE l <> 'Entity'][0], name: m.name,
        symbol: m.symbol, brands: m.brand_names,
        kind: [k IN $kind_properties WHERE m[k] IS NOT NULL | m[k]][0]},
  first: {id: r1.id, type: type(r1), subject: startNode(r1).id, object: endNode(r1).id,
          props: properties(r1)},
  second: {id: r2.id, type: type(r2), subject: startNode(r2).id, object: endNode(r2).id,
           props: properties(r2)}}) AS paths
RETURN {id: s.id, label: [l IN labels(s) WHERE l <> 'Entity'][0], name: s.name,
        symbol: s.symbol, brands: s.brand_names,
        kind: [k IN $kind_properties WHERE s[k] IS NOT NULL | s[k]][0]} AS seed,
       {id: t.id, label: [l IN labels(t) WHERE l <> 'Entity'][0], name: t.name,
        symbol: t.symbol, brands: t.brand_names,
        kind: [k IN $kind_properties WHERE t[k] IS NOT NULL | t[k]][0]} AS node,
       size(paths) AS support, paths[0..3] AS paths
ORDER BY support DESC, node.name
LIMIT $limit
