// A claim between two sets of nodes through one node between them (a gene's disease that
// has the phenotype): subject -r1- via -r2- object, neither hop a subtype edge nor negated,
// and via no value both ends share ($values: types whose far end is a value, a mode of
// inheritance).
// Both ends are sought by id first: matched from the pattern with `s.id IN $subjects`, the
// embedded engine walks every two-hop path of the graph (10 s and more at release size).
UNWIND $subjects AS subject_id
UNWIND $objects AS object_id
MATCH (s:Entity {id: subject_id})
MATCH (o:Entity {id: object_id})
MATCH (s)-[r1]-(m:Entity)-[r2]-(o)
WHERE m <> s AND m <> o
  AND type(r1) <> 'IS_A' AND type(r2) <> 'IS_A'
  AND coalesce(r1.negated, false) = false AND coalesce(r2.negated, false) = false
  AND (size($through) = 0 OR type(r1) IN $through)
  AND NOT (type(r1) IN $values AND endNode(r1) = m) AND NOT (type(r2) IN $values AND endNode(r2) = m)
WITH s, o, m, r1, r2
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
