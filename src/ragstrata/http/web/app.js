// ragstrata web page: plain DOM, no framework, no network resources beyond this server.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SHOW_HITS = 6;
const state = {
  session: newSessionId(),
  token: sessionStorage.getItem("ragstrata-token") || "",
  repo: "",
  busy: false,
};

function newSessionId() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// el("div", {class: "x"}, "text", child) — text children are always text nodes, never HTML.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Only HTML the server rendered (Pygments, Markdown with raw HTML escaped) goes through here.
function serverHtml(tag, cls, html) {
  const node = el(tag, { class: cls });
  node.innerHTML = html;
  return node;
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (state.token) headers.Authorization = "Bearer " + state.token;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    const err = (data && data.error) || {};
    if (response.status === 401) $("#token-box").hidden = false;
    throw new ApiError(response.status, err.code || "http_" + response.status,
      err.message || response.statusText);
  }
  return data;
}

function span(hit) {
  return hit.start_line === hit.end_line
    ? `${hit.path}:${hit.start_line}` : `${hit.path}:${hit.start_line}-${hit.end_line}`;
}

// ------------------------------------------------------------------ repositories and status
// `wanted` (from the page address ?repo=) wins over the repository chosen last in this tab.
async function loadRepos(wanted) {
  const select = $("#repo");
  try {
    const data = await api("GET", "/v1/status");
    select.replaceChildren(...data.repos.map((r) => el("option", { value: r.name }, r.name)));
    const saved = sessionStorage.getItem("ragstrata-repo");
    for (const name of [saved, wanted]) {
      if (name && data.repos.some((r) => r.name === name)) select.value = name;
    }
    state.repo = select.value;
    showStatus(data.repos.find((r) => r.name === state.repo));
    return true;
  } catch (err) {
    $("#repo-status").textContent = err.status === 401 ? "token needed" : err.message;
    return false;
  }
}

// The page address names the repository and the last question (?repo=…&q=…), so an answer
// can be linked and reloaded.
function rememberInAddress(question) {
  const q = new URLSearchParams();
  if (state.repo) q.set("repo", state.repo);
  q.set("q", question);
  history.replaceState(null, "", location.pathname + "?" + q);
}

function showStatus(repo) {
  const box = $("#repo-status");
  const button = $("#index-button");
  if (!repo) return;
  if (repo.job_id) {
    box.textContent = "indexing…";
    button.hidden = true;
    followJob(repo.job_id);
  } else if (repo.indexed && repo.status) {
    const rows = Object.values(repo.status.rows).reduce((a, b) => a + b, 0);
    const stale = repo.status.stale ? ` · ${repo.status.stale} stale files` : "";
    box.textContent = `${rows} rows indexed${stale}`;
    button.hidden = !repo.status.stale;
  } else {
    const missing = !repo.error || repo.error.code === "index_missing";
    box.textContent = missing ? "not indexed yet" : repo.error.message;
    button.hidden = false;
  }
}

async function startIndex() {
  try {
    const job = await api("POST", "/v1/index", { repo: state.repo });
    followJob(job.job_id);
  } catch (err) {
    $("#repo-status").textContent = err.message;
  }
}

