// Remove the properties a source stopped stating on nodes it still defines (row.unset maps each
// such property to null).
UNWIND $rows AS row
MATCH (n:Entity {id: row.id})
SET n += row.unset
