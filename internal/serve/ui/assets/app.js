// faucet console: hash-routed views over the /v1 API. Every value from the
// server is written with textContent (never as HTML).

const TOKEN_KEY = "faucet.token";
const THEME_KEY = "faucet.theme";
const ACTIVE = new Set(["queued", "pending", "running", "sharded"]);
let teardown = [];

// ---------- helpers ----------

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function fmtTime(s) {
  if (!s) return "—";
  const d = new Date(s);
  return isNaN(d) ? s : d.toLocaleString();
}

function fmtSecs(x) {
  if (x === null || x === undefined) return "—";
  return x < 1 ? `${Math.round(x * 1000)} ms` : x < 120 ? `${x.toFixed(1)} s` : `${(x / 60).toFixed(1)} min`;
}

function pill(status) { return el("span", { class: `pill ${status}` }, status); }

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error && body.error.message) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.error && body.error.code;
    this.details = body && body.error && body.error.details;
  }
}

async function api(method, path, body) {
  const headers = {};
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 401) askToken("The token was refused.");
  if (res.status === 204) return null;
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

// ---------- token and theme ----------

function askToken(message) {
  const d = document.getElementById("token-dialog");
  document.getElementById("token-error").textContent = message || "";
  if (!d.open) d.showModal();
}

function setupChrome() {
  document.getElementById("token-form").addEventListener("submit", () => {
    localStorage.setItem(TOKEN_KEY, document.getElementById("token-input").value.trim());
    document.getElementById("token-input").value = "";
    boot();
  });
  document.getElementById("signout").addEventListener("click", () => {
    localStorage.removeItem(TOKEN_KEY);
    askToken("");
  });
  const saved = localStorage.getItem(THEME_KEY);
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = saved || (dark ? "dark" : "light");
  document.getElementById("theme").addEventListener("click", () => {
    const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    localStorage.setItem(THEME_KEY, next);
  });
}

async function boot() {
  try {
    const me = await api("GET", "/v1/whoami");
    document.getElementById("whoami").textContent = `${me.principal} · ${me.role}`;
    document.body.dataset.perms = (me.permissions || []).join(" ");
    route();
  } catch (e) {
    if (e.status !== 401) show(el("p", { class: "error" }, e.message));
  }
}

function can(perm) { return (document.body.dataset.perms || "").split(" ").includes(perm); }

// ---------- router ----------

function show(...nodes) {
  const v = document.getElementById("view");
  v.replaceChildren(...nodes);
}

function route() {
  for (const f of teardown) f();
  teardown = [];
  const hash = location.hash || "#/runs";
  const parts = hash.slice(2).split("/");
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.nav === parts[0]);
  if (parts[0] === "runs" && parts[1]) return runView(decodeURIComponent(parts[1]));
  if (parts[0] === "submit") return submitView();
  if (parts[0] === "audit") return auditView();
  return runsView();
}

function every(ms, fn) {
  const id = setInterval(fn, ms);
  teardown.push(() => clearInterval(id));
}

// ---------- runs list ----------

function runsView() {
  const status = el("select", { "aria-label": "status" },
    el("option", { value: "" }, "any status"),
    ...["queued", "running", "completed", "failed", "cancelled"].map((s) => el("option", { value: s }, s)));
  const name = el("input", { placeholder: "name", "aria-label": "name" });
  const since = el("input", { type: "datetime-local", "aria-label": "since" });
  const body = el("tbody");
  const more = el("button", { type: "button", hidden: true }, "Load more");
  const err = el("p", { class: "error" });
  let cursor = null;

  async function load(append) {
    const q = new URLSearchParams({ limit: "50" });
    if (status.value) q.set("status", status.value);
    if (name.value.trim()) q.set("name", name.value.trim());
    if (since.value) q.set("since", new Date(since.value).toISOString());
    if (append && cursor) q.set("cursor", cursor);
    try {
      const page = await api("GET", `/v1/runs?${q}`);
      err.textContent = "";
      const rows = page.runs.map((r) => el("tr", { "data-run": r.run_id },
        el("td", {}, el("a", { href: `#/runs/${encodeURIComponent(r.run_id)}`, class: "mono" }, r.run_id)),
        el("td", {}, r.name || "—"),
        el("td", {}, pill(r.status)),
        el("td", { class: "hide-narrow" }, fmtTime(r.submitted_at)),
        el("td", { class: "num" }, fmtSecs(r.elapsed_secs)),
        el("td", { class: "num" }, r.records_written)));
      if (append) body.append(...rows); else body.replaceChildren(...rows);
      cursor = page.next_cursor || null;
      more.hidden = !cursor;
      return page.runs.some((r) => ACTIVE.has(r.status));
    } catch (e) {
      err.textContent = e.message;
      return false;
    }
  }
  for (const c of [status, name, since]) c.addEventListener("change", () => load(false));
  more.addEventListener("click", () => load(true));
  let active = false;
  load(false).then((a) => { active = a; });
  every(3000, async () => { if (active && !cursor) active = await load(false); });
  show(el("h1", {}, "Runs"),
    el("div", { class: "filters" }, status, name, since, el("button", { type: "button", onclick: () => load(false) }, "Refresh")),
    err,
    el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "Run"), el("th", {}, "Name"), el("th", {}, "Status"),
      el("th", { class: "hide-narrow" }, "Submitted"), el("th", {}, "Elapsed"), el("th", {}, "Records"))), body),
    more);
}

