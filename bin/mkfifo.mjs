#!/usr/bin/env node
// mkfifo: the terminal client of a mkfifo site, over its JSON API with an API token.
//
//   mkfifo login URL              sign in by the mailed link; keeps an API token
//   mkfifo ls                     your FIFOs
//   mkfifo push NAME FILE         save FILE as NAME's envelope (errors at FILE:LINE:COLUMN)
//   mkfifo pull NAME              print NAME's envelope
//   mkfifo edit NAME              edit the envelope in $EDITOR; saved on exit
//   mkfifo send NAME[/PATH] [-X METHOD] [-H 'K: V']... [-d DATA|@FILE|@-] [-i]
//   mkfifo tail NAME [-n N] [--json]   the live log, one line per Request
//   mkfifo vars NAME [ls | set KEY | rm KEY]   variables (a value is read from stdin)
//   mkfifo replay NAME ID | --failed-since TIME
//
// The token is kept in $XDG_CONFIG_HOME/mkfifo/config.json (~/.config/...), mode 0600.
// Exit status: 0 done, 1 refused or failed, 2 a wrong command line.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import WebSocket from "ws";

const USAGE = `usage: mkfifo login URL
       mkfifo ls
       mkfifo push NAME FILE
       mkfifo pull NAME
       mkfifo edit NAME
       mkfifo send NAME[/PATH][?QUERY] [-X METHOD] [-H 'NAME: VALUE']... [-d DATA | -d @FILE | -d @-] [-i]
       mkfifo tail NAME [-n N] [--json]
       mkfifo vars NAME [ls | set KEY | rm KEY]
       mkfifo replay NAME ID
       mkfifo replay NAME --failed-since TIME
       mkfifo rm NAME`;

class Exit extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
const usage = (why) => new Exit(2, `${why}\n${USAGE}`);
const fail = (message) => new Exit(1, message);

function configFile() {
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "mkfifo", "config.json");
}

function readConfig() {
  let text;
  try {
    text = fs.readFileSync(configFile(), "utf8");
  } catch {
    throw fail("not signed in: run 'mkfifo login URL' first");
  }
  return JSON.parse(text);
}

function writeConfig(config) {
  const file = configFile();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written to a new file of mode 0600, then moved over: the token is never readable by others.
  const temp = `${file}.${process.pid}`;
  fs.writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

// The API with the kept token; the answer as JSON (or null), failing on a refusal.
async function api(method, apiPath, body, { allow = [] } = {}) {
  const { url, token } = readConfig();
  let resp;
  try {
    resp = await fetch(`${url}/_/api/${apiPath}`, { method, headers: { Authorization: `Bearer ${token}` }, body });
  } catch (err) {
    throw fail(`${url}: ${err.cause?.message || err.message}`);
  }
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: text.trim() };
  }
  if (resp.status === 401) throw fail("the API token is not good (revoked?): run 'mkfifo login URL' again");
  if (resp.status >= 400 && !allow.includes(resp.status)) throw fail(data?.error || `${resp.status} ${resp.statusText}`);
  return { status: resp.status, data };
}

// One line from the terminal (or stdin), after a prompt. Lines are read as they come and
// kept, so that piped answers are not lost between two prompts.
async function ask(lines, prompt) {
  process.stdout.write(prompt);
  const { value, done } = await lines.next();
  if (done) throw fail("login: no answer (end of input)");
  return value;
}

