// Each source's current load, the identity rows its drugs merged onto (its identity context),
// the files it read and its merge report (with its own identity rows' digest): a build reloads
// a source whose earlier drug sources' identity rows changed.
MATCH (v:SourceVersion {current: true})
RETURN v.source AS source, v.load_id AS load_id, v.context AS context, v.checksums AS checksums,
       v.identity AS identity
