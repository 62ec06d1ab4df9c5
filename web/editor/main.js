// The editor of one FIFO (`/_/edit/NAME`): the envelope in CodeMirror, saved with the
// button or Ctrl/Cmd-S (a refused envelope is marked at its line and column), the
// variables (names and lengths only), "try it", and the live Request log. Everything is
// read and written through the JSON API (`/_/api/fifos/NAME...`) and one WebSocket.
import { EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection } from "@codemirror/view";
import { EditorState } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { envelopeHighlight, envelopeLanguage } from "./envelope-language.js";
import { connectLive } from "./live.js";

const fifo = document.body.dataset.fifo;
const api = `/_/api/fifos/${fifo}`;
const $ = (id) => document.getElementById(id);

// An element with text children (never HTML).
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}

async function call(method, path, body) {
  const resp = await fetch(`${api}${path}`, { method, body, headers: body == null ? {} : { "Content-Type": "text/plain" } });
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: text.trim() };
  }
  return { status: resp.status, ok: resp.ok, data };
}

function say(output, text, kind = "") {
  output.textContent = text;
  output.className = kind;
}

// --- The envelope --------------------------------------------------------------------

let view;

function makeEditor(text) {
  view = new EditorView({
    parent: $("editor"),
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        lintGutter(),
        envelopeLanguage,
        syntaxHighlighting(envelopeHighlight),
        syntaxHighlighting(defaultHighlightStyle),
        keymap.of([{ key: "Mod-s", preventDefault: true, run: () => (save(), true) }, ...defaultKeymap, ...historyKeymap]),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": "envelope" }),
        EditorView.updateListener.of((u) => u.docChanged && say($("save-status"), "not saved", "pending")),
      ],
    }),
  });
}

// The position of line `line`, column `column` (both from 1) in the document.
function position(line, column) {
  const doc = view.state.doc;
  const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
  return { at: Math.min(l.from + Math.max(column, 1) - 1, l.to), end: l.to };
}

async function save() {
  if (!view) return; // the envelope could not be read
  const status = $("save-status");
  say(status, "saving", "pending");
  const text = view.state.doc.toString();
  const { ok, data, status: code } = await call("PUT", "", text);
  if (ok) {
    view.dispatch(setDiagnostics(view.state, []));
    say(status, "saved", "ok");
    loadFifo(false); // its next scheduled run
    return;
  }
  const message = (data && data.error) || `${code}`;
  say(status, message, "error");
  if (data && data.line) {
    const { at, end } = position(data.line, data.column || 1);
    view.dispatch(setDiagnostics(view.state, [{ from: at, to: Math.max(end, at), severity: "error", message }]), {
      selection: { anchor: at },
      scrollIntoView: true,
    });
  }
}

// --- Variables -----------------------------------------------------------------------

function showVars(vars) {
  const list = $("var-list");
  list.replaceChildren();
  for (const v of vars) {
    const remove = el("button", { type: "button", "aria-label": `delete ${v.name}` }, "Delete");
    remove.addEventListener("click", async () => {
      const r = await call("DELETE", `/vars/${encodeURIComponent(v.name)}`);
      say($("var-status"), r.ok ? `${v.name} deleted` : r.data.error, r.ok ? "ok" : "error");
      await loadFifo(false);
    });
    list.append(el("tr", {}, el("td", {}, el("code", {}, v.name)), el("td", {}, `${v.length} bytes`), el("td", {}, remove)));
  }
}

$("var-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const name = form.elements.name.value.trim();
  const r = await call("PUT", `/vars/${encodeURIComponent(name)}`, form.elements.value.value);
  say($("var-status"), r.ok ? `${name} set` : r.data.error, r.ok ? "ok" : "error");
  if (r.ok) form.reset();
  await loadFifo(false);
});

async function loadFifo(first) {
  const { ok, data } = await call("GET", "");
  if (!ok) {
    say($("save-status"), data.error, "error");
    return;
  }
  if (first) makeEditor(data.envelope);
  showVars(data.vars);
  showNextRun(data.next_run);
}

// When the envelope's `Schedule:` runs next (none without one).
function showNextRun(at) {
  const p = $("next-run");
  p.hidden = at == null;
  if (at != null) p.textContent = `Next scheduled run: ${new Date(at).toISOString().replace(".000Z", "Z")} (${new Date(at).toLocaleString()})`;
}

// --- Try it --------------------------------------------------------------------------

