// Every entity's id, label and the names it may be asked by (the linker's lexicon), but those
// of the $unnamed labels (schema `named: false`: at release size, 586,000 label sections).
MATCH (n:Entity)
WITH n, [l IN labels(n) WHERE l <> 'Entity'][0] AS label
WHERE NOT label IN $unnamed
RETURN n.id AS id, label, n.name AS name,
       n.synonyms AS synonyms, n.xrefs AS xrefs, n.symbol AS symbol,
       n.brand_names AS brand_names, n.generic_names AS generic_names,
       n.namespace AS namespace
