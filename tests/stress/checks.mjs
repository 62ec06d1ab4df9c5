// The stress checks of the Worker, measured from outside: random bodies checked by their
// SHA-256 (answered and delivered), bad input, and wrangler dev killed in the middle of
// deliveries. Each check takes its sizes as arguments: tests/stress/stress.test.mjs runs
// them short, bench/stress.mjs long. Each returns what it saw; `failures` lists every
// way it went wrong (an empty list is a pass).
import crypto from "node:crypto";
import http from "node:http";
import net from "node:net";
import { freePort, getLog, putFifo, startServer, startWorker, TOKEN } from "../worker/harness.mjs";

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
// `hangUntil` (a time in ms): requests that come before it get no answer at all, and are
// not counted as received.
export async function hashDestination({ delayMs = 0, port = 0, hangUntil = 0, holdAfter = Infinity } = {}) {
  const seen = new Map(); // Idempotency-Key -> sha256 of the body
  const repeats = [];
  const changed = [];
  const held = []; // requests past the first `holdAfter`, unanswered until release()
  let hung = 0;
  const record = (req, res, body) => {
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
  };
  const server = await startServer((req, res, body) => {
    if (Date.now() < hangUntil) {
      hung++;
      return;
    }
    if (seen.size >= holdAfter) held.push([req, res, body]);
    else record(req, res, body);
  }, port);
  // Received requests are not kept: their bodies would fill the memory.
  server.requests.push = () => 0;
  // Answers the held requests whose sender still waits; a dropped one was not delivered.
  const release = () => {
    holdAfter = Infinity;
    for (const [req, res, body] of held.splice(0)) if (!req.socket.destroyed) record(req, res, body);
  };
  return { ...server, seen, repeats, changed, hung: () => hung, release };
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

// Sends `count` async Requests with random bodies (up to 16 KiB) to FIFO `name`; the ids of
// those accepted, with the hash of each body, and the failures.
async function sendAsync(base, name, count, seed) {
  const accepted = new Map();
  const failures = [];
  const rnd = seeded(seed);
  for (let i = 0; i < count; i++) {
    const body = crypto.randomBytes(logUniform(rnd, 16 * KiB));
    const r = await fetch(`${base}/${name}/`, { method: "POST", body });
    const text = await r.text();
    if (r.status === 202) accepted.set(JSON.parse(text).id, sha256(body));
    else failures.push(`${name} Request ${i}: ${r.status} ${text.trim()}`);
  }
  return { accepted, failures };
}

// Every accepted Request's log entry must say delivered; the attempts of those that are
// not, as failures.
async function allLoggedDelivered(base, name, accepted) {
  const log = await getLog(base, name, "?limit=1000");
  const byId = new Map(log.map((e) => [e.request_id, e]));
  const failures = [];
  for (const id of accepted.keys()) {
    const entry = byId.get(id);
    if (!entry) failures.push(`${name}: Request ${id} missing from the log`);
    else if (entry.delivery !== "delivered") failures.push(`${name}: Request ${id}: its log says ${entry.delivery} ${entry.error}`);
  }
  return failures;
}

// Destinations that fail in the ways networks do, for a worker started with a short send
// time-out and retry schedule (`MKFIFO_SEND_TIMEOUT`, `MKFIFO_RETRY_SCHEDULE`):
// - one that is down (nothing listens on its port) for `downMs`, then up;
// - one that takes every request and answers none for `downMs`, then answers;
// - and, meanwhile, a healthy one, whose FIFO's deliveries must not wait for the others.
// Every accepted Request must arrive once, with its body, and its log say delivered; the
// logs of the faulty ones must show the failed attempts.
export async function destinationFaults(base, { count = 20, downMs = 5000, timeoutMs = 2000 } = {}) {
  const failures = [];
  const downPort = await freePort();
  const hang = await hashDestination({ hangUntil: Date.now() + downMs + 2000 });
  const healthy = await hashDestination();
  await putFifo(base, "gone", `To: http://127.0.0.1:${downPort}/in\n`);
  await putFifo(base, "hangs", `To: ${hang.url}/in\n`);
  await putFifo(base, "healthy", `To: ${healthy.url}/in\n`);
  const started = Date.now();
  const sent = {};
  for (const [name, seed] of [["gone", 11], ["hangs", 12], ["healthy", 13]]) {
    sent[name] = await sendAsync(base, name, count, seed);
    failures.push(...sent[name].failures);
  }
  const healthyDone = await waitFor(() => healthy.seen.size >= sent.healthy.accepted.size, 30_000);
  const healthySeconds = (Date.now() - started) / 1000;
  const hungMeanwhile = hang.hung();
  if (!healthyDone || hang.seen.size > 0) {
    failures.push(`the healthy FIFO's deliveries took ${healthySeconds} s: they waited for the hanging destination`);
  }
  // The down destination comes up where it was expected.
  await new Promise((r) => setTimeout(r, Math.max(0, started + downMs - Date.now())));
  const back = await hashDestination({ port: downPort });
  const allIn = () => back.seen.size >= sent.gone.accepted.size && hang.seen.size >= sent.hangs.accepted.size;
  await waitFor(allIn, 60_000);
  const seconds = (Date.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 1000)); // a late repeat would show now
  failures.push(...compareDelivered(sent.gone.accepted, back).map((f) => `down, then up: ${f}`));
  failures.push(...compareDelivered(sent.hangs.accepted, hang).map((f) => `hanging: ${f}`));
  failures.push(...compareDelivered(sent.healthy.accepted, healthy).map((f) => `healthy: ${f}`));
  for (const name of ["gone", "hangs", "healthy"]) failures.push(...(await allLoggedDelivered(base, name, sent[name].accepted)));
  // The faulty ones' failed attempts are in their logs, with what went wrong.
  const errors = {};
  for (const name of ["gone", "hangs"]) {
    const [id] = sent[name].accepted.keys();
    const one = await (await fetch(`${base}/_/api/fifos/${name}/log/${id}`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
    const attempts = one.deliveries?.[0]?.attempts || [];
    errors[name] = attempts.filter((a) => a.error).map((a) => a.error)[0] || null;
    if (attempts.length < 2 || !errors[name]) failures.push(`${name}: no failed attempt in the log: ${JSON.stringify(attempts)}`);
  }
  if (errors.hangs && !errors.hangs.includes(`no answer within ${timeoutMs / 1000} s`)) {
    failures.push(`hanging: the attempt's error says ${errors.hangs}`);
  }
  if (hungMeanwhile === 0) failures.push("the hanging destination received nothing while it hung: nothing was tested");
  await Promise.all([hang.close(), healthy.close(), back.close()]);
  return { count, healthySeconds, hungRequests: hang.hung(), seconds, errors, failures };
}

// A FIFO's object made to panic (`/_/fault/fifo/NAME`, `MKFIFO_FAULTS=1`) while `count`
// async Requests are being delivered: every accepted one still arrives (a repeat under
// its Idempotency-Key allowed: the panic may come between an answer and its record), and
// its log says delivered.
export async function panicDuringDelivery(base, { count = 60, delayMs = 50, deliveredAtPanic = 5 } = {}) {
  // The destination holds every delivery after the first few, so the panic always comes
  // with deliveries outstanding, however fast the object sends.
  const dest = await hashDestination({ delayMs, holdAfter: deliveredAtPanic });
  await putFifo(base, "crashes", `To: ${dest.url}/in\n`);
  const { accepted, failures } = await sendAsync(base, "crashes", count, 21);
  if (!(await waitFor(() => dest.seen.size >= deliveredAtPanic, 30_000))) failures.push(`fewer than ${deliveredAtPanic} delivered in 30 s`);
  const fault = await fetch(`${base}/_/fault/fifo/crashes`);
  await fault.text();
  if (fault.status !== 503) failures.push(`the fault answered ${fault.status}, not 503`);
  dest.release();
  const started = Date.now();
  await waitFor(() => dest.seen.size >= accepted.size, 60_000);
  const seconds = (Date.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 1000));
  failures.push(...compareDelivered(accepted, dest, { repeatsAllowed: true }));
  failures.push(...(await allLoggedDelivered(base, "crashes", accepted)));
  await dest.close();
  return { count, accepted: accepted.size, deliveredAtPanic, repeats: dest.repeats.length, secondsAfterPanic: seconds, failures };
}

// Envelopes made of seeded fragments, valid and not (headers, selectors, scripts cut
// anywhere, bytes that are not UTF-8), saved over a FIFO with a known good envelope: each
// save must be taken (200) or refused with 400 and the place (line and column) of the
// problem; a refused one changes nothing, and the FIFO answers afterwards.
export async function malformedEnvelopes(base, { count = 300, seed = 31 } = {}) {
  const headers = ["To: -", "To: http://127.0.0.1:9/x", "Reply-To: -", "Errors-To: -", "To: other-fifo",
    "To:", "To: ::::", "To: -\r", "Subject: x", "X-Unknown: 1", "no colon here", " folded", "To: - , -",
    "Content-Type: text/plain", "Schedule: * * * * *", "\u00ff\u00fe: x", "To: ftp://x", ":", "To: a@b.example"];
  const selectors = ["$a = .x", "$b = div span", "$c = .[", "$ = .", "$d = p >> >", "$e = .a | .b",
    "$f = form input[name=q]", "$g = ", "$h = .x[", "$i = ?q", "$j = .\"unterminated"];
  const script = ["echo hi", "if true; then", "fi", "echo 'unterminated", "$(", "case x in", "esac",
    "printf '%s\\n' \"$a\"", "| |", ";;", "cat <<EOF", "EOF", "\u0000", "for i in 1 2; do echo $i; done",
    "{", "}", "((", "echo \"${x", "jq '.a", "sed -e 's/a/b/'", "f() {", "exit 3", "&&"];
  const rnd = seeded(seed);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const failures = [];
  const counts = { taken: 0, refused: 0 };
  const good = "To: -\n\necho good\n";
  await putFifo(base, "fuzzed", good);
  let current = good;
  for (let i = 0; i < count; i++) {
    const lines = [];
    for (let k = Math.floor(rnd() * 4); k > 0; k--) lines.push(pick(headers));
    for (let k = Math.floor(rnd() * 3); k > 0; k--) lines.push(pick(selectors));
    if (rnd() < 0.8) lines.push("");
    for (let k = Math.floor(rnd() * 5); k > 0; k--) lines.push(pick(script));
    let text = lines.join(rnd() < 0.1 ? "\r\n" : "\n");
    if (rnd() < 0.2) text = text.slice(0, Math.floor(rnd() * text.length)); // cut anywhere
    let body = Buffer.from(text, "latin1");
    if (rnd() < 0.1) body = Buffer.concat([body, crypto.randomBytes(1 + Math.floor(rnd() * 8))]);
    const r = await fetch(`${base}/_/api/fifos/fuzzed`, { method: "PUT", headers: { Authorization: `Bearer ${TOKEN}` }, body });
    const answer = await r.text();
    if (r.status === 200 || r.status === 201) {
      counts.taken++;
      current = body.toString();
    } else if (r.status === 400) {
      counts.refused++;
      let error = "";
      try {
        error = JSON.parse(answer).error;
      } catch {}
      if (!/line \d+/.test(error)) failures.push(`envelope ${i} refused without its place: ${answer.slice(0, 200)} for ${JSON.stringify(body.toString("latin1"))}`);
    } else {
      failures.push(`envelope ${i}: ${r.status} ${answer.slice(0, 200)} for ${JSON.stringify(body.toString("latin1"))}`);
    }
    if (r.status === 400 && i % 10 === 0) {
      const now = await fetch(`${base}/_/api/fifos/fuzzed`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const saved = (await now.json()).envelope;
      if (saved !== current) failures.push(`envelope ${i} was refused, yet the saved envelope changed`);
    }
  }
  // The FIFO still answers a Request through the last envelope it took (whatever that does).
  await putFifo(base, "fuzzed", good);
  const after = await fetch(`${base}/fuzzed/`, { method: "POST", body: "x" });
  const text = await after.text();
  if (after.status !== 200 || text !== "good\n") failures.push(`after the fuzzed saves: ${after.status} ${text}`);
  return { count, ...counts, failures };
}
