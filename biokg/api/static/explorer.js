// biokg explorer: search -> entity card -> neighbourhood graph; ask -> streamed steps -> claims
// whose citations light up in the evidence graph; phenotypes -> ranked diseases whose evidence
// is drawn. Every graph call goes through the agent API (GET /search, GET /entities/{curie}
// [/neighbourhood], POST /ask/stream, POST /diagnose) with the tab's key. Text from the graph is
// only ever set as textContent, never parsed as HTML; only http(s) URLs become links. The view
// lives in the URL (?entity=&q=&claim= or ?entity=&dx=&not=&disease=), so it can be shared,
// reloaded and walked with back/forward.
"use strict";

const KEY_STORE = "biokg.apiKey"; // sessionStorage: the key lives as long as the tab
const ROWS_PER_GROUP = 10; // edges drawn per record, type and direction when a node is expanded
const ANSWER_PAGE = 20; // answer nodes drawn at first and per "show more"
const CLAIMS_PER_GROUP = 8; // claims listed per type at first and per "show more"
const LABELLED_EDGES = 25; // above this many drawn edges only cited ones carry their type
const DX_TOP = 10; // diseases a diagnosis lists
const HPO_ID = /^HP:\d{7}$/;
const $ = (id) => document.getElementById(id);
let config = { api_key_required: false, labels: {} };
let links = { resolvers: {}, record_files: {} };
let cy = null;
let searchSeq = 0;
// what the page shows: the card's entity, the question and its answer, how many of the
// answer's nodes are drawn and which of them are the question's own (drawn in the middle)
const shown = { entity: null, question: null, answer: null, drawn: 0, seeds: new Set(),
                diagnosis: null, dxKey: null };
const answers = new Map(); // question -> answer: back/forward does not ask again
const diagnoses = new Map(); // observed and excluded ids -> ranking: likewise

class ApiError extends Error {}

function status(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function askForKey(why) {
  $("key-why").textContent = why;
  $("key-form").hidden = false;
  $("key").focus();
}

// fetch with the tab's key; a 401 asks for the key again, any other error says what went wrong
async function api(path, init = {}) {
  const headers = new Headers(init.headers || {});
  const key = sessionStorage.getItem(KEY_STORE);
  if (key) headers.set("X-API-Key", key);
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401) {
    sessionStorage.removeItem(KEY_STORE);
    askForKey("The server refused the key; enter it again.");
    throw new ApiError("the API key is missing or wrong");
  }
  if (!response.ok) {
    const body = await response.json().catch(() => ({ error: response.statusText }));
    throw new ApiError(`${response.status}: ${body.error || response.statusText}`);
  }
  return response;
}

function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function caption(node) {
  const prop = (config.labels[node.label] || {}).caption;
  return node[prop] || node.name || node.id;
}

function colour(label) {
  return (config.labels[label] || {}).color || "#999999";
}

// ---- links: ids to their resolver, source records to their file, URLs as themselves ----

const URL_TEXT = /^https?:\/\/\S+$/i;

// the resolver URL of a CURIE whose prefix schema/ resolves, else null
function curieHref(text) {
  const at = text.indexOf(":");
  const pattern = at > 0 ? links.resolvers[text.slice(0, at)] : undefined;
  const local = text.slice(at + 1);
  if (!pattern || !local || /\s/.test(local)) return null;
  return pattern.replace("{id}", encodeURIComponent(local).replace(/%2F/g, "/").replace(/%3A/g, ":"));
}

