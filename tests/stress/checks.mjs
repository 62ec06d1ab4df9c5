// The stress checks of the Worker, measured from outside: random bodies checked by their
// SHA-256 (answered and delivered), bad input, and wrangler dev killed in the middle of
// deliveries. Each check takes its sizes as arguments: tests/stress/stress.test.mjs runs
// them short, bench/stress.mjs long. Each returns what it saw; `failures` lists every
// way it went wrong (an empty list is a pass).
import crypto from "node:crypto";
import http from "node:http";
import net from "node:net";
import { getLog, putFifo, startServer, startWorker, TOKEN } from "../worker/harness.mjs";

export const KiB = 1024;
export const MiB = 1024 * KiB;

const sha256 = (bytes) => crypto.createHash("sha256").update(bytes).digest("hex");

// A size from 0 to `max` bytes, uniform in its logarithm (as many bodies between 1 and
// 2 KiB as between 1 and 2 MiB), from the generator `rnd`.
export function logUniform(rnd, max) {
  return Math.min(max, Math.floor(Math.exp(rnd() * Math.log(max + 1))) - 1);
}

export function seeded(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

// One HTTP request on a keep-alive agent; the status, headers and whole body.
export function request(agent, url, { method = "GET", headers = {}, body = null, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      { agent, host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

// `jobs` run by `clients` at once, each taking the next index until none is left.
async function pool(clients, jobs, job) {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < jobs) await job(next++);
    }),
  );
}

function bodies(count, max, seed) {
  const rnd = seeded(seed);
  const sizes = Array.from({ length: count }, () => logUniform(rnd, max));
  return { sizes, total: sizes.reduce((a, b) => a + b, 0) };
}

// `count` random bodies (0 to `max` bytes) from `clients` clients to a `To: -` FIFO whose
// script is `sha256sum`; each answer must be the body's hash.
export async function integrityAnswered(base, { count, max, clients = 64, seed = 1 }) {
  await putFifo(base, "hash", "To: -\n\nsha256sum\n");
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const { sizes, total } = bodies(count, max, seed);
  const failures = [];
  const started = Date.now();
  await pool(clients, count, async (i) => {
    const body = crypto.randomBytes(sizes[i]);
    try {
      const r = await request(agent, `${base}/hash/`, { method: "POST", body });
      const want = `${sha256(body)}  -\n`;
      if (r.status !== 200 || r.body.toString() !== want) {
        failures.push(`body ${i} (${sizes[i]} B): ${r.status} ${r.body.toString().slice(0, 200).trim()}`);
      }
    } catch (err) {
      failures.push(`body ${i} (${sizes[i]} B): ${err.message}`);
    }
  });
  agent.destroy();
  return { count, bytes: total, seconds: (Date.now() - started) / 1000, failures };
}

// A local destination that keeps the hash of each body by its Idempotency-Key. A key
// that comes again is a repeat (`repeats`; one with another body, `changed`). `delayMs`
// makes each answer wait.
export async function hashDestination({ delayMs = 0 } = {}) {
  const seen = new Map(); // Idempotency-Key -> sha256 of the body
  const repeats = [];
  const changed = [];
  const server = await startServer((req, res, body) => {
    const key = req.headers["idempotency-key"] || "";
    const hash = sha256(body);
    if (!seen.has(key)) seen.set(key, hash);
    else {
      repeats.push(key);
      if (seen.get(key) !== hash) changed.push(key);
    }
    setTimeout(() => {
      res.writeHead(200);
      res.end("ok");
    }, delayMs);
  });
  // Received requests are not kept: their bodies would fill the memory.
  server.requests.push = () => 0;
  return { ...server, seen, repeats, changed };
}

// Polls until `done()` or `ms` pass; whether it came true.
async function waitFor(done, ms) {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}

// What the destination received against what was accepted: every 202's id must arrive
// once under `${id}-0` with its body's hash, and nothing else may arrive.
function compareDelivered(accepted, dest, { repeatsAllowed = false } = {}) {
  const failures = [];
  for (const [id, hash] of accepted) {
    const got = dest.seen.get(`${id}-0`);
    if (got === undefined) failures.push(`Request ${id} accepted, never delivered`);
    else if (got !== hash) failures.push(`Request ${id} delivered with another body (sha256 ${got}, sent ${hash})`);
  }
  for (const key of dest.seen.keys()) {
    if (!accepted.has(key.replace(/-0$/, ""))) failures.push(`delivered, never accepted: ${key}`);
  }
  if (!repeatsAllowed) for (const key of dest.repeats) failures.push(`delivered twice: ${key}`);
  for (const key of dest.changed) failures.push(`delivered again with another body: ${key}`);
  return failures;
}