async function login([site]) {
  if (!site) throw usage("login: which site? (its URL)");
  let url;
  try {
    url = new URL(site).origin;
  } catch {
    throw usage(`login: not a URL: ${site}`);
  }
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  try {
    const email = (await ask(lines, "Email: ")).trim();
    if (!email) throw fail("login: an email address is needed");
    const asked = await fetch(`${url}/_/signin`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: url },
      body: new URLSearchParams({ email }).toString(),
    });
    if (asked.status !== 200) throw fail(`login: ${asked.status} ${(await asked.text()).trim()}`);
    const pasted = (await ask(lines, `A sign-in link was mailed to ${email}. Paste the link (or its token): `)).trim();
    const secret = pasted.includes("/_/signin/") ? pasted.split("/_/signin/")[1].split(/[?#\s]/)[0] : pasted;
    if (!secret) throw fail("login: no link was pasted");
    const signed = await fetch(`${url}/_/signin/${encodeURIComponent(secret)}`, { method: "POST", headers: { Origin: url }, redirect: "manual" });
    const cookie = signed.headers.get("set-cookie");
    if (signed.status !== 303 || !cookie) throw fail(`login: the link is not good (used, expired or mistyped): ${signed.status}`);
    const session = { Cookie: cookie.split(";")[0], Origin: url };
    const made = await fetch(`${url}/_/api/tokens`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ name: `mkfifo on ${os.hostname()}` }),
    });
    if (made.status !== 201) throw fail(`login: no API token: ${made.status} ${(await made.text()).trim()}`);
    const { token } = await made.json();
    // The token does the work from now on: the session it was made with ends.
    await (await fetch(`${url}/_/signout`, { method: "POST", headers: session, redirect: "manual" })).arrayBuffer();
    writeConfig({ url, email, token });
    console.log(`Signed in to ${url} as ${email}; the API token is in ${configFile()}`);
  } finally {
    rl.close();
  }
}

const fifoName = (name, what) => {
  if (!name) throw usage(`${what}: which FIFO?`);
  return encodeURIComponent(name);
};

async function ls() {
  const { data } = await api("GET", "fifos");
  for (const f of data.fifos) {
    const last = f.last_request_at ? new Date(f.last_request_at).toISOString() : "-";
    console.log(`${f.name}\t${f.log_entries}\t${last}`);
  }
}

// Saves an envelope; a refusal is `FILE:LINE:COLUMN: message`, as a compiler says it.
async function save(name, file, text) {
  const { status, data } = await api("PUT", `fifos/${fifoName(name, "push")}`, text, { allow: [400] });
  if (status === 400) {
    const where = data.line ? `${file}:${data.line}:${data.column}` : file;
    return `${where}: error: ${data.error.replace(/^envelope: (line \d+, column \d+: )?/, "")}`;
  }
  return null;
}