// a source record's URL: the record itself, or the source's file it names (file#key, file:line)
function recordHref(source, text) {
  if (URL_TEXT.test(text)) return text;
  return (links.record_files[source] || {})[text.split(/[#:]/)[0]] || null;
}

function anchor(text, href) {
  const a = el("a", text);
  a.href = href;
  a.target = "_blank";
  a.rel = "noopener noreferrer";
  return a;
}

// text as nodes: each part between separators (", ", " + ", "; ") that is a URL, a resolvable
// CURIE or (given its source) a source record becomes a link; the text itself is unchanged
function linked(text, source = null) {
  const out = document.createDocumentFragment();
  for (const part of String(text).split(/(,\s*|\s\+\s|;\s*)/)) {
    const href = URL_TEXT.test(part) ? part
      : curieHref(part) || (source ? recordHref(source, part) : null);
    out.append(href ? anchor(part, href) : part);
  }
  return out;
}

// fields as a <dl>; values linked (see linked) but for free text, where "X:1" is no id
const FREE_TEXT = new Set(["name", "description", "synonyms", "text", "comment", "mechanism"]);

function fieldList(target, fields, source = null) {
  const given = (v) => v !== null && v !== undefined && v !== "" && !(Array.isArray(v) && !v.length);
  target.replaceChildren(...fields.filter(([, v]) => given(v))
    .flatMap(([k, v]) => {
      const text = Array.isArray(v) ? v.join("; ") : typeof v === "object" ? JSON.stringify(v) : v;
      const dd = el("dd", FREE_TEXT.has(k) ? text : null);
      if (!FREE_TEXT.has(k)) dd.append(linked(text, source));
      return [el("dt", k), dd];
    }));
}

// ---- the URL: ?entity=CURIE&q=question&claim=index or &dx=HP:…,HP:…&not=HP:…&disease=CURIE ----

const ids = (text) => (text || "").split(",").map((t) => t.trim()).filter(Boolean);

function urlState() {
  const params = new URLSearchParams(location.search);
  const claim = Number.parseInt(params.get("claim") ?? "", 10);
  return { entity: params.get("entity"), question: params.get("q"),
           claim: Number.isInteger(claim) ? claim : null,
           dx: ids(params.get("dx")), not: ids(params.get("not")), disease: params.get("disease") };
}

function pushState(state, replace = false) {
  const { entity, question, claim, dx = [], not = [], disease } = state;
  const params = new URLSearchParams();
  if (entity) params.set("entity", entity);
  if (question) params.set("q", question);
  if (claim !== null && claim !== undefined) params.set("claim", String(claim));
  if (dx.length) params.set("dx", dx.join(","));
  if (not.length) params.set("not", not.join(","));
  if (disease) params.set("disease", disease);
  const query = params.toString();
  const same = (a, b) => [...a].sort().join("&") === [...b].sort().join("&");
  if (same(params, new URLSearchParams(location.search))) return; // the same view
  history[replace ? "replaceState" : "pushState"](null, "", `${location.pathname}${query ? `?${query}` : ""}`);
}

function currentState(changes) {
  return { ...urlState(), ...changes };
}

// bring the page to what the URL says (first load, back/forward)
async function restore() {
  const { entity, question, claim, dx, not, disease } = urlState();
  try {
    if (!entity) { $("card").hidden = true; shown.entity = null; }
    if (!dx.length) clearDiagnosis();
    if (dx.length) {
      clearAnswer();
      if (entity && entity !== shown.entity) await showCard(entity);
      if (dxKey(dx, not) !== shown.dxKey) {
        $("dx-observed").value = dx.join(", ");
        $("dx-excluded").value = not.join(", ");
        await diagnose(dx, not, { record: false });
      }
      if (shown.diagnosis) drawDisease(disease);
    } else if (question) {
      if (entity && entity !== shown.entity) await showCard(entity);
      if (question !== shown.question) {
        $("question").value = question;
        await ask(question, { record: false });
      }
      if (shown.answer) selectClaim(claim);
    } else {
      clearAnswer();
      if (entity) await select(entity, { record: false });
      else cy.elements().remove();
    }
    if (!question && !entity && !dx.length) status("ready: search an entity or ask a question");
  } catch (err) {
    status(err.message, true);
  }
}

// ---- the graph ----

// captions and edge types on a light backing, readable where lines cross them
const BACKING = { "text-background-color": "#ffffff", "text-background-opacity": 0.75,
                  "text-background-padding": 1 };

function graphStyle() {
  return [
    { selector: "node", style: { ...BACKING,
      "background-color": "data(color)", label: "data(caption)", "font-size": 11,
      "text-valign": "bottom", "text-margin-y": 3, width: 28, height: 28,
      "text-wrap": "ellipsis", "text-max-width": 120 } },
    { selector: "node.expanded", style: { "border-width": 2, "border-color": "#333" } },
    { selector: "edge", style: { ...BACKING,
      width: 1.5, "line-color": "#9aa5b1", "target-arrow-color": "#9aa5b1",
      "target-arrow-shape": "triangle", "curve-style": "bezier",
      "font-size": 8, color: "#555", "text-rotation": "autorotate" } },
    { selector: "edge.labelled, edge.cited", style: { label: "data(type)" } },
    { selector: ".faded", style: { opacity: 0.2 } },
    { selector: "node.cited", style: { "border-width": 4, "border-color": "#f0a500" } },
    { selector: "edge.cited", style: {
      width: 5, "line-color": "#f0a500", "target-arrow-color": "#f0a500", color: "#000" } },
    { selector: ":selected", style: { "overlay-opacity": 0.15, "overlay-color": "#2b3a4a" } },
    // a diagnosis: the patient's terms ringed, what the ranker computed dashed
    { selector: "node.patient", style: { "border-width": 3, "border-color": "#2b6cb0" } },
    { selector: "node.excluded", style: { "border-width": 3, "border-color": "#b00020" } },
    { selector: "edge.derived", style: { label: "data(type)", "line-style": "dashed" } },
    { selector: "edge.against", style: { "line-color": "#b00020", "target-arrow-color": "#b00020" } },
  ];
}

function addNode(node) {
  if (cy.getElementById(node.id).nonempty()) return;
  cy.add({ group: "nodes", data: {
    id: node.id, label: node.label, caption: caption(node), color: colour(node.label), node } });
}

function addEdge(edge) {
  if (cy.getElementById(edge.id).nonempty()) return;
  for (const end of [edge.subject, edge.object]) {
    if (cy.getElementById(end).empty()) addNode({ id: end, label: "" });
  }
  cy.add({ group: "edges", data: {
    id: edge.id, source: edge.subject, target: edge.object, type: edge.type, edge } });
}

function labelEdges() {
  cy.edges().toggleClass("labelled", cy.edges().length <= LABELLED_EDGES);
}

// exploring: a force layout whose node sizes include their captions
function layout() {
  labelEdges();
  cy.layout({ name: "cose", animate: false, fit: true, padding: 40,
              nodeDimensionsIncludeLabels: true }).run();
}

// an answer: the question's entities in the middle, then one ring per type of answer, nodes
// spaced by their captions' size so no two captions overlap
function answerLayout(seeds) {
  labelEdges();
  const rings = [...new Set(cy.nodes().map((n) => n.data("label")))].sort();
  cy.layout({
    name: "concentric", animate: false, fit: true, padding: 30, avoidOverlap: true,
    nodeDimensionsIncludeLabels: true, minNodeSpacing: 12, levelWidth: () => 1,
    concentric: (n) => (seeds.has(n.id()) ? rings.length + 1 : rings.length - rings.indexOf(n.data("label"))),
  }).run();
}

function clearHighlight() {
  cy.elements().removeClass("cited faded");
  for (const li of $("claims").querySelectorAll("li.claim")) li.classList.remove("active");
}

// ---- search and the entity card ----

async function suggest() {
  const q = $("search").value.trim();
  const seq = ++searchSeq;
  const list = $("suggestions");
  if (!q) { list.hidden = true; return; }
  try {
    const response = await api(`/search?q=${encodeURIComponent(q)}&limit=8`);
    const candidates = await response.json();
    if (seq !== searchSeq) return; // a newer keystroke has its own request
    list.replaceChildren(...candidates.map((c) => {
      const li = el("li");
      li.setAttribute("role", "option");
      li.dataset.id = c.id;
      const tag = el("span", c.label, "tag");
      tag.style.background = colour(c.label);
      li.append(tag, el("b", c.name), " ", el("span", c.id, "id"),
                el("div", `${c.rule}: ${c.matched}`, "hint"));
      li.addEventListener("click", () => select(c.id));
      return li;
    }));
    if (!candidates.length) list.replaceChildren(el("li", `nothing found for “${q}”`, "hint"));
    list.hidden = false;
  } catch (err) {
    status(`search: ${err.message}`, true);
  }
}

// an entity on its own: its card, its node, and its edge counts (click the node to draw them)
async function select(curie, { record = true } = {}) {
  $("suggestions").hidden = true;
  clearAnswer();
  clearDiagnosis();
  cy.elements().remove();
  $("provenance").hidden = true;
  if (record) pushState({ entity: curie, question: null, claim: null });
  try {
    const [hood] = await Promise.all([neighbourhood(curie), showCard(curie)]);
    addNode(hood.entity);
    layout();
    status(`${curie}: ${count(hood.survey.reduce((n, g) => n + g.edges, 0), "edge")}; click the node to draw them`);
  } catch (err) {
    status(err.message, true);
  }
}

const hoods = new Map();

async function neighbourhood(curie) {
  if (!hoods.has(curie)) {
    const path = `/entities/${encodeURIComponent(curie)}/neighbourhood?limit=${ROWS_PER_GROUP}`;
    hoods.set(curie, await (await api(path)).json());
  }
  const hood = hoods.get(curie);
  $("survey").tBodies[0].replaceChildren(...hood.survey.map((g) => {
    const tr = el("tr");
    const seed = el("td"); // the twin, the same entity under another source's id, whose edges these are
    if (g.seed !== curie) seed.append(linked(g.seed));
    tr.append(el("td", g.type), el("td", g.outgoing ? "→" : "←"), el("td", g.label),
              el("td", g.edges), seed);
    return tr;
  }));
  return hood;
}

async function showCard(curie) {
  const card = await (await api(`/entities/${encodeURIComponent(curie)}`)).json();
  $("card-name").textContent = card.name || card.id;
  fieldList($("card-fields"), [
    ["id", card.id], ["label", card.label], ["category", card.category],
    ["description", card.description],
    ["synonyms", card.synonyms], ["xrefs", card.xrefs],
    ["sources", card.sources.map((s) => `${s.source} (${s.version || "version unknown"})`).join(", ")],
    ...Object.entries(card.properties),
  ]);
  $("card").hidden = false;
  shown.entity = curie;
}

async function expand(curie) {
  try {
    status(`drawing the edges of ${curie}…`);
    const [hood] = await Promise.all([neighbourhood(curie), showCard(curie)]);
    pushState(currentState({ entity: curie }));
    $("more-nodes").replaceChildren(); // the graph is no longer the answer's alone
    addNode(hood.entity);
    for (const twin of hood.twins) { addNode(twin.node); twin.bridge.forEach(addEdge); }
    for (const row of hood.rows) { addNode(row.neighbour); addEdge(row.edge); }
    cy.getElementById(curie).addClass("expanded");
    layout();
    status(`${curie}: ${count(hood.rows.length, "edge")} drawn (up to ${ROWS_PER_GROUP} per record, type and direction)`);
  } catch (err) {
    status(err.message, true);
  }
}

function showProvenance(edge) {
  fieldList($("provenance-fields"), [
    ["edge", edge.id], ["type", edge.type], ["subject", edge.subject], ["object", edge.object],
    ["source", edge.source], ["source_version", edge.source_version],
    ["source_record", edge.source_record],
    ...Object.entries(edge.properties || {}),
  ], edge.source);
  $("provenance").hidden = false;
}

// ---- ask: streamed steps, then claims over the evidence graph ----

// server-sent events from a fetch body (EventSource cannot POST or send the key header)
async function* events(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer = (buffer + value).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        const at = line.indexOf(":");
        if (at <= 0) continue; // a comment (keep-alive ping) or a bare field
        const field = line.slice(0, at);
        const text = line.slice(at + 1).replace(/^ /, "");
        if (field === "event") name = text;
        else if (field === "data") data.push(text);
      }
      if (data.length) yield { name, data: JSON.parse(data.join("\n")) };
    }
  }
}