// The same bodies as async Requests (202) to FIFOs `To:` a local destination that checks
// each hash and Idempotency-Key; every accepted one must be delivered, once.
export async function integrityDelivered(base, { count, max, clients = 64, fifos = 1, seed = 2, waitMs = 300_000 }) {
  const dest = await hashDestination();
  for (let f = 0; f < fifos; f++) await putFifo(base, `sink-${f}`, `To: ${dest.url}/in\n`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const { sizes, total } = bodies(count, max, seed);
  const accepted = new Map(); // Request id -> sha256 of its body
  const failures = [];
  const started = Date.now();
  await pool(clients, count, async (i) => {
    const body = crypto.randomBytes(sizes[i]);
    try {
      const r = await request(agent, `${base}/sink-${i % fifos}/`, { method: "POST", body });
      if (r.status === 202) accepted.set(JSON.parse(r.body).id, sha256(body));
      else failures.push(`body ${i} (${sizes[i]} B): ${r.status} ${r.body.toString().slice(0, 200).trim()}`);
    } catch (err) {
      failures.push(`body ${i} (${sizes[i]} B): ${err.message}`);
    }
  });
  const acceptedSeconds = (Date.now() - started) / 1000;
  agent.destroy();
  await waitFor(() => dest.seen.size >= accepted.size, waitMs);
  const deliveredSeconds = (Date.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 1000)); // a late repeat would show now
  failures.push(...compareDelivered(accepted, dest));
  await dest.close();
  return { count, bytes: total, accepted: accepted.size, delivered: dest.seen.size, acceptedSeconds, deliveredSeconds, failures };
}

// wrangler dev killed (SIGKILL) while `count` async Requests are being delivered, then
// started again on the same state: each accepted Request is delivered (a repeat under
// the same Idempotency-Key is allowed: the kill may come between the destination's answer
// and its record), and the log of each says delivered.
export async function killDuringDelivery({ count = 200, clients = 16, delayMs = 20 }) {
  const dest = await hashDestination({ delayMs });
  const options = { vars: { MKFIFO_RETRY_SCHEDULE: "1", MKFIFO_RETRY_FOR: "600" } };
  let worker = await startWorker(options);
  const failures = [];
  const accepted = new Map(); // Request id -> sha256 of its body
  let deliveredAtKill = 0;
  const started = Date.now();
  try {
    await putFifo(worker.base, "queue", `To: ${dest.url}/in\n`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
    const rnd = seeded(3);
    await pool(clients, count, async (i) => {
      const body = crypto.randomBytes(logUniform(rnd, 64 * KiB));
      try {
        const r = await request(agent, `${worker.base}/queue/`, { method: "POST", body });
        if (r.status === 202) accepted.set(JSON.parse(r.body).id, sha256(body));
        else failures.push(`Request ${i}: ${r.status} ${r.body.toString().trim()}`);
      } catch (err) {
        failures.push(`Request ${i}: ${err.message}`);
      }
    });
    agent.destroy();
    // Kill while some, not all, are delivered.
    await waitFor(() => dest.seen.size >= Math.min(10, count / 10), 60_000);
    deliveredAtKill = dest.seen.size;
    if (deliveredAtKill >= accepted.size) failures.push("all were delivered before the kill: nothing was tested");
    await worker.kill();
    worker = await startWorker({ ...options, persist: worker.persist });
    await waitFor(() => dest.seen.size >= accepted.size, 180_000);
    await new Promise((r) => setTimeout(r, 2000));
    failures.push(...compareDelivered(accepted, dest, { repeatsAllowed: true }));
    // The log holds the newest 1,000 entries: each accepted Request among them must say
    // what happened to it.
    const log = await getLog(worker.base, "queue", "?limit=1000");
    const byId = new Map(log.map((e) => [e.request_id, e]));
    for (const id of accepted.keys()) {
      const entry = byId.get(id);
      if (!entry) failures.push(`Request ${id} missing from the log`);
      else if (entry.delivery !== "delivered") {
        failures.push(`Request ${id}: its log says ${entry.delivery} ${entry.error}`);
      }
    }
  } finally {
    await worker.stop();
    await dest.close();
  }
  return {
    count,
    accepted: accepted.size,
    deliveredAtKill,
    delivered: dest.seen.size,
    repeats: dest.repeats.length,
    seconds: (Date.now() - started) / 1000,
    failures,
  };
}

// Raw bytes to the Worker on a socket of its own; the status line's code (null when the
// connection closed without an answer) and the whole answer as text.
export function raw(base, bytes, { timeoutMs = 30_000 } = {}) {
  const u = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(u.port), u.hostname);
    const chunks = [];
    const finish = () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const m = text.match(/^HTTP\/1\.[01] (\d{3})/);
      resolve({ status: m ? Number(m[1]) : null, text });
    };
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.on("data", (c) => {
      chunks.push(c);
      // One answer is enough: close once its body (by Content-Length) is in.
      const text = Buffer.concat(chunks).toString("latin1");
      const head = text.indexOf("\r\n\r\n");
      const len = text.match(/\r\ncontent-length: *(\d+)/i);
      if (head >= 0 && len && Buffer.concat(chunks).length >= head + 4 + Number(len[1])) socket.destroy();
    });
    socket.on("close", finish);
    socket.on("error", () => {});
    socket.write(bytes);
  });
}

