// Show newly chosen values and facts on existing nodes; a null removes a property no source
// states any more.
UNWIND $rows AS row
MATCH (n:Entity {id: row.id})
SET n += row.props
