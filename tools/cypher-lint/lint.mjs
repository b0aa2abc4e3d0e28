// Lint Cypher statements with Neo4j's own parser and semantic analysis
// (@neo4j-cypher/language-support, pinned in package-lock.json), as Cypher 5.
//
// Usage: node lint.mjs MODULES_DIR < request.json > report.json
//   MODULES_DIR: the node_modules folder the lockfile was installed into (kept outside the clone).
//   request.json: {"schema": {labels, relationshipTypes, propertyKeys}, "statements": [{name, text}]}
//   report.json: {"checked": N, "problems": [...], "allowed": [...]}, one entry per diagnostic:
//                {name, severity: "error"|"warning", message, excerpt}
//
// Every error is a problem. Every warning is a problem except the one allow-rule below, so an
// unknown label, relationship type, property, procedure or a deprecation fails the check.
//
// Allow-rule (narrow, and reported under "allowed" so the caller can see what it let through):
// the linter types the variable of `UNWIND $rows AS row` as a possible node, so each key of the
// parameter's maps (`row.subject`) reads as an unknown node property. A property warning is
// allowed only when the name before the dot is bound by `UNWIND $<parameter> AS <name>` in the
// same statement. Parameters themselves are supplied at run time, so "parameter not defined"
// errors are dropped (the package's own isNotParamError).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const modules = process.argv[2];
if (!modules) {
  console.error('usage: node lint.mjs MODULES_DIR < request.json');
  process.exit(2);
}
const require = createRequire(`${modules.replace(/\/$/, '')}/`);
const { lintCypherQuery, isNotParamError, testData } = require('@neo4j-cypher/language-support');

const PROPERTY_WARNING = /^(\w+) is not present in the database\. Make sure you didn't misspell it/;
const SEVERITY = { 1: 'error', 2: 'warning' };

function unwoundParameterVariables(text) {
  return new Set([...text.matchAll(/\bUNWIND\s+\$\w+\s+AS\s+(\w+)/gi)].map((m) => m[1]));
}

function isMapKeyOfUnwoundParameter(diagnostic, text, variables) {
  const property = PROPERTY_WARNING.exec(diagnostic.message);
  if (diagnostic.severity !== 2 || !property) return false;
  const before = text.slice(0, diagnostic.offsets.start);
  const owner = /(\w+)\s*\.\s*$/.exec(before);
  return owner !== null && variables.has(owner[1]);
}

const request = JSON.parse(readFileSync(0, 'utf8'));
// Neo4j 5's procedures and functions as the package knows them, our labels, types and keys.
const dbSchema = {
  ...testData.mockSchema,
  ...request.schema,
  defaultLanguage: 'CYPHER 5',
  parameters: {},
};
const problems = [];
const allowed = [];
for (const { name, text } of request.statements) {
  const variables = unwoundParameterVariables(text);
  for (const d of lintCypherQuery(text, dbSchema).diagnostics.filter(isNotParamError)) {
    const entry = {
      name,
      severity: SEVERITY[d.severity] ?? String(d.severity),
      message: d.message,
      excerpt: text.slice(Math.max(0, d.offsets.start - 30), d.offsets.end + 10),
    };
    (isMapKeyOfUnwoundParameter(d, text, variables) ? allowed : problems).push(entry);
  }
}
process.stdout.write(JSON.stringify({ checked: request.statements.length, problems, allowed }));