function describeStep(name, data) {
  if (name === "linking") {
    const found = data.mentions.map((m) => `${m.text} → ${m.candidates.map((c) => c.id).join(" | ") || "nothing"}`);
    return `linking: ${found.join("; ") || "no entity named"}`;
  }
  if (name === "plan") return `plan: ${data.kind} ${data.relations.join(", ")} (${data.steps.map((s) => s.strategy).join(", ")})`;
  if (name === "query") return `query ${data.step}: ${data.rows} rows in ${data.ms} ms${data.error ? ` (${data.error})` : ""}`;
  if (name === "partial") return `found ${data.found}`;
  if (name === "answer") return `answer: ${data.status}, ${count(data.claims.length, "claim")}`;
  return `${name}: ${data.error || JSON.stringify(data)}`;
}

function clearAnswer() {
  for (const id of ["steps", "claims", "more-nodes"]) $(id).replaceChildren();
  $("summary").textContent = "";
  $("verdict").hidden = true;
  shown.question = null;
  shown.answer = null;
}

async function ask(question, { record = true } = {}) {
  clearAnswer();
  clearDiagnosis();
  shown.question = question;
  if (record) pushState(currentState({ question, claim: null, dx: [], not: [], disease: null }));
  if (answers.has(question)) { showAnswer(answers.get(question)); return; }
  status("asking…");
  try {
    const response = await api("/ask/stream", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question }),
    });
    for await (const { name, data } of events(response)) {
      if (shown.question !== question) return; // another question or view took the page
      $("steps").append(el("li", describeStep(name, data), name === "error" ? "error" : ""));
      if (name === "answer") { answers.set(question, data); showAnswer(data); }
      if (name === "error") status(data.error, true);
    }
  } catch (err) {
    status(err.message, true);
  }
}

