// A claim about a broad class, whose subtypes and parts are more than a list of ids holds
// ("Is X an enzyme?": catalytic activity has thousands): the subjects' edges over $types
// (every type when empty) to a node that is one of the objects or lies under one of them
// (IS_A and PART_OF, at most eight levels up), read from the subjects' side.
MATCH (s:Entity)-[r]-(o:Entity)
WHERE s.id IN $subjects AND (size($types) = 0 OR type(r) IN $types)
MATCH (o)-[:IS_A|PART_OF*0..8]->(t:Entity)
WHERE t.id IN $objects
WITH DISTINCT s, r, o
RETURN {id: s.id, label: [l IN labels(s) WHERE l <> 'Entity'][0], name: s.name,
        symbol: s.symbol, brands: s.brand_names,
        kind: [k IN $kind_properties WHERE s[k] IS NOT NULL | s[k]][0]} AS seed,
       {id: r.id, type: type(r), subject: startNode(r).id, object: endNode(r).id,
        props: properties(r)} AS edge,
       {id: o.id, label: [l IN labels(o) WHERE l <> 'Entity'][0], name: o.name,
        symbol: o.symbol, brands: o.brand_names,
        kind: [k IN $kind_properties WHERE o[k] IS NOT NULL | o[k]][0]} AS node
LIMIT $limit
