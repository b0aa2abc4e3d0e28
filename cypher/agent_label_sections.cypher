// The label sections of drugs (the $sections only, when given), with their text: what a
// question about a drug's label is answered from.
MATCH (d:Drug)-[h:HAS_LABEL]->(l:Label)-[e:HAS_LABEL_SECTION]->(x:LabelSection)
WHERE d.id IN $drugs AND (size($sections) = 0 OR x.section IN $sections)
RETURN {id: d.id, label: 'Drug', name: d.name, symbol: d.symbol, brands: d.brand_names,
        kind: [k IN $kind_properties WHERE d[k] IS NOT NULL | d[k]][0]} AS seed,
       {id: h.id, type: type(h), subject: d.id, object: l.id, props: properties(h)} AS label_edge,
       {id: l.id, label: 'Label', name: l.name, symbol: l.symbol, brands: l.brand_names,
        kind: [k IN $kind_properties WHERE l[k] IS NOT NULL | l[k]][0]} AS document,
       {id: e.id, type: type(e), subject: l.id, object: x.id, props: properties(e)} AS edge,
       {id: x.id, label: 'LabelSection', name: x.name, symbol: x.symbol, brands: x.brand_names,
        kind: [k IN $kind_properties WHERE x[k] IS NOT NULL | x[k]][0]} AS node,
       x.text AS text
LIMIT $limit
