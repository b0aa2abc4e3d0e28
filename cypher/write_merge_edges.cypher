// Upsert edges by their deterministic id. {type} is a schema/ relationship type, validated
// before substitution. The count lets the writer prove no row lost an endpoint.
UNWIND $rows AS row
MATCH (a:Entity {id: row.subject})
MATCH (b:Entity {id: row.object})
MERGE (a)-[e:{type} {id: row.props.id}]->(b)
SET e = row.props
RETURN count(e) AS written