function headerLines(text) {
  const headers = new Headers();
  for (const line of text.split("\n")) {
    const at = line.indexOf(":");
    if (line.trim() && at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return headers;
}

// Headers a resent Request does not repeat: the platform's own, and those the log did not
// keep (credentials). The browser itself drops those a page may not set.
const NOT_RESENT = /^(cf-|x-forwarded-|x-real-ip$|host$|content-length$|authorization$|cookie$|proxy-authorization$|x-editor-try$)/i;

// "Try it" marks its Request with a header of its own, to find the Request's log entry
// (its steps, its id) among the others.
const TRY_HEADER = "x-editor-try";

async function loggedTry(mark) {
  for (let i = 0; i < 5; i++) {
    const { ok, data } = await call("GET", "/log?limit=20&bodies=1");
    const found = ok && data.entries.find((e) => (e.headers || []).some(([k, v]) => k === TRY_HEADER && v === mark));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 200)); // a streamed answer is logged when it ends
  }
  return null;
}

// A resent Request's body that is not text: its bytes as the log keeps them, sent as they
// were unless the body field is typed into.
let binaryBody = null;

function setBody(text, bytes = null) {
  const field = $("try-form").elements.body;
  binaryBody = bytes;
  field.value = text;
  field.placeholder = bytes ? `${bytes.length} bytes that are not text, from the log: sent as they were (type to replace them)` : "";
}

$("try-form").elements.body.addEventListener("input", () => setBody($("try-form").elements.body.value));

// Puts a logged Request into the "try it" form and sends it again.
function resend(e) {
  const form = $("try-form");
  const methods = form.elements.method;
  if (![...methods.options].some((o) => o.value === e.method)) methods.append(el("option", {}, e.method));
  methods.value = e.method;
  const sub = e.path.slice(fifo.length + 2);
  form.elements.path.value = e.query ? `${sub}?${e.query}` : sub;
  form.elements.headers.value = (e.headers || [])
    .filter(([k]) => !NOT_RESENT.test(k))
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
  if (e.body_base64 != null) setBody("", Uint8Array.from(atob(e.body_base64), (c) => c.charCodeAt(0)));
  else setBody(e.body ?? "");
  form.requestSubmit();
  $("try").scrollIntoView();
}

$("try-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const method = form.elements.method.value;
  const path = form.elements.path.value.replace(/^\/+/, "");
  const answer = $("try-answer");
  answer.hidden = false;
  answer.replaceChildren(el("p", {}, "sending"));
  const mark = crypto.randomUUID();
  const headers = headerLines(form.elements.headers.value);
  headers.set(TRY_HEADER, mark);
  const started = performance.now();
  try {
    // Without the session cookie: the FIFO's script sees what any caller would send.
    const resp = await fetch(`/${fifo}/${path}`, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : (binaryBody ?? form.elements.body.value),
      credentials: "omit",
      redirect: "manual",
    });
    const body = await resp.text();
    const ms = Math.round(performance.now() - started);
    const heads = [...resp.headers].map(([k, v]) => `${k}: ${v}`).join("\n");
    const steps = el("span", { class: "steps" });
    answer.replaceChildren(
      el("p", {}, el("strong", { class: "status" }, `${resp.status} ${resp.statusText}`), ` in ${ms} ms`, steps),
      el("pre", { class: "headers" }, heads),
      el("pre", { class: "body" }, body.length > 65536 ? `${body.slice(0, 65536)}\n...` : body),
    );
    const logged = await loggedTry(mark);
    if (logged) {
      const open = el("button", { type: "button", class: "link" }, "its log entry");
      open.addEventListener("click", () => openEntry(logged.request_id));
      steps.replaceChildren(`, ${logged.steps} steps · `, open);
    }
  } catch (err) {
    answer.replaceChildren(el("p", { class: "error" }, `no answer: ${err.message}`));
  }
});

// --- The live log ----------------------------------------------------------------------

const entries = new Map(); // by log id
const KEPT_ENTRIES = 1000; // as many as the log keeps

const time = (ms) => new Date(ms).toLocaleTimeString();

function showLog() {
  const rows = [...entries.values()].sort((a, b) => b.id - a.id);
  $("log-list").replaceChildren(
    ...rows.map((e) => {
      const open = el("button", { type: "button", class: "link" }, e.path);
      open.addEventListener("click", () => openEntry(e.request_id));
      const status = el("td", { class: e.status >= 400 ? "error" : "" }, e.status);
      const row = el("tr", { "data-id": e.id }, el("td", {}, time(e.at)), el("td", {}, e.method), el("td", {}, open), status);
      row.append(el("td", {}, e.duration_ms), el("td", {}, e.request_bytes));
      return row;
    }),
  );
}

