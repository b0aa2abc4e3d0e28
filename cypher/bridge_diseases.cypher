// Every Disease node with its name and xrefs (a PrimeKG group lists its MONDO members there):
// what the disease bridge joins and names.
MATCH (d:Disease)
RETURN d.id AS id, d.name AS name, d.xrefs AS xrefs
