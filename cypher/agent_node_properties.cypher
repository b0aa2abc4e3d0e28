// Nodes by id with one of their properties ($property: a name schema/ declares), their
// identifiers and the sources that loaded them: answers about a node itself.
MATCH (n:Entity)
WHERE n.id IN $ids
RETURN {id: n.id, label: [l IN labels(n) WHERE l <> 'Entity'][0], name: n.name,
        symbol: n.symbol, brands: n.brand_names,
        kind: [k IN $kind_properties WHERE n[k] IS NOT NULL | n[k]][0],
        sources: n.sources} AS node,
       n[$property] AS value, n.xrefs AS xrefs
