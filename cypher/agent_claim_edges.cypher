// A claim between two sets of nodes: the edges joining a subject to an object, either
// direction, over $types (every type when empty).
MATCH (s:Entity)-[r]-(o:Entity)
WHERE s.id IN $subjects AND o.id IN $objects AND (size($types) = 0 OR type(r) IN $types)
RETURN {id: s.id, label: [l IN labels(s) WHERE l <> 'Entity'][0], name: s.name,
        symbol: s.symbol, brands: s.brand_names,
        kind: [k IN $kind_properties WHERE s[k] IS NOT NULL | s[k]][0]} AS seed,
       {id: r.id, type: type(r), subject: startNode(r).id, object: endNode(r).id,
        props: properties(r)} AS edge,
       {id: o.id, label: [l IN labels(o) WHERE l <> 'Entity'][0], name: o.name,
        symbol: o.symbol, brands: o.brand_names,
        kind: [k IN $kind_properties WHERE o[k] IS NOT NULL | o[k]][0]} AS node
LIMIT $limit
