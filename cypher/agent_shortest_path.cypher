// Depth-first: the shortest path between two entities, at most 4 hops (the bound is part of the
// pattern because Cypher takes no parameter there). The ends must be two nodes: Neo4j refuses a
// shortest path from a node to itself (error 51N23: two mentions linked to one node), so that
// gives no row on either engine.
MATCH (a:Entity {id: $a})
MATCH (b:Entity {id: $b})
WHERE a <> b
MATCH p = shortestPath((a)-[*..4]-(b))
RETURN [x IN nodes(p) | {id: x.id, label: [l IN labels(x) WHERE l <> 'Entity'][0],
                         name: x.name, symbol: x.symbol, brands: x.brand_names,
                         kind: [k IN $kind_properties WHERE x[k] IS NOT NULL | x[k]][0]}] AS nodes,
       [r IN relationships(p) | {id: r.id, type: type(r), subject: startNode(r).id,
                                 object: endNode(r).id, props: properties(r)}] AS edges