async function openEntry(requestId) {
  const box = $("log-entry");
  box.hidden = false;
  const { ok, data } = await call("GET", `/log/${encodeURIComponent(requestId)}`);
  if (!ok) {
    box.replaceChildren(el("p", { class: "error" }, data.error));
    return;
  }
  const e = data.entry;
  const close = el("button", { type: "button" }, "Close");
  close.addEventListener("click", () => (box.hidden = true));
  box.tabIndex = -1;
  const target = e.query ? `${e.path}?${e.query}` : e.path;
  const facts = `${e.method} ${target} → ${e.status} in ${e.duration_ms} ms, ${e.steps} steps; delivery: ${e.delivery || "none"}`;
  const parts = [el("h3", {}, `Request ${e.request_id}`), el("p", {}, time(e.at), " · ", facts)];
  if (e.replay_of) {
    const original = el("button", { type: "button", class: "link" }, e.replay_of);
    original.addEventListener("click", () => openEntry(e.replay_of));
    parts.push(el("p", { class: "replay-of" }, "A replay of ", original));
  }
  if (e.note) parts.push(el("p", { class: "note" }, e.note));
  if (e.error) parts.push(el("p", { class: "error" }, e.error));
  parts.push(el("h4", {}, "Headers"), el("pre", { class: "headers" }, (e.headers || []).map(([k, v]) => `${k}: ${v}`).join("\n")));
  parts.push(el("h4", {}, "Body"), el("pre", { class: "body" }, e.body ?? "", e.body_cut ? "\n(cut: the log keeps 64 KiB)" : ""));
  if (e.body_base64 != null) parts.push(el("p", {}, "Not text: shown with its invalid bytes replaced, resent as it was."));
  if (e.stderr_bytes > 0) {
    const cut = e.stderr_bytes > 16 * 1024 ? `\n(cut: the log keeps the first 16 KiB of ${e.stderr_bytes} bytes)` : "";
    parts.push(el("h4", {}, "The script's stderr"), el("pre", { class: "stderr" }, e.stderr, cut));
  }
  parts.push(el("h4", {}, "Deliveries"));
  if (data.deliveries.length === 0) parts.push(el("p", {}, "none"));
  for (const d of data.deliveries) {
    const attempts = d.attempts.map((a) => `${time(a.at)}: ${a.status ?? a.error} (${a.duration_ms} ms)`).join("; ");
    parts.push(el("p", {}, `${d.purpose} to ${JSON.stringify(d.destination)}: ${d.state}`, attempts ? ` · ${attempts}` : ""));
  }
  if (["http", "fifo", "schedule"].includes(e.source)) {
    // Sent again as it was (its whole body, while the FIFO keeps it) through the envelope
    // as it is now, from the queue: the replay's own entry opens.
    const replay = el("button", { type: "button", class: "replay" }, "Replay");
    replay.addEventListener("click", async () => {
      const { ok, data } = await call("POST", `/log/${encodeURIComponent(e.request_id)}/replay`);
      if (ok) openEntry(data.id);
      else box.append(el("p", { class: "error" }, data.error));
    });
    parts.push(replay, " ");
  }
  if (e.source === "http" && !e.body_cut) {
    const again = el("button", { type: "button", class: "resend" }, "Edit and resend");
    again.addEventListener("click", () => resend(e));
    parts.push(again, " ");
  }
  parts.push(close);
  box.replaceChildren(...parts);
  box.focus();
}

function newestId() {
  let newest = null;
  for (const id of entries.keys()) if (newest == null || id > newest) newest = id;
  return newest;
}

const live = connectLive(fifo, {
  newestId,
  onEntries: (list, more) => {
    for (const e of list) entries.set(e.id, e);
    if (list.some((e) => e.method === "SCHEDULE")) loadFifo(false);
    const oldest = [...entries.keys()].sort((a, b) => a - b);
    for (const id of oldest.slice(0, Math.max(0, entries.size - KEPT_ENTRIES))) entries.delete(id);
    // Missed more than one catch-up holds: the page shows the newest, and says so.
    if (more) $("log-gap").hidden = false;
    showLog();
  },
  onState: (state) => {
    $("live-state").textContent = state;
    $("live-state").className = state;
  },
});
window.mkfifoEditor = { dropLive: live.drop };

$("save").addEventListener("click", save);
$("log-entry").addEventListener("keydown", (event) => {
  if (event.key === "Escape") event.currentTarget.hidden = true;
});
loadFifo(true);
