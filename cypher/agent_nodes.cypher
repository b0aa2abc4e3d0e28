// Node projections for ids: the ends of relationships a generated query returned without them,
// so every claim can cite both of an edge's nodes.
MATCH (n:Entity)
WHERE n.id IN $ids
RETURN {id: n.id, label: [l IN labels(n) WHERE l <> 'Entity'][0], name: n.name,
        symbol: n.symbol, brands: n.brand_names,
        kind: [k IN $kind_properties WHERE n[k] IS NOT NULL | n[k]][0]} AS node