// the type a claim is about: its first node that answers the question, else its last node
function claimLabel(claim, labels) {
  const about = claim.node_ids.find((id) => labels.answers.has(id)) || claim.node_ids.at(-1);
  return labels.all.get(about) || "other";
}

function showAnswer(answer) {
  shown.answer = answer;
  shown.drawn = 0;
  cy.elements().remove();
  $("provenance").hidden = true;
  $("summary").textContent = answer.summary;
  const verdict = $("verdict");
  verdict.hidden = !answer.verdict;
  verdict.className = `verdict ${answer.verdict || ""}`;
  verdict.textContent = answer.verdict ? `Verdict: ${answer.verdict}` : "";
  drawMore();
  const labels = {
    answers: new Set(answer.answers.map((n) => n.id)),
    all: new Map(answer.evidence.nodes.map((n) => [n.id, n.label])),
  };
  const groups = new Map();
  answer.claims.forEach((claim, index) => {
    const label = claimLabel(claim, labels);
    if (!groups.has(label)) groups.set(label, []);
    groups.get(label).push([claim, index]);
  });
  $("claims").replaceChildren(...[...groups].map(([label, claims]) => claimGroup(label, claims)));
  status(`${answer.status}: ${count(answer.claims.length, "claim")}; click a claim to light up its evidence`);
}

