// Every relationship type in the graph: the exports read edges one type per query, and status
// counts them type by type on the embedded engine (GraphStore.relationship_types).
CALL db.relationshipTypes() YIELD relationshipType
RETURN relationshipType AS type
