// One hop of a seeded export: the ids of nodes joined to any of $ids, at most $limit of them.
UNWIND $ids AS wanted
MATCH (:Entity {id: wanted})--(m:Entity)
RETURN DISTINCT m.id AS id
LIMIT $limit
