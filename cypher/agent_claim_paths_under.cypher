// A claim about a broad class through one node between ("Does imatinib target a kinase?":
// the drug's target gene is annotated with a function under kinase activity): subject -r1- via
// -r2- a node that is one of the objects or lies under one of them (IS_A and PART_OF, at most
// eight levels up), read from the subjects' side as agent_claim_under is; neither hop a
// hierarchy edge nor negated, and via no value both ends share ($values, as agent_claim_paths).
UNWIND $subjects AS subject_id
MATCH (s:Entity {id: subject_id})
MATCH (s)-[r1]-(m:Entity)-[r2]-(o:Entity)
WHERE m <> s AND o <> s
  AND NOT type(r1) IN ['IS_A', 'PART_OF'] AND NOT type(r2) IN ['IS_A', 'PART_OF']
  AND coalesce(r1.negated, false) = false AND coalesce(r2.negated, false) = false
  AND (size($through) = 0 OR type(r1) IN $through)
  AND NOT (type(r1) IN $values AND endNode(r1) = m) AND NOT (type(r2) IN $values AND endNode(r2) = m)
MATCH (o)-[:IS_A|PART_OF*0..8]->(t:Entity)
WHERE t.id IN $objects
WITH DISTINCT s, o, m, r1, r2
LIMIT $limit
RETURN {id: s.id, label: [l IN labels(s) WHERE l <> 'Entity'][0], name: s.name,
        symbol: s.symbol, brands: s.brand_names,
        kind: [k IN $kind_properties WHERE s[k] IS NOT NULL | s[k]][0]} AS seed,
       {id: m.id, label: [l IN labels(m) WHERE l <> 'Entity'][0], name: m.name,
        symbol: m.symbol, brands: m.brand_names,
        kind: [k IN $kind_properties WHERE m[k] IS NOT NULL | m[k]][0]} AS via,
       {id: o.id, label: [l IN labels(o) WHERE l <> 'Entity'][0], name: o.name,
        symbol: o.symbol, brands: o.brand_names,
        kind: [k IN $kind_properties WHERE o[k] IS NOT NULL | o[k]][0]} AS node,
       {id: r1.id, type: type(r1), subject: startNode(r1).id, object: endNode(r1).id,
        props: properties(r1)} AS first,
       {id: r2.id, type: type(r2), subject: startNode(r2).id, object: endNode(r2).id,
        props: properties(r2)} AS second
