// Every relationship type in the graph: the RDF export reads edges one type per query.
CALL db.relationshipTypes() YIELD relationshipType
RETURN relationshipType AS type
