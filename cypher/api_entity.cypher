// One entity by id, in the agent's node projection (the API's neighbourhood starts here).
MATCH (n:Entity {id: $id})
RETURN {id: n.id, label: [l IN labels(n) WHERE l <> 'Entity'][0], name: n.name,
        symbol: n.symbol, brands: n.brand_names,
        kind: [k IN $kind_properties WHERE n[k] IS NOT NULL | n[k]][0]} AS node