const api = (base, method, path, body) =>
  fetch(`${base}/_/api/${path}`, { method, headers: { Authorization: `Bearer ${TOKEN}` }, body });

// Bad input: each case must get a clear status (a 4xx, the client's fault; never a 5xx,
// a hang or a closed connection), and nothing of it may be stored.
export async function badInput(base, { reserved }) {
  const failures = [];
  const results = [];
  const host = new URL(base).host;
  const sink = await hashDestination();
  await putFifo(base, "store", `To: ${sink.url}/in\n`);
  await putFifo(base, "env", "To: -\n\nset\n");
  const storedBefore = (await getLog(base, "store", "?limit=1000")).length;
  const expectClient = (what, status, text = "") => {
    results.push({ what, status });
    if (status === null || status < 400 || status >= 500) {
      failures.push(`${what}: ${status ?? "connection closed without an answer"} ${text.slice(0, 300)}`);
    }
  };

  // Headers of 64 KiB, one and many. (Locally more than about 1,000 headers do not reach
  // the Worker: wrangler dev's own layer answers 500, "header count exceeds maximum".)
  const big = "a".repeat(64 * KiB);
  let r = await raw(base, `POST /store/ HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${big}\r\nContent-Length: 2\r\n\r\nhi`);
  expectClient("a header of 64 KiB", r.status, r.text);
  const many = Array.from({ length: 1_000 }, (_, i) => `X-Header-${i}: ${"v".repeat(50)}\r\n`).join("");
  r = await raw(base, `POST /store/ HTTP/1.1\r\nHost: ${host}\r\n${many}Content-Length: 2\r\n\r\nhi`);
  expectClient("1,000 headers (64 KiB)", r.status, r.text);

  // Invalid UTF-8: in the FIFO's name, in a sub-path, in a header value.
  const bad = Buffer.from([0xff, 0xfe, 0xc3, 0x28]);
  const line = (path, extra = Buffer.alloc(0)) =>
    Buffer.concat([Buffer.from(`POST `), path, Buffer.from(` HTTP/1.1\r\nHost: ${host}\r\n`), extra, Buffer.from("Content-Length: 2\r\n\r\nhi")]);
  r = await raw(base, line(Buffer.concat([Buffer.from("/"), bad, Buffer.from("/")])));
  expectClient("invalid UTF-8 bytes in a FIFO name", r.status, r.text);
  r = await raw(base, line(Buffer.from("/%FF%FE%C3%28/")));
  expectClient("invalid UTF-8 percent-encoded in a FIFO name", r.status, r.text);
  // The same in a sub-path or a header is the script's data, not an error: it is accepted
  // (202) and stored; the case checks that the Worker answers at all.
  r = await raw(base, line(Buffer.from("/env/%FF%FE%C3%28")));
  results.push({ what: "invalid UTF-8 percent-encoded in a sub-path", status: r.status });
  if (r.status !== 200) failures.push(`invalid UTF-8 in a sub-path: ${r.status} ${r.text.slice(0, 300)}`);
  r = await raw(base, line(Buffer.from("/env/"), Buffer.concat([Buffer.from("X-Bad: "), bad, Buffer.from("\r\n")])));
  results.push({ what: "invalid UTF-8 in a header value", status: r.status });
  if (r.status !== 200) failures.push(`invalid UTF-8 in a header value: ${r.status} ${r.text.slice(0, 300)}`);

  // Every reserved word as a FIFO name: refused by the API, and as a Request path.
  for (const word of reserved) {
    const put = await api(base, "PUT", `fifos/${word}`, "To: -\n\ncat\n");
    const text = await put.text();
    if (put.status !== 400) failures.push(`PUT of reserved name ${word}: ${put.status} ${text.trim()}`);
    const get = await fetch(`${base}/${word}/`, { method: "POST", body: "x" });
    await get.text();
    if (get.status < 400 || get.status >= 500) failures.push(`POST /${word}/: ${get.status}`);
  }
  results.push({ what: `${reserved.length} reserved words as FIFO names (PUT, POST)`, status: 400 });
  for (const word of reserved) {
    const got = await api(base, "GET", `fifos/${word}`);
    await got.text();
    if (got.status === 200) failures.push(`reserved name ${word} was stored`);
  }

  // x-mkfifo-* headers from outside are dropped: the script does not see them, nor may
  // they change its Request id, remote address or hop count.
  const spoof = await fetch(`${base}/env/`, {
    method: "POST",
    body: "x",
    headers: {
      "X-Mkfifo-Evil": "1",
      "X-Mkfifo-Request-Id": "spoofed-id",
      "X-Mkfifo-Remote-Addr": "6.6.6.6",
      "X-Mkfifo-Hops": "16",
      "X-Mkfifo-Fifo": "other",
      "X-Mkfifo-Op": '{"op":"fault"}',
    },
  });
  const seen = await spoof.text();
  results.push({ what: "x-mkfifo-* headers from outside", status: spoof.status });
  if (spoof.status !== 200) failures.push(`x-mkfifo-* headers: ${spoof.status} ${seen}`);
  if (!/REQUEST_METHOD='?POST/.test(seen)) failures.push(`\`set\` did not show the script's variables:\n${seen}`);
  for (const leak of ["EVIL", "spoofed-id", "6.6.6.6", "HTTP_X_MKFIFO"]) {
    if (seen.includes(leak)) failures.push(`x-mkfifo-* header reached the script: ${leak} in\n${seen}`);
  }

  // A client that goes away halfway through its body: nothing stored, the Worker answers on.
  await new Promise((resolve) => {
    const u = new URL(base);
    const socket = net.connect(Number(u.port), u.hostname, () => {
      socket.write(`POST /store/ HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${MiB}\r\n\r\n`);
      socket.write(Buffer.alloc(MiB / 2, 1), () => setTimeout(() => socket.destroy(), 200));
    });
    socket.on("close", resolve);
    socket.on("error", () => {});
  });
  const after = await fetch(`${base}/env/`, { method: "POST", body: "x" });
  await after.text();
  results.push({ what: "a client gone halfway through a body, then another Request", status: after.status });
  if (after.status !== 200) failures.push(`after a client left halfway: ${after.status}`);

  // Nothing of the bad input was stored or delivered.
  await new Promise((r) => setTimeout(r, 2000));
  const stored = await getLog(base, "store", "?limit=1000");
  if (stored.length !== storedBefore) {
    failures.push(`bad input was stored: ${stored.map((e) => `${e.method} ${e.path} ${e.status} ${e.delivery}`).join("; ")}`);
  }
  if (sink.seen.size) failures.push(`bad input was delivered: ${sink.seen.size} Requests`);
  await sink.close();
  return { results, failures };
}

// A slow client (a byte every `everyMs`) must not hold up the others: `fast` Requests
// to the same FIFO while it sends, each answered within `withinMs`.
export async function slowClient(base, { bytes = 30, everyMs = 100, fast = 20, withinMs = 2000 }) {
  await putFifo(base, "slow", "To: -\n\nwc -c\n");
  const failures = [];
  const u = new URL(base);
  const slow = new Promise((resolve) => {
    const socket = net.connect(Number(u.port), u.hostname);
    let answer = "";
    socket.on("data", (d) => (answer += d));
    socket.on("close", () => resolve(answer));
    socket.on("error", () => {});
    socket.write(`POST /slow/ HTTP/1.1\r\nHost: ${u.host}\r\nContent-Length: ${bytes}\r\nConnection: close\r\n\r\n`);
    let sent = 0;
    const timer = setInterval(() => {
      socket.write("x");
      if (++sent === bytes) clearInterval(timer);
    }, everyMs);
  });
  await new Promise((r) => setTimeout(r, everyMs * 3));
  const times = [];
  for (let i = 0; i < fast; i++) {
    const t = Date.now();
    const r = await fetch(`${base}/slow/`, { method: "POST", body: "abc" });
    const text = await r.text();
    times.push(Date.now() - t);
    if (r.status !== 200 || text.trim() !== "3") failures.push(`fast Request ${i}: ${r.status} ${text.trim()}`);
  }
  const answer = await slow;
  if (!/^HTTP\/1\.1 200/.test(answer) || !answer.trimEnd().endsWith(String(bytes))) {
    failures.push(`the slow client's answer: ${answer.slice(0, 300)}`);
  }
  const slowest = Math.max(...times);
  if (slowest > withinMs) failures.push(`a fast Request waited ${slowest} ms behind the slow client`);
  return { fast, slowestMs: slowest, slowSeconds: (bytes * everyMs) / 1000, failures };
}

// The reserved words of src/names.rs, read from the source (one list, its own).
export async function reservedWords(root) {
  const fs = await import("node:fs");
  const text = fs.readFileSync(`${root}/src/names.rs`, "utf8");
  const block = text.slice(text.indexOf("const RESERVED"), text.indexOf("];", text.indexOf("const RESERVED")));
  return [...block.matchAll(/"([a-z0-9-]+)"/g)].map((m) => m[1]);
}