// one type's claims, the first CLAIMS_PER_GROUP listed and a button for the next ones
function claimGroup(label, claims) {
  const section = el("section", null, "claim-group");
  const heading = el("h3", `${label} · ${count(claims.length, "claim")}`);
  const list = el("ol");
  const more = el("button", null, "more");
  more.type = "button";
  const reveal = (upTo) => {
    for (const [claim, index] of claims.slice(list.children.length, upTo)) list.append(claimItem(claim, index));
    const left = claims.length - list.children.length;
    more.hidden = left === 0;
    more.textContent = `show ${Math.min(left, CLAIMS_PER_GROUP)} more of ${left}`;
  };
  more.addEventListener("click", () => reveal(list.children.length + CLAIMS_PER_GROUP));
  section.reveal = (index) => reveal(claims.findIndex(([, i]) => i === index) + 1);
  section.dataset.indices = claims.map(([, i]) => i).join(" ");
  reveal(CLAIMS_PER_GROUP);
  section.append(heading, list, more);
  return section;
}

function claimItem(claim, index) {
  const li = el("li", null, "claim");
  li.dataset.index = String(index);
  li.dataset.nodes = claim.node_ids.join(" ");
  li.dataset.edges = claim.edge_ids.join(" ");
  const cites = el("div", "cites ", "cites");
  cites.append(linked(claim.node_ids.join(", ")));
  li.append(el("div", claim.text), cites);
  for (const s of claim.sources) {
    const line = el("div", `${s.source} ${s.source_version}: `, "cites");
    line.append(linked(s.source_record, s.source));
    li.append(line);
  }
  li.tabIndex = 0; // selectable from the keyboard too (Enter)
  const choose = (event) => {
    if (event.target.closest("a")) return; // a link opens; it does not select the claim
    pushState(currentState({ claim: index }));
    selectClaim(index);
  };
  li.addEventListener("click", choose);
  li.addEventListener("keydown", (event) => { if (event.key === "Enter") choose(event); });
  return li;
}

