// Depth-first, two hops along a typed chain seed -[$first]- via -[$second]- target (a node of
// one of the labels $targets; of one of the $kinds when given and its label has them, and of
// another target label only when some target label has them), ranked by how many distinct
// paths support each target; up to three paths kept per target as evidence. The via node may
// cross to the same entity under another source's id (SAME_AS, at most two hops: an HPO OMIM
// disease to the PrimeKG MONDO disease with the drugs; never through a PrimeKG group node, see
// agent_equivalents.cypher); the bridge edges are kept with the path.
// Negated edges (GO/HPO NOT) do not carry a chain. $first_out/$second_out: true = the nearer
// node is the edge's subject, false = its object, null = either.
// {first} and {second} are the chain's relationship types (schema/ names, validated before
// substitution): matched by `type(r) = $param`, the embedded engine expands every edge of each
// node on the way (10-30 s for a hub gene's diseases' phenotypes at release size; 0.2-0.6 s typed).
MATCH (s:Entity {id: $seed})-[r1:{first}]-(m:Entity)
WHERE $via IN labels(m) AND coalesce(r1.negated, false) = false
  AND ($first_out IS NULL OR (startNode(r1) = s) = $first_out)
MATCH b = (m)-[:SAME_AS*0..2]-(m2:Entity)
WHERE none(i IN range(1, size(nodes(b)) - 2) WHERE any(x IN relationships(b)
           WHERE x.grouped = true AND startNode(x) = nodes(b)[i]))
MATCH (m2)-[r2:{second}]-(t:Entity)
WHERE size([l IN labels(t) WHERE l IN $targets]) > 0
  AND t <> s AND coalesce(r2.negated, false) = false
  AND ($second_out IS NULL OR (startNode(r2) = m2) = $second_out)
  AND (size($kinds) = 0
       OR ([l IN labels(t) WHERE l <> 'Entity'][0] IN $kind_labels
           AND [k IN $kind_properties WHERE t[k] IS NOT NULL | t[k]][0] IN $kinds)
       OR (NOT [l IN labels(t) WHERE l <> 'Entity'][0] IN $kind_labels
           AND any(l IN $targets WHERE l IN $kind_labels)))
WITH s, t, collect({
  via: {id: m.id, label: [l IN labels(m) WHERE l <> 'Entity'][0], name: m.name,
        symbol: m.symbol, brands: m.brand_names,
        kind: [k IN $kind_properties WHERE m[k] IS NOT NULL | m[k]][0]},
  first: {id: r1.id, type: type(r1), subject: startNode(r1).id, object: endNode(r1).id,
          props: properties(r1)},
  bridge: [x IN nodes(b) | {id: x.id, label: [l IN labels(x) WHERE l <> 'Entity'][0],
                            name: x.name, symbol: x.symbol, brands: x.brand_names,
                            kind: [k IN $kind_properties WHERE x[k] IS NOT NULL | x[k]][0]}],
  bridge_edges: [r IN relationships(b) | {id: r.id, type: type(r), subject: startNode(r).id,
                                          object: endNode(r).id, props: properties(r)}],
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
