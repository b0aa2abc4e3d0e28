// One entity by id, in the agent's node projection (the API's neighbourhood starts here).
MATCH (n:Entity {id: $id})
RETURN {id: n.id, label: [l IN labels(n) WHERE l <> 'Entity'][0], name: n.name} AS node
