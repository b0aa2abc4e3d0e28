// Ids and load ids of the edges a source already has of one type, so the writer CREATEs new
// edges, rewrites changed ones and skips those an interrupted run of this same load wrote.
// {type} is a schema/ relationship type, validated before substitution.
MATCH ()-[e:{type}]->()
WHERE e.source = $source
RETURN e.id AS id, e.load_id AS load_id