// draw the next ANSWER_PAGE answer nodes (best first) with the edges among what is drawn
function drawMore() {
  const answer = shown.answer;
  const answerIds = new Set(answer.answers.map((n) => n.id));
  shown.seeds = new Set(answer.evidence.nodes.filter((n) => !answerIds.has(n.id)).map((n) => n.id));
  const order = [...shown.seeds, ...answerIds];
  shown.drawn = Math.min(order.length, Math.max(shown.drawn, shown.seeds.size) + ANSWER_PAGE);
  drawNodes(order.slice(0, shown.drawn));
  const left = order.length - shown.drawn;
  const more = $("more-nodes");
  more.replaceChildren();
  if (left > 0) {
    const button = el("button", `draw ${Math.min(left, ANSWER_PAGE)} more of ${left} nodes`);
    button.type = "button";
    button.addEventListener("click", drawMore);
    more.append(button);
  }
  const types = new Map();
  cy.nodes().forEach((n) => types.set(n.data("label"), (types.get(n.data("label")) || 0) + 1));
  more.prepend(el("span", `drawn ${cy.nodes().length} of ${order.length} nodes: ` +
    [...types].map(([label, n]) => `${label || "unnamed"} ${n}`).join(", ") + " ", "hint"));
}

// the answer's nodes of these ids, the edges among all drawn, laid out again
function drawNodes(ids) {
  const { nodes, edges } = shown.answer.evidence;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const before = cy.elements();
  for (const id of ids) addNode(byId.get(id) || { id, label: "" });
  for (const edge of edges) {
    if (cy.getElementById(edge.subject).nonempty() && cy.getElementById(edge.object).nonempty()) addEdge(edge);
  }
  if (cy.$(".cited").nonempty()) cy.elements().difference(before).addClass("faded"); // a claim stays lit
  answerLayout(shown.seeds);
}

function selectClaim(index) {
  clearHighlight();
  const claim = index === null ? undefined : shown.answer.claims[index];
  if (!claim) return;
  const group = [...$("claims").children].find((g) => g.dataset.indices.split(" ").includes(String(index)));
  group.reveal(index);
  const li = $("claims").querySelector(`li.claim[data-index="${index}"]`);
  li.classList.add("active");
  li.scrollIntoView({ block: "nearest" });
  const cited = shown.answer.evidence.edges.filter((e) => claim.edge_ids.includes(e.id));
  const missing = [...claim.node_ids, ...cited.flatMap((e) => [e.subject, e.object])]
    .filter((id) => cy.getElementById(id).empty());
  if (missing.length) drawNodes(missing); // a claim about an answer not drawn yet
  cy.elements().addClass("faded");
  for (const id of [...claim.node_ids, ...claim.edge_ids]) {
    cy.getElementById(id).removeClass("faded").addClass("cited");
  }
}

// ---- which diseases fit: HPO terms (ids or names) -> POST /diagnose -> ranked, cited ----

const dxKey = (observed, excluded) => `${observed.join(",")}|${excluded.join(",")}`;

// "HP:0001166, ectopia lentis" -> HPO ids: an id as given, a name as the first phenotype the
// search finds for it (the names it was read as are kept for the page to show)
async function phenotypeIds(text, names) {
  const terms = text.split(/[,;\n]+/).map((t) => t.trim()).filter(Boolean);
  return Promise.all(terms.map(async (term) => {
    if (HPO_ID.test(term.toUpperCase())) return term.toUpperCase();
    const found = await (await api(`/search?q=${encodeURIComponent(term)}&limit=8`)).json();
    const hit = found.find((c) => c.label === "Phenotype");
    if (!hit) throw new ApiError(`no phenotype named “${term}” in the graph`);
    names.set(hit.id, hit.name);
    return hit.id;
  }));
}