async function push([name, file]) {
  if (!name || !file) throw usage("push: NAME and FILE are needed");
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw fail(`push: ${file}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
  }
  const refused = await save(name, file, text);
  if (refused) throw fail(refused);
}

async function pull([name]) {
  const { data } = await api("GET", `fifos/${fifoName(name, "pull")}`);
  process.stdout.write(data.envelope);
}

async function edit([name]) {
  const { status, data } = await api("GET", `fifos/${fifoName(name, "edit")}`, undefined, { allow: [404] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mkfifo-edit-"));
  const file = path.join(dir, `${name}.envelope`);
  const original = status === 404 ? "" : data.envelope;
  fs.writeFileSync(file, original, { mode: 0o600 });
  const editor = process.env.VISUAL || process.env.EDITOR || "vi";
  let last = original;
  for (;;) {
    // As a shell word, so that EDITOR may hold options ("code --wait").
    const ran = spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit" });
    if (ran.status !== 0) throw fail(`edit: ${editor} exited with ${ran.status ?? ran.signal}: not saved (the text is in ${file})`);
    const text = fs.readFileSync(file, "utf8");
    if (text === last) {
      if (text !== original) throw fail(`edit: unchanged after the error: not saved (the text is in ${file})`);
      fs.rmSync(dir, { recursive: true, force: true });
      console.error(`mkfifo: edit: ${name} unchanged`);
      return;
    }
    const refused = await save(name, file, text);
    if (!refused) {
      fs.rmSync(dir, { recursive: true, force: true });
      console.error(`mkfifo: edit: ${name} saved`);
      return;
    }
    // The error, then the editor again on the same text; unchanged, it gives up.
    console.error(refused);
    console.error("mkfifo: edit: opening it again (leave it unchanged to give up)");
    last = text;
  }
}

// Options as curl takes them: -X, -H (repeated), -d/--data/--data-binary (DATA, @FILE,
// @- for stdin), -i to print the answer's status and headers too.
async function send(args) {
  const [target, ...rest] = args;
  if (!target) throw usage("send: which FIFO?");
  let method = null;
  const headers = new Headers();
  let body;
  let include = false;
  for (let i = 0; i < rest.length; i++) {
    const opt = rest[i];
    const value = () => {
      if (i + 1 >= rest.length) throw usage(`send: ${opt} needs a value`);
      return rest[++i];
    };
    if (opt === "-X" || opt === "--request") method = value();
    else if (opt === "-H" || opt === "--header") {
      const h = value();
      const at = h.indexOf(":");
      if (at <= 0) throw usage(`send: a header is 'NAME: VALUE', not '${h}'`);
      headers.append(h.slice(0, at).trim(), h.slice(at + 1).trim());
    } else if (opt === "-d" || opt === "--data" || opt === "--data-binary") {
      const v = value();
      if (v === "@-") body = fs.readFileSync(0);
      else if (v.startsWith("@")) {
        try {
          body = fs.readFileSync(v.slice(1));
        } catch (err) {
          throw fail(`send: ${v.slice(1)}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
        }
      } else body = Buffer.from(v);
    } else if (opt === "-i" || opt === "--include") include = true;
    else throw usage(`send: unknown option ${opt}`);
  }
  const { url } = readConfig();
  const resp = await fetch(`${url}/${target.replace(/^\/+/, "")}`, {
    method: method || (body ? "POST" : "GET"),
    headers,
    body,
    redirect: "manual",
  }).catch((err) => {
    throw fail(`send: ${url}: ${err.cause?.message || err.message}`);
  });
  if (include) {
    process.stdout.write(`${resp.status} ${resp.statusText}\n`);
    for (const [k, v] of resp.headers) process.stdout.write(`${k}: ${v}\n`);
    process.stdout.write("\n");
  }
  process.stdout.write(Buffer.from(await resp.arrayBuffer()));
  if (resp.status >= 400) throw fail(`send: ${resp.status} ${resp.statusText}`);
}

function line(e) {
  const when = new Date(e.at).toISOString();
  const extra = [e.delivery && `delivery=${e.delivery}`, e.replay_of && `replay_of=${e.replay_of}`, e.error && `error=${JSON.stringify(e.error)}`].filter(Boolean);
  return [when, e.request_id, e.method, e.path, e.status, `${e.duration_ms}ms`, `${e.request_bytes}B`, ...extra].join(" ");
}

// The live log over the editor's WebSocket: the newest N Requests, then each new one as
// it is logged, and again each time its line changes (its delivery moves on).
async function tail(args) {
  const [name, ...rest] = args;
  fifoName(name, "tail");
  let count = 10;
  let asJson = false;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "--json") asJson = true;
    else if (rest[i] === "-n" && /^\d+$/.test(rest[i + 1] || "")) count = Number(rest[++i]);
    else throw usage(`tail: unknown option ${rest[i]}`);
  }
  const { url, token } = readConfig();
  const shown = new Map();
  const show = (e) => {
    const text = line(e);
    if (shown.get(e.id) === text) return;
    shown.set(e.id, text);
    process.stdout.write(asJson ? `${JSON.stringify(e)}\n` : `${text}\n`);
  };
  const socketUrl = `${url.replace(/^http/, "ws")}/_/api/fifos/${encodeURIComponent(name)}/live`;
  await new Promise((resolve, reject) => {
    const ws = new WebSocket(socketUrl, { headers: { Authorization: `Bearer ${token}`, Origin: url } });
    const ping = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('{"type":"ping"}'), 30_000);
    ws.on("open", () => ws.send('{"type":"hello"}'));
    ws.on("unexpected-response", (_, resp) => {
      let text = "";
      resp.on("data", (c) => (text += c));
      resp.on("end", () => {
        let message = text.trim();
        try {
          message = JSON.parse(text).error;
        } catch {}
        reject(fail(`tail: ${resp.statusCode === 401 ? "the API token is not good: run 'mkfifo login URL' again" : message}`));
      });
    });
    ws.on("message", (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === "entries") m.entries.slice(-count).forEach(show);
      else if (m.type === "entry") show(m.entry);
      else if (m.type === "deleted") {
        clearInterval(ping);
        reject(fail(`tail: ${name} was deleted`));
      } else if (m.type === "error") console.error(`mkfifo: tail: ${m.message}`);
    });
    ws.on("error", (err) => reject(fail(`tail: ${err.message}`)));
    ws.on("close", () => {
      clearInterval(ping);
      resolve();
    });
    process.on("SIGINT", () => ws.close());
    process.on("SIGTERM", () => ws.close());
  });
}

