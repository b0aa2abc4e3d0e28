// The edges a diagnosis ranking cites (annotations, bridges), read back by their ends and id,
// with their provenance and both end nodes. $pairs: [{subject, object, id}].
UNWIND $pairs AS row
MATCH (s:Entity {id: row.subject})-[r]->(o:Entity {id: row.object})
WHERE r.id = row.id
RETURN {id: s.id, label: [l IN labels(s) WHERE l <> 'Entity'][0], name: s.name,
        symbol: s.symbol, brands: s.brand_names,
        kind: [k IN $kind_properties WHERE s[k] IS NOT NULL | s[k]][0]} AS seed,
       {id: r.id, type: type(r), subject: s.id, object: o.id, props: properties(r)} AS edge,
       {id: o.id, label: [l IN labels(o) WHERE l <> 'Entity'][0], name: o.name,
        symbol: o.symbol, brands: o.brand_names,
        kind: [k IN $kind_properties WHERE o[k] IS NOT NULL | o[k]][0]} AS node
