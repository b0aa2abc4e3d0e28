// Each source's current load, the loads its drugs merged onto (its identity context) and the
// files it read: a build reloads a source whose earlier drug sources changed.
MATCH (v:SourceVersion {current: true})
RETURN v.source AS source, v.load_id AS load_id, v.context AS context, v.checksums AS checksums