async function vars([name, what = "ls", key]) {
  const base = `fifos/${fifoName(name, "vars")}`;
  if (what === "ls") {
    const { data } = await api("GET", base);
    for (const v of data.vars) console.log(`${v.name}\t${v.length}`);
  } else if (what === "set") {
    if (!key) throw usage("vars set: which variable?");
    if (process.stdin.isTTY) process.stderr.write(`Value of ${key} (then Enter and Ctrl-D): `);
    let value = fs.readFileSync(0);
    // Typed at a terminal, the Enter that ends the line is not part of the value.
    if (process.stdin.isTTY && value.at(-1) === 0x0a) value = value.subarray(0, -1);
    const { data } = await api("PUT", `${base}/vars/${encodeURIComponent(key)}`, value);
    console.error(`mkfifo: ${key} set (${data.length} bytes)`);
  } else if (what === "rm") {
    if (!key) throw usage("vars rm: which variable?");
    await api("DELETE", `${base}/vars/${encodeURIComponent(key)}`);
  } else throw usage(`vars: ls, set KEY or rm KEY, not ${what}`);
}

// Deletes a FIFO with its variables and its log (there is no undo).
async function rm([name]) {
  await api("DELETE", `fifos/${fifoName(name, "rm")}`);
}

// TIME: milliseconds since 1970, or a date that JavaScript reads (2026-12-02T18:00Z).
function when(text) {
  if (/^\d+$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw usage(`replay: not a time: ${text}`);
  return ms;
}

async function replay([name, id, since]) {
  const base = `fifos/${fifoName(name, "replay")}`;
  if (!id) throw usage("replay: which Request? (its id, or --failed-since TIME)");
  if (id === "--failed-since") {
    if (!since) throw usage("replay: --failed-since needs a time");
    const { data } = await api("POST", `${base}/replay?failed_since=${when(since)}`);
    for (const r of data.replayed) console.log(`${r.id} replays ${r.replay_of}`);
    for (const r of data.not_replayed) console.error(`mkfifo: replay: ${r.request_id}: ${r.error}`);
    if (data.not_replayed.length) throw new Exit(1, "");
    return;
  }
  const { data } = await api("POST", `${base}/log/${encodeURIComponent(id)}/replay`);
  console.log(data.id);
}

const COMMANDS = { login, ls, push, pull, edit, send, tail, vars, replay, rm };

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (command === "-h" || command === "--help") {
    console.log(USAGE);
    return 0;
  }
  if (!command) throw usage("a command is needed");
  const run = COMMANDS[command];
  if (!run) throw usage(`unknown command: ${command}`);
  await run(args);
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    if (!(err instanceof Exit)) {
      console.error(`mkfifo: ${err.stack || err}`);
      process.exitCode = 1;
      return;
    }
    if (err.message) console.error(`mkfifo: ${err.message}`);
    process.exitCode = err.code;
  },
);