function clearDiagnosis() {
  $("dx-ranking").replaceChildren();
  $("dx-read").replaceChildren();
  shown.diagnosis = null;
  shown.dxKey = null;
}

async function diagnose(observed, excluded, { record = true } = {}) {
  clearAnswer();
  clearDiagnosis();
  const key = dxKey(observed, excluded);
  shown.dxKey = key;
  if (record) pushState(currentState({ question: null, claim: null, dx: observed, not: excluded, disease: null }));
  try {
    if (!diagnoses.has(key)) {
      status("ranking diseases…");
      const response = await api("/diagnose", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ observed, excluded, top: DX_TOP }),
      });
      diagnoses.set(key, await response.json());
    }
    if (shown.dxKey !== key) return; // another view took the page meanwhile
    showDiagnosis(diagnoses.get(key));
  } catch (err) {
    status(err.message, true);
  }
}

function showDiagnosis(dx) {
  shown.diagnosis = dx;
  const named = new Map();
  for (const entry of dx.ranking) for (const ev of entry.evidence) named.set(ev.term, ev.term_name);
  const terms = (list) => list.map((id) => (named.get(id) ? `${id} ${named.get(id)}` : id)).join("; ");
  const read = [`observed: ${terms(dx.observed)}`];
  if (dx.excluded.length) read.push(`excluded: ${terms(dx.excluded)}`);
  if (dx.unknown.length) read.push(`not in the graph's HPO (not scored): ${dx.unknown.join(", ")}`);
  $("dx-read").replaceChildren(...read.map((line) => el("div", line, "hint")));
  $("dx-ranking").replaceChildren(...dx.ranking.map(dxItem));
  status(`${count(dx.ranking.length, "disease")} ranked (${dx.method}); click one to draw its evidence`);
}

function dxItem(entry) {
  const li = el("li", null, "claim");
  li.dataset.disease = entry.id;
  const met = entry.evidence.filter((ev) => !ev.excluded && ev.edge).length;
  const against = entry.evidence.filter((ev) => ev.excluded && ev.edge).length;
  const observed = entry.evidence.filter((ev) => !ev.excluded).length;
  const head = el("div");
  // the score is the scorer's prior (owed to no term) plus the terms' contributions
  const terms = entry.evidence.reduce((sum, ev) => sum + ev.contribution, 0);
  head.append(el("b", entry.name || entry.id), ` · score ${entry.score.toFixed(2)}` +
    (entry.prior ? ` = prior ${entry.prior.toFixed(2)} + terms ${terms.toFixed(2)}` : ""));
  const cites = el("div", null, "cites");
  cites.append(linked(entry.ids.join(", ")));
  li.append(head, el("div", `meets ${met} of ${observed} observed terms` +
    (against ? `; has ${count(against, "excluded feature")}` : ""), "cites"), cites);
  li.tabIndex = 0;
  const choose = (event) => {
    if (event.target.closest("a")) return;
    pushState(currentState({ disease: entry.id }));
    drawDisease(entry.id);
  };
  li.addEventListener("click", choose);
  li.addEventListener("keydown", (event) => { if (event.key === "Enter") choose(event); });
  return li;
}

