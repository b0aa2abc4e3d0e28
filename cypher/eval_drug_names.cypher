// `biokg eval` name variants: brand names of drugs (a brand must land on its ingredient).
UNWIND $ids AS drug_id
MATCH (d:Drug {id: drug_id})
RETURN d.id AS id, d.brand_names AS brands
