// The entities that are the same as each seed (curated exact matches, SAME_AS, at most two hops:
// an OMIM disease, its MONDO term, the PrimeKG group holding the term), with the bridge edges,
// so research crosses sources' ids and cites where they met. A path never passes through a
// PrimeKG group node (its `grouped` edges start there): its members are related diseases of one
// name, not the same disease as each other.
UNWIND $ids AS seed_id
MATCH p = (s:Entity {id: seed_id})-[:SAME_AS*1..2]-(e:Entity)
WHERE e <> s
  AND none(i IN range(1, size(nodes(p)) - 2) WHERE any(r IN relationships(p)
           WHERE r.grouped = true AND startNode(r) = nodes(p)[i]))
RETURN {id: s.id, label: [l IN labels(s) WHERE l <> 'Entity'][0], name: s.name,
        symbol: s.symbol, brands: s.brand_names,
        kind: [k IN $kind_properties WHERE s[k] IS NOT NULL | s[k]][0]} AS seed,
       {id: e.id, label: [l IN labels(e) WHERE l <> 'Entity'][0], name: e.name,
        symbol: e.symbol, brands: e.brand_names,
        kind: [k IN $kind_properties WHERE e[k] IS NOT NULL | e[k]][0]} AS node,
       [r IN relationships(p) | {id: r.id, type: type(r), subject: startNode(r).id,
                                 object: endNode(r).id, props: properties(r)}] AS bridge
