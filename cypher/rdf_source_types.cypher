// The current loads of $sources with their record counts ("edges:<TYPE>": n): the relationship
// types a one-source export reads, instead of filtering every type's edges by source.
MATCH (v:SourceVersion)
WHERE v.current = true AND v.source IN $sources
RETURN v.source AS source, v.counts AS counts
