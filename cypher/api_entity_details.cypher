// One entity with all its properties (the caller drops the vector), for the explorer's card and
// the MCP entity tool.
MATCH (n:Entity {id: $id})
RETURN [l IN labels(n) WHERE l <> 'Entity'][0] AS label, properties(n) AS props