// ---------- run detail ----------

function runView(id) {
  const summary = el("dl", { class: "grid" });
  const invBody = el("tbody");
  const err = el("p", { class: "error" });
  const logs = el("pre", { class: "logs", id: "logs" });
  const cancelBtn = el("button", { type: "button", class: "danger", hidden: !can("run_write") }, "Cancel");
  const deleteBtn = el("button", { type: "button", class: "danger", hidden: !can("run_write") }, "Delete");
  let status = null;

  async function refresh() {
    try {
      const r = await api("GET", `/v1/runs/${encodeURIComponent(id)}`);
      status = r.status;
      const labels = Object.entries(r.labels || {}).map(([k, v]) => `${k}=${v}`).join(", ");
      const rows = [["Status", pill(r.status)], ["Name", r.name || "—"], ["Labels", labels || "—"],
        ["Submitted", fmtTime(r.submitted_at)], ["Started", fmtTime(r.started_at)], ["Finished", fmtTime(r.finished_at)],
        ["Elapsed", fmtSecs(r.elapsed_secs)], ["Records written", r.records_written],
        ["Idempotency key", r.idempotency_key || "—"], ["Error", r.error ? el("span", { class: "error" }, r.error) : "—"]];
      summary.replaceChildren(...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
      invBody.replaceChildren(...(r.invocations || []).map((i) => el("tr", {},
        el("td", { class: "mono" }, i.row_id), el("td", { class: "num" }, i.records_written),
        el("td", { class: "num" }, i.duration_ms !== undefined ? `${i.duration_ms} ms` : "—"),
        el("td", { class: "error" }, i.error || ""))));
      cancelBtn.disabled = !ACTIVE.has(r.status);
      deleteBtn.disabled = ACTIVE.has(r.status);
      err.textContent = "";
    } catch (e) {
      err.textContent = e.status === 404 ? "This run does not exist (or was deleted)." : e.message;
    }
  }
  cancelBtn.addEventListener("click", async () => {
    try { await api("POST", `/v1/runs/${encodeURIComponent(id)}/cancel`); refresh(); } catch (e) { err.textContent = e.message; }
  });
  deleteBtn.addEventListener("click", async () => {
    if (!confirm("Delete this run's record?")) return;
    try { await api("DELETE", `/v1/runs/${encodeURIComponent(id)}`); location.hash = "#/runs"; } catch (e) { err.textContent = e.message; }
  });
  refresh();
  every(3000, () => { if (status === null || ACTIVE.has(status)) refresh(); });
  streamLogs(id, logs, () => refresh());
  show(el("h1", {}, "Run ", el("span", { class: "mono" }, id)),
    el("div", { class: "actions" }, cancelBtn, deleteBtn), err, summary,
    el("h2", {}, "Invocations"),
    el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "Row"), el("th", {}, "Records"), el("th", {}, "Duration"), el("th", {}, "Error"))), invBody),
    el("h2", {}, "Logs"), logs);
}

// streamLogs reads the SSE endpoint with fetch (so the Authorization header
// can be sent) and appends `log` events; `end` closes it.
function streamLogs(id, pre, onEnd) {
  const ctl = new AbortController();
  teardown.push(() => ctl.abort());
  const headers = {};
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  const note = (t) => pre.append(el("div", { class: "note" }, t));
  const line = (t) => {
    const level = (t.split(" ")[1] || "").toUpperCase();
    const stick = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    pre.append(el("div", { class: level }, t));
    if (stick) pre.scrollTop = pre.scrollHeight;
  };
  fetch(`/v1/runs/${encodeURIComponent(id)}/logs`, { headers, signal: ctl.signal }).then(async (res) => {
    if (res.status === 404) { note("Logs are not available (unknown run)."); return; }
    if (!res.ok) { note(`Logs unavailable: HTTP ${res.status}`); return; }
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let event = "message";
        const data = [];
        for (const l of block.split("\n")) {
          if (l.startsWith("event: ")) event = l.slice(7);
          else if (l.startsWith("data: ")) data.push(l.slice(6));
        }
        if (event === "log") line(data.join("\n"));
        else if (event === "truncated") note(data.join(" "));
        else if (event === "end") { note("— end of log —"); onEnd(); ctl.abort(); return; }
      }
    }
  }).catch((e) => { if (e.name !== "AbortError") note(`Log stream failed: ${e.message}`); });
}

