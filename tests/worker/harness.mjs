// Test support: starts the real Worker in local workerd (`wrangler dev`) on free ports
// with a fresh state directory, and small local HTTP servers for destinations.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const TOKEN = "test-operator-token";

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function tempDir(prefix = "mkfifo-state-") {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Starts `wrangler dev` on the already built Worker (build/ must exist: scripts/build.sh).
// `persist` keeps state across restarts; `vars` are extra [vars]; `env` extra environment
// (TMPDIR says where local send_email writes its .eml files); `config` another
// wrangler.toml (bench/floor/'s, the benchmarks' empty object).
const MAX_LOG = 64 << 20;

export async function startWorker({ persist = tempDir(), vars = {}, env = {}, config = null, timeoutMs = 90_000 } = {}) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const varArgs = Object.entries({ MKFIFO_ADMIN_TOKEN: TOKEN, MKFIFO_FAULTS: "1", ...vars }).flatMap(
    ([k, v]) => ["--var", `${k}:${v}`],
  );
  const child = spawn(
    path.join(ROOT, "node_modules/.bin/wrangler"),
    [
      "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort),
      "--show-interactive-dev-session=false", "--persist-to", persist,
      "--log-level", "log", ...(config ? ["--config", config] : []), ...varArgs,
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        // The build already ran; wrangler must not rebuild in the middle of a test.
        MKFIFO_SKIP_BUILD: "1",
        WRANGLER_SEND_METRICS: "false",
        WRANGLER_SEND_ERROR_REPORTS: "false",
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        CI: "true",
        ...env,
      },
    },
  );
  // wrangler's output, its last MAX_LOG characters: a long benchmark logs a line a Request.
  let log = "";
  const keep = (d) => {
    log += d;
    if (log.length > MAX_LOG) log = log.slice(-MAX_LOG / 2);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        resolve();
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }, 3000).unref();
    });
  // The fault of a machine that goes down: no time to finish anything.
  const kill = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        resolve();
      }
    });
  process.once("exit", () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  });
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || /Build failed|\[ERROR\]/.test(log)) {
      await stop();
      throw new Error(`wrangler dev failed:\n${log}`);
    }
    try {
      const r = await fetch(`${base}/robots.txt`, { signal: AbortSignal.timeout(2000) });
      await r.text();
      if (r.ok) break;
    } catch {}
    if (Date.now() - started > timeoutMs) {
      await stop();
      throw new Error(`wrangler dev not ready after ${timeoutMs} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, persist, inspectorPort, stop, kill, log: () => log, readyMs: Date.now() - started };
}

// A message through the local mail trigger, as Email Routing would hand it to the Worker.
export function sendMail(base, from, to, raw) {
  const url = `${base}/cdn-cgi/handler/email?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
  return fetch(url, { method: "POST", body: raw });
}

// The .eml files that local send_email wrote so far, in order (wrangler logs each path;
// start the Worker with its own TMPDIR so that they are the test's own).
export function sentMail(worker) {
  const re = /send_email binding called with the following message:\s*(\S+\.eml)/g;
  return [...worker.log().matchAll(re)].map((m) => m[1]);
}

// A message as Python's `email` package reads it (tests/mail/read_eml.py).
export function readMail(file) {
  return JSON.parse(execFileSync("python3", [path.join(ROOT, "tests/mail/read_eml.py"), file], { encoding: "utf8" }));
}

// The next sign-in message to `email`, once `ask()` has asked for it, and its link.
export async function signinMail(worker, email, ask) {
  const seen = sentMail(worker).length;
  await ask();
  const message = readMail(await until(() => sentMail(worker)[seen], `the sign-in mail to ${email}`));
  return { message, link: message.text.match(/https?:\/\/\S+\/_\/signin\/\S+/)[0] };
}

// Signs `email` in as a browser would: asks for a link, reads it from the message, opens
// it (which signs no one in), presses its button. The session cookie (`NAME=VALUE`).
export async function signIn(worker, email) {
  const { message, link } = await signinMail(worker, email, async () => {
    const r = await fetch(`${worker.base}/_/signin`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: worker.base },
      body: new URLSearchParams({ email }).toString(),
    });
    if (r.status !== 200) throw new Error(`sign-in of ${email}: ${r.status} ${await r.text()}`);
  });
  const page = await fetch(link);
  const button = /<form method="post" action="\/_\/signin\//.test(await page.text());
  if (page.status !== 200 || page.headers.get("set-cookie") || !button) throw new Error(`opening ${link}: ${page.status}`);
  const done = await fetch(link, { method: "POST", headers: { Origin: worker.base }, redirect: "manual" });
  const cookie = done.headers.get("set-cookie");
  if (done.status !== 303 || !cookie) throw new Error(`signing in by ${link}: ${done.status}`);
  return { cookie: cookie.split(";")[0], setCookie: cookie, link, message };
}

