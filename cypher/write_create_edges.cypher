// Create edges whose id this source does not have yet. {type}, {from} and {to} are schema/ names,
// validated before substitution; typed endpoint lookups use the per-label unique index. The
// count lets the writer prove no row lost an endpoint.
UNWIND $rows AS row
MATCH (a:{from} {id: row.subject})
MATCH (b:{to} {id: row.object})
CREATE (a)-[e:{type}]->(b)
SET e = row.props
RETURN count(e) AS written
