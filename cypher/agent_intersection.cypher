// Nodes of the $targets labels (of one of the $kinds when given and their label has them; of
// another target label only when some target label has them) that meet several
// constraints at once: for each group, an edge of one of the group's types to one of the
// group's nodes (as the edges' subjects or objects when g.outgoing says; drawn in one of the
// g.within pathways when given). Ranked by how many groups they meet; one hit per group kept as
// evidence.
// Each group's nodes are sought by id: `c.id IN g.ids` on an unwound map is not an index
// seek on the embedded engine (a scan of every node: 30 s and more at release size).
UNWIND $groups AS g
UNWIND g.ids AS constraint_id
MATCH (c:Entity {id: constraint_id})-[r]-(t:Entity)
WHERE type(r) IN g.types
  AND (g.outgoing IS NULL OR (startNode(r) = c) = g.outgoing)
  AND (size(g.within) = 0 OR r.pathway IN g.within)
  AND [l IN labels(t) WHERE l <> 'Entity'][0] IN $targets
  AND coalesce(r.negated, false) = false
  AND (size($kinds) = 0
       OR ([l IN labels(t) WHERE l <> 'Entity'][0] IN $kind_labels
           AND [k IN $kind_properties WHERE t[k] IS NOT NULL | t[k]][0] IN $kinds)
       OR (NOT [l IN labels(t) WHERE l <> 'Entity'][0] IN $kind_labels
           AND any(l IN $targets WHERE l IN $kind_labels)))
WITH t, g.index AS grp, collect({c: c, r: r})[0] AS hit
WITH t, collect({grp: grp, c: hit.c, r: hit.r}) AS hits
WHERE size(hits) >= $min_groups
RETURN {id: t.id, label: [l IN labels(t) WHERE l <> 'Entity'][0], name: t.name,
        symbol: t.symbol, brands: t.brand_names,
        kind: [k IN $kind_properties WHERE t[k] IS NOT NULL | t[k]][0]} AS node,
       size(hits) AS matched,
       [h IN hits | {
         constraint: {id: h.c.id, label: [l IN labels(h.c) WHERE l <> 'Entity'][0],
                      name: h.c.name, symbol: h.c.symbol, brands: h.c.brand_names,
                      kind: [k IN $kind_properties WHERE h.c[k] IS NOT NULL | h.c[k]][0]},
         edge: {id: h.r.id, type: type(h.r), subject: startNode(h.r).id,
                object: endNode(h.r).id, props: properties(h.r)}}] AS hits
ORDER BY matched DESC, node.name
LIMIT $limit