// one ranked disease's evidence: the patient's terms, the disease terms they met and the
// annotation edges that state them (with their records), the bridge to twin records; a dashed
// edge is the ranker's match (through the common ancestor), not an edge of the graph
function drawDisease(id) {
  const entry = shown.diagnosis.ranking.find((e) => e.id === id) || shown.diagnosis.ranking[0];
  for (const li of $("dx-ranking").children) li.classList.toggle("active", li.dataset.disease === entry?.id);
  cy.elements().remove();
  $("provenance").hidden = true;
  if (!entry) return;
  addNode({ id: entry.id, label: "Disease", name: entry.name });
  for (const edge of entry.bridge) {
    addNode({ id: edge.subject === entry.id ? edge.object : edge.subject, label: "Disease", name: entry.name });
    addEdge({ id: edge.edge, subject: edge.subject, object: edge.object, type: "SAME_AS",
              source_record: edge.source_record });
  }
  for (const ev of entry.evidence) {
    addNode({ id: ev.term, label: "Phenotype", name: ev.term_name });
    cy.getElementById(ev.term).addClass(ev.excluded ? "excluded" : "patient");
    if (!ev.edge) continue; // a term that met nothing of this disease
    addNode({ id: ev.disease, label: "Disease", name: entry.name });
    addNode({ id: ev.disease_term, label: "Phenotype", name: ev.disease_term_name });
    // the ranker reads HAS_PHENOTYPE annotations only (cypher/diagnosis_annotations.cypher)
    addEdge({ id: ev.edge, subject: ev.disease, object: ev.disease_term, type: "HAS_PHENOTYPE",
              source: ev.source, source_record: ev.source_record,
              properties: ev.frequency === null ? {} : { frequency: ev.frequency } });
    const sign = ev.contribution >= 0 ? "+" : "";
    const via = ev.ancestor === ev.disease_term ? "" : ` via ${ev.ancestor_name || ev.ancestor}`;
    const derived = `${ev.excluded ? "excluded" : "meets"}:${ev.term}>${ev.disease_term}`;
    if (ev.term !== ev.disease_term || ev.excluded) {
      addEdge({ id: derived, subject: ev.term, object: ev.disease_term,
                type: `${ev.excluded ? "excluded, has" : "meets"}${via} (${sign}${ev.contribution.toFixed(2)})`,
                properties: { computed: "by the ranker: not an edge of the graph",
                              common_ancestor: ev.ancestor, contribution: ev.contribution } });
      cy.getElementById(derived).addClass(ev.excluded ? "derived against" : "derived");
    }
  }
  layout();
  status(`${entry.name || entry.id}: ${count(entry.evidence.filter((ev) => ev.edge).length, "annotation")} cited; click an edge for its record`);
}

// ---- wiring ----

async function start() {
  [config, links] = await Promise.all(
    ["/explorer/config", "/explorer/links"].map(async (path) => (await fetch(path)).json()));
  cy = cytoscape({
    container: $("graph"), style: graphStyle(), wheelSensitivity: 0.3, minZoom: 0.05, maxZoom: 1.6 });
  window.biokgExplorer = { cy }; // for the browser test and the curious
  if (config.api_key_required && !sessionStorage.getItem(KEY_STORE)) {
    askForKey("This server needs its API key (kept for this tab only):");
  }
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY_STORE, $("key").value.trim());
    $("key").value = "";
    $("key-form").hidden = true;
    status("key stored for this tab");
    restore();
  });
  let timer = null;
  $("search").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(suggest, 250); });
  $("search").addEventListener("keydown", (event) => {
    const first = $("suggestions").querySelector("li[data-id]");
    if (event.key === "Enter" && first) select(first.dataset.id);
    if (event.key === "Escape") $("suggestions").hidden = true;
  });
  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = $("question").value.trim();
    if (question) ask(question);
  });
  $("dx-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const names = new Map();
      const [observed, excluded] = await Promise.all(
        [$("dx-observed").value, $("dx-excluded").value].map((text) => phenotypeIds(text, names)));
      if (!observed.length) { status("name at least one observed phenotype", true); return; }
      await diagnose(observed, excluded);
    } catch (err) {
      status(err.message, true);
    }
  });
  cy.on("tap", "node", (event) => expand(event.target.id()));
  cy.on("tap", "edge", (event) => showProvenance(event.target.data("edge")));
  cy.on("tap", (event) => {
    if (event.target !== cy) return;
    clearHighlight();
    pushState(currentState({ claim: null }), true);
  });
  window.addEventListener("popstate", restore);
  status("ready: search an entity or ask a question");
  if (!config.api_key_required || sessionStorage.getItem(KEY_STORE)) await restore();
}

start().catch((err) => status(`the explorer could not start: ${err.message}`, true));
