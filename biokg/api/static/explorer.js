// biokg explorer: search -> entity card -> neighbourhood graph; ask -> streamed steps -> claims
// whose citations light up in the evidence graph. Every graph call goes through the agent API
// (GET /search, GET /entities/{curie}[/neighbourhood], POST /ask/stream) with the tab's key.
// Text from the graph is only ever set as textContent, never parsed as HTML.
"use strict";

const KEY_STORE = "biokg.apiKey"; // sessionStorage: the key lives as long as the tab
const ROWS_PER_GROUP = 10; // edges drawn per type and direction when a node is expanded
const $ = (id) => document.getElementById(id);
let config = { api_key_required: false, labels: {} };
let cy = null;
let searchSeq = 0;

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

// ---- the graph ----

function graphStyle() {
  return [
    { selector: "node", style: {
      "background-color": "data(color)", label: "data(caption)", "font-size": 11,
      "text-valign": "bottom", "text-margin-y": 3, width: 28, height: 28,
      "text-wrap": "ellipsis", "text-max-width": 120 } },
    { selector: "node.expanded", style: { "border-width": 2, "border-color": "#333" } },
    { selector: "edge", style: {
      width: 1.5, "line-color": "#9aa5b1", "target-arrow-color": "#9aa5b1",
      "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(type)",
      "font-size": 8, color: "#555", "text-rotation": "autorotate" } },
    { selector: ".faded", style: { opacity: 0.2 } },
    { selector: "node.cited", style: { "border-width": 4, "border-color": "#f0a500" } },
    { selector: "edge.cited", style: {
      width: 5, "line-color": "#f0a500", "target-arrow-color": "#f0a500", color: "#000" } },
    { selector: ":selected", style: { "overlay-opacity": 0.15, "overlay-color": "#2b3a4a" } },
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

function layout() {
  cy.layout({ name: "cose", animate: false, fit: true, padding: 40,
              nodeDimensionsIncludeLabels: true }).run();
}

function clearHighlight() {
  cy.elements().removeClass("cited faded");
  for (const li of $("claims").children) li.classList.remove("active");
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

async function select(curie) {
  $("suggestions").hidden = true;
  cy.elements().remove();
  $("provenance").hidden = true;
  try {
    await showCard(curie);
    const hood = await neighbourhood(curie);
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
  const body = $("survey").tBodies[0];
  body.replaceChildren(...hood.survey.map((g) => {
    const tr = el("tr");
    tr.append(el("td", g.type), el("td", g.outgoing ? "→" : "←"), el("td", g.label),
              el("td", g.edges));
    return tr;
  }));
  return hood;
}

async function showCard(curie) {
  const card = await (await api(`/entities/${encodeURIComponent(curie)}`)).json();
  $("card-name").textContent = card.name || card.id;
  const fields = [
    ["id", card.id], ["label", card.label], ["category", card.category],
    ["description", card.description],
    ["synonyms", card.synonyms.join("; ")], ["xrefs", card.xrefs.join(", ")],
    ["sources", card.sources.map((s) => `${s.source} (${s.version || "version unknown"})`).join(", ")],
    ...Object.entries(card.properties).map(([k, v]) => [k, Array.isArray(v) ? v.join("; ") : v]),
  ];
  $("card-fields").replaceChildren(...fields.filter(([, v]) => v !== null && v !== "")
    .flatMap(([k, v]) => [el("dt", k), el("dd", v)]));
  $("card").hidden = false;
}

async function expand(curie) {
  try {
    status(`drawing the edges of ${curie}…`);
    const [hood] = await Promise.all([neighbourhood(curie), showCard(curie)]);
    addNode(hood.entity);
    for (const row of hood.rows) { addNode(row.neighbour); addEdge(row.edge); }
    cy.getElementById(curie).addClass("expanded");
    layout();
    status(`${curie}: ${count(hood.rows.length, "edge")} drawn (up to ${ROWS_PER_GROUP} per type and direction)`);
  } catch (err) {
    status(err.message, true);
  }
}

function showProvenance(edge) {
  const fields = [
    ["edge", edge.id], ["type", edge.type], ["subject", edge.subject], ["object", edge.object],
    ["source", edge.source], ["source_version", edge.source_version],
    ["source_record", edge.source_record],
    ...Object.entries(edge.properties || {}).map(
      ([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : v]),
  ];
  $("provenance-fields").replaceChildren(...fields.flatMap(([k, v]) => [el("dt", k), el("dd", v)]));
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

async function ask(question) {
  $("steps").replaceChildren();
  $("claims").replaceChildren();
  $("summary").textContent = "";
  status("asking…");
  try {
    const response = await api("/ask/stream", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question }),
    });
    for await (const { name, data } of events(response)) {
      $("steps").append(el("li", describeStep(name, data), name === "error" ? "error" : ""));
      if (name === "answer") showAnswer(data);
      if (name === "error") status(data.error, true);
    }
  } catch (err) {
    status(err.message, true);
  }
}

function showAnswer(answer) {
  cy.elements().remove();
  $("provenance").hidden = true;
  answer.evidence.nodes.forEach(addNode);
  answer.evidence.edges.forEach(addEdge);
  layout();
  $("summary").textContent = answer.summary;
  $("claims").replaceChildren(...answer.claims.map((claim) => {
    const li = el("li");
    li.dataset.nodes = claim.node_ids.join(" ");
    li.dataset.edges = claim.edge_ids.join(" ");
    const cites = claim.sources.map((s) => `${s.source} ${s.source_version}: ${s.source_record}`);
    li.append(el("div", claim.text), el("div", `cites ${claim.node_ids.join(", ")}`, "cites"),
              ...cites.map((c) => el("div", c, "cites")));
    li.addEventListener("click", () => highlight(claim, li));
    return li;
  }));
  status(`${answer.status}: ${count(answer.claims.length, "claim")}; click a claim to light up its evidence`);
}

function highlight(claim, li) {
  clearHighlight();
  li.classList.add("active");
  cy.elements().addClass("faded");
  for (const id of [...claim.node_ids, ...claim.edge_ids]) {
    cy.getElementById(id).removeClass("faded").addClass("cited");
  }
}

// ---- wiring ----

async function start() {
  config = await (await fetch("/explorer/config")).json();
  cy = cytoscape({
    container: $("graph"), style: graphStyle(), wheelSensitivity: 0.3, minZoom: 0.1, maxZoom: 1.6 });
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
  cy.on("tap", "node", (event) => expand(event.target.id()));
  cy.on("tap", "edge", (event) => showProvenance(event.target.data("edge")));
  cy.on("tap", (event) => { if (event.target === cy) clearHighlight(); });
  status("ready: search an entity or ask a question");
}

start().catch((err) => status(`the explorer could not start: ${err.message}`, true));