// ---------- submit ----------

const SAMPLE = `version: 1
name: example
pipeline:
  source:
    type: csv
    config: {path: input.csv}
  sink:
    type: jsonl
    config: {path: out/result.jsonl}
`;

function submitView() {
  const editor = el("textarea", { class: "editor", spellcheck: "false", id: "config" });
  editor.value = sessionStorage.getItem("faucet.draft") || SAMPLE;
  editor.addEventListener("input", () => sessionStorage.setItem("faucet.draft", editor.value));
  const format = el("select", { id: "format" }, el("option", { value: "yaml" }, "YAML"), el("option", { value: "json" }, "JSON"));
  const name = el("input", { id: "name", placeholder: "optional" });
  const labels = el("input", { id: "labels", placeholder: "team=data, env=prod" });
  const timeout = el("input", { id: "timeout", type: "number", min: "1", placeholder: "seconds" });
  const key = el("input", { id: "key", placeholder: "optional" });
  const out = el("div", { id: "result" });
  const submit = el("button", { type: "button", class: "primary", id: "submit" }, "Submit");

  submit.addEventListener("click", async () => {
    const body = { config: editor.value, config_format: format.value };
    if (name.value.trim()) body.name = name.value.trim();
    if (key.value.trim()) body.idempotency_key = key.value.trim();
    if (timeout.value) body.timeout_secs = Number(timeout.value);
    const lab = {};
    for (const pair of labels.value.split(",")) {
      const [k, ...v] = pair.split("=");
      if (k.trim()) lab[k.trim()] = v.join("=").trim();
    }
    if (Object.keys(lab).length) body.labels = lab;
    submit.disabled = true;
    try {
      const r = await api("POST", "/v1/runs", body);
      location.hash = `#/runs/${encodeURIComponent(r.run_id)}`;
    } catch (e) {
      const items = ((e.details && e.details.errors) || []).map((x) =>
        el("li", {}, x.line ? `line ${x.line}, column ${x.column}: ` : "", x.path ? `${x.path}: ` : "", x.message));
      out.replaceChildren(el("p", { class: "error" }, e.message.split("\n")[0]), items.length ? el("ul", { class: "error" }, items) : "");
    } finally {
      submit.disabled = false;
    }
  });
  show(el("h1", {}, "Submit a run"),
    el("div", { class: "form" },
      el("label", { for: "format" }, "Format"), format,
      el("label", { for: "name" }, "Name"), name,
      el("label", { for: "labels" }, "Labels"), labels,
      el("label", { for: "timeout" }, "Timeout"), timeout,
      el("label", { for: "key" }, "Idempotency key"), key),
    el("h2", {}, "Pipeline"), editor,
    el("div", { class: "actions" }, submit, el("span", { class: "muted" }, "Invalid pipelines are reported with line and column.")),
    out);
}

// ---------- audit ----------

function auditView() {
  const principal = el("input", { placeholder: "principal", "aria-label": "principal" });
  const action = el("input", { placeholder: "action (e.g. run.submit)", "aria-label": "action" });
  const body = el("tbody");
  const err = el("p", { class: "error" });
  async function load() {
    const q = new URLSearchParams({ limit: "200" });
    if (principal.value.trim()) q.set("principal", principal.value.trim());
    if (action.value.trim()) q.set("action", action.value.trim());
    try {
      const r = await api("GET", `/v1/audit?${q}`);
      err.textContent = "";
      body.replaceChildren(...r.entries.map((e) => el("tr", {},
        el("td", {}, fmtTime(e.timestamp)), el("td", {}, e.principal), el("td", {}, e.role),
        el("td", { class: "mono" }, e.action),
        el("td", {}, e.run_id ? el("a", { href: `#/runs/${encodeURIComponent(e.run_id)}`, class: "mono" }, e.run_id) : "—"),
        el("td", { class: "hide-narrow" }, e.source_ip || "—"), el("td", {}, e.result))));
    } catch (e) {
      err.textContent = e.status === 403 ? "Your role cannot read the audit log." : e.message;
    }
  }
  for (const c of [principal, action]) c.addEventListener("change", load);
  load();
  show(el("h1", {}, "Audit"), el("div", { class: "filters" }, principal, action, el("button", { type: "button", onclick: load }, "Refresh")),
    err, el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "Time"), el("th", {}, "Principal"), el("th", {}, "Role"),
      el("th", {}, "Action"), el("th", {}, "Run"), el("th", { class: "hide-narrow" }, "Source IP"), el("th", {}, "Result"))), body));
}

window.addEventListener("hashchange", route);
setupChrome();
boot();
