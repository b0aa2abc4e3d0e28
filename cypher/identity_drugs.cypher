// Every Drug node with its shown names and xrefs and every source's facts about it (what identity
// resolution matches on, per source; biokg.ingest.node_facts).
MATCH (d:Drug)
RETURN d.id AS id, d.name AS name, d.synonyms AS synonyms, d.brand_names AS brand_names,
       d.generic_names AS generic_names, d.xrefs AS xrefs, d.sources AS sources,
       d.source_facts AS facts