async function followJob(jobId) {
  const box = $("#repo-status");
  $("#index-button").hidden = true;
  for (;;) {
    const job = await api("GET", "/v1/jobs/" + encodeURIComponent(jobId));
    if (job.state !== "running") {
      if (job.error) box.textContent = "index failed: " + job.error.message;
      else loadRepos();
      return;
    }
    const f = job.files;
    const e = job.embeddings;
    box.textContent = `indexing: ${job.phase} · files ${f.done}/${f.total}` +
      (e.total ? ` · embeddings ${e.done}/${e.total}` : "");
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ------------------------------------------------------------------ asking
async function ask(question) {
  if (state.busy || !question.trim()) return;
  state.busy = true;
  $("#ask-button").disabled = true;
  const intro = $("#intro");
  if (intro) intro.remove();
  const turn = el("article", { class: "turn" },
    el("div", { class: "question" }, el("span", { class: "who" }, "you"), question));
  const pending = el("div", { class: "answer pending" }, "Searching the index…");
  turn.append(pending);
  $("#thread").append(turn);
  turn.scrollIntoView({ behavior: "smooth", block: "start" });
  try {
    const data = await api("POST", "/v1/ask", {
      query: question, repo: state.repo || undefined, session: state.session, render: true,
    });
    pending.replaceWith(...renderResult(data, turn));
    rememberInAddress(question);
  } catch (err) {
    pending.replaceWith(el("div", { class: "answer error" },
      el("strong", {}, err.code), " ", err.message));
  } finally {
    state.busy = false;
    $("#ask-button").disabled = false;
    $("#question").focus();
  }
}

function renderResult(data, turn) {
  const evidence = el("section", { class: "evidence" });
  const answer = el("section", { class: "answer" },
    serverHtml("div", "answer-text", data.answer.html || ""),
    renderCitations(data, turn, evidence),
    renderEvidenceStatus(data.evidence, data.answer.status, data.answer.footer));
  linkCitations(answer, data, turn, evidence);
  fillEvidence(evidence, data.hits);
  return [answer, renderPlan(data.plan), evidence];
}

function renderCitations(data, turn, evidence) {
  const cites = data.answer.citations || [];
  if (!cites.length) return null;
  return el("div", { class: "citations" }, el("span", { class: "label" }, "citations"),
    cites.map((c) => el("button", {
      type: "button", class: "cite",
      onclick: () => showCitation(c, data, evidence),
    }, span(c))));
}

function renderEvidenceStatus(ev, status, footer) {
  if (ev.satisfied) return el("div", { class: "status ok" }, footer || "evidence: satisfied");
  return el("div", { class: "status warn" }, footer || "evidence: incomplete");
}

// Inline `path:lines` code spans in the answer become links to the evidence too.
function linkCitations(answer, data, turn, evidence) {
  const pattern = /^([\w./-]+):(\d+)(?:-(\d+))?$/;
  for (const code of answer.querySelectorAll(".answer-text code")) {
    if (code.closest("pre")) continue;
    const m = pattern.exec(code.textContent.trim());
    if (!m) continue;
    const cite = { path: m[1], start_line: +m[2], end_line: +(m[3] || m[2]) };
    code.classList.add("cite-inline");
    code.title = "show this code";
    code.addEventListener("click", () => showCitation(cite, data, evidence));
  }
}

async function showCitation(cite, data, evidence) {
  const cards = [...evidence.querySelectorAll(".hit")];
  let card = cards.find((c) => c.dataset.path === cite.path &&
    +c.dataset.start <= cite.start_line && +c.dataset.end >= cite.end_line);
  if (!card) {
    const more = evidence.querySelector(".more");
    if (more) more.click();
    card = [...evidence.querySelectorAll(".hit")].find((c) => c.dataset.path === cite.path &&
      +c.dataset.start <= cite.start_line && +c.dataset.end >= cite.end_line);
  }
  if (!card) {
    try {
      const q = new URLSearchParams({ path: cite.path, start: cite.start_line, end: cite.end_line });
      if (state.repo) q.set("repo", state.repo);
      const src = await api("GET", "/v1/source?" + q);
      card = hitCard({ layer: "source", path: src.path, start_line: src.start_line,
        end_line: src.end_line, symbol: null, score: null, html: src.html });
      evidence.append(card);
    } catch (err) {
      return;
    }
  }
  card.scrollIntoView({ behavior: "smooth", block: "center" });
  card.classList.remove("flash");
  void card.offsetWidth;
  card.classList.add("flash");
}

function fillEvidence(evidence, hits) {
  evidence.append(el("h3", {}, `evidence (${hits.length})`));
  hits.slice(0, SHOW_HITS).forEach((h) => evidence.append(hitCard(h)));
  if (hits.length > SHOW_HITS) {
    const more = el("button", { type: "button", class: "ghost more" },
      `show ${hits.length - SHOW_HITS} more`);
    more.addEventListener("click", () => {
      hits.slice(SHOW_HITS).forEach((h) => more.before(hitCard(h)));
      more.remove();
    });
    evidence.append(more);
  }
}

function hitCard(hit) {
  return el("div", {
    class: "hit", "data-path": hit.path, "data-start": hit.start_line, "data-end": hit.end_line,
  },
  el("div", { class: "hit-head" },
    el("span", { class: "layer layer-" + hit.layer }, hit.layer),
    el("code", { class: "loc" }, span(hit)),
    hit.symbol ? el("span", { class: "symbol" }, hit.symbol) : null,
    hit.score === null ? null : el("span", { class: "score", title: (hit.reasons || []).join(", ") },
      hit.score.toFixed(4))),
  hit.html ? serverHtml("div", "code", hit.html) : el("pre", { class: "code" }, hit.text));
}

function chips(items, cls) {
  if (!items || !items.length) return el("span", { class: "muted" }, "none");
  return el("span", { class: "chips" }, items.map((t) => el("span", { class: "chip " + (cls || "") }, t)));
}

function renderPlan(plan) {
  const qp = plan.query_plan || {};
  const spec = plan.retrieval_spec || {};
  const policy = plan.evidence_policy || {};
  const rows = [
    ["intent", `${plan.intent} → ${plan.graph_id}`],
    ["mode", `${plan.conversation_mode} · language ${plan.language} · ` +
      `confidence ${plan.confidence} · by ${plan.decided_by}`],
    ["anchors", chips((qp.anchors || []).map((a) => `${a.type} ${a.value}`), "anchor")],
    ["expansions", chips((qp.expansions || []).map((x) => typeof x === "string" ? x : (x.text || x.query || JSON.stringify(x))))],
    ["keywords", chips(qp.keyword_hints || [])],
    ["sub-questions", chips((qp.sub_queries || []).map((x) => typeof x === "string" ? x : (x.text || x.query || JSON.stringify(x))))],
    ["layers", chips((spec.layer_queries || []).map((l) => `${l.layer_id} top ${l.top_k}`), "layer-chip")],
    ["rerank", `${spec.rerank_profile} · domains ${(spec.domains || []).join(", ")}`],
    ["requires", chips(Object.entries(policy).filter(([k, v]) => v === true && k.startsWith("require"))
      .map(([k]) => k))],
  ];
  return el("details", { class: "plan" },
    el("summary", {}, "router plan ",
      el("span", { class: "muted" }, `${plan.intent} · ${plan.graph_id} · ${plan.language}`)),
    el("dl", {}, rows.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
    el("details", { class: "raw" }, el("summary", {}, "JSON"),
      el("pre", {}, JSON.stringify(plan, null, 2))));
}

// ------------------------------------------------------------------ wiring
function newConversation() {
  state.session = newSessionId();
  $("#session-id").textContent = state.session;
  $("#thread").replaceChildren();
  $("#question").focus();
}

document.addEventListener("DOMContentLoaded", () => {
  $("#session-id").textContent = state.session;
  $("#ask-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = $("#question").value;
    $("#question").value = "";
    ask(q);
  });
  $("#question").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      $("#ask-form").requestSubmit();
    }
  });
  for (const b of document.querySelectorAll(".example")) {
    b.addEventListener("click", () => ask(b.textContent));
  }
  $("#new-session").addEventListener("click", newConversation);
  $("#index-button").addEventListener("click", startIndex);
  $("#repo").addEventListener("change", (ev) => {
    state.repo = ev.target.value;
    sessionStorage.setItem("ragstrata-repo", state.repo);
    history.replaceState(null, "", location.pathname + "?" +
      new URLSearchParams({ repo: state.repo }));
    newConversation();
    loadRepos();
  });
  $("#token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    state.token = $("#token").value.trim();
    sessionStorage.setItem("ragstrata-token", state.token);
    $("#token-box").hidden = true;
    loadRepos();
  });
  const params = new URLSearchParams(location.search);
  loadRepos(params.get("repo")).then((ok) => {
    const question = (params.get("q") || "").trim();
    if (ok && question) ask(question);
  });
  $("#question").focus();
});
