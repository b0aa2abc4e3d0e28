// Terms a new release marks obsolete stay findable: flagged, with OBO's replacement(s) and the
// terms to consider instead. {label} is a schema/ label, validated before substitution.
UNWIND $rows AS row
MATCH (n:{label} {id: row.id})
SET n.obsolete = true, n.replaced_by = row.replaced_by, n.consider = row.consider