// The JSON API with the operator token.
export function api(base, method, apiPath, body, headers = {}) {
  return fetch(`${base}/_/api/${apiPath}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...headers },
    body,
  });
}

export async function putFifo(base, name, envelope = "") {
  const r = await api(base, "PUT", `fifos/${name}`, envelope);
  const text = await r.text();
  if (r.status !== 201 && r.status !== 200) throw new Error(`PUT ${name}: ${r.status} ${text}`);
  return JSON.parse(text);
}

// Polls `check` until it gives a value (every 100 ms, for at most `ms`).
export async function until(check, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function getLog(base, name, query = "") {
  const r = await api(base, "GET", `fifos/${name}/log${query}`);
  if (r.status !== 200) throw new Error(`log of ${name}: ${r.status} ${await r.text()}`);
  return (await r.json()).entries;
}

// A local HTTP server; `handler(req, res, body)` answers. Requests are recorded.
// `port` 0 takes a free one.
export async function startServer(handler, port = 0) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  // Connections still open (a request left unanswered) must not keep close() waiting.
  const close = () =>
    new Promise((r) => {
      server.close(r);
      server.closeAllConnections();
    });
  return { url, requests, close };
}

// The reference rclone (scripts/setup.sh --test puts it in .ref; RCLONE overrides).
export const RCLONE = process.env.RCLONE || path.join(ROOT, ".ref/py/bin/rclone");

// A real local S3 server: `rclone serve s3` over `dir` (each folder in it a bucket),
// checking AWS Signature V4 with the key pair `key`/`secret`.
export async function startRcloneS3(dir, key, secret) {
  const port = await freePort();
  const child = spawn(
    RCLONE,
    ["serve", "s3", "--auth-key", `${key},${secret}`, "--addr", `127.0.0.1:${port}`, "--config", "/dev/null", dir],
    { detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  process.once("exit", () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  });
  const url = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`rclone serve s3 failed:\n${log}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await r.text();
      return true; // any answer (an unsigned request is refused) says it listens
    } catch {
      return false;
    }
  }, "rclone serve s3");
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      process.kill(-child.pid, "SIGTERM");
    });
  return { url, stop, log: () => log };
}

// Runs the reference rclone with the config file `confFile` in UTC, without blocking (the
// Worker's log must drain while rclone talks to it): its status, stdout and stderr. With
// `ok` (the default) a failure throws with what rclone said.
export async function runRclone(confFile, args, { ok = true } = {}) {
  const child = spawn(RCLONE, ["--config", confFile, ...args], { env: { ...process.env, TZ: "UTC" } });
  const out = [];
  const err = [];
  child.stdout.on("data", (d) => out.push(d));
  child.stderr.on("data", (d) => err.push(d));
  const status = await new Promise((resolve) => child.on("close", resolve));
  const r = { status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
  if (ok && r.status !== 0) throw new Error(`rclone ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r;
}

// Runs the reference rclone with `config` (the text of an rclone.conf) in UTC; its stdout.
export function rclone(config, args, input) {
  const dir = tempDir("mkfifo-rclone-");
  const file = path.join(dir, "rclone.conf");
  fs.writeFileSync(file, config);
  try {
    return execFileSync(RCLONE, ["--config", file, ...args], {
      env: { ...process.env, TZ: "UTC" },
      input,
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["pipe", "pipe", "pipe"],
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
