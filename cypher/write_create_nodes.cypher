// Create nodes that do not exist yet. {label} is a schema/ label, validated before substitution.
UNWIND $rows AS row
CREATE (n:Entity:{label})
SET n = row, n.sources = [$source]
