// Create nodes that do not exist yet, with their shown values and facts (chosen in Python from
// schema/'s precedence). {label} is a schema/ label, validated before substitution.
UNWIND $rows AS row
CREATE (n:Entity:{label})
SET n = row
