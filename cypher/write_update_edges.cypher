// Rewrite edges an earlier load of this source wrote (same id, other load): walk from the
// subject, whose degree is small, rather than scanning the type. Names as in write_create_edges.
UNWIND $rows AS row
MATCH (a:{from} {id: row.subject})-[e:{type} {id: row.props.id}]->(b:{to})
SET e = row.props
RETURN count(e) AS written
