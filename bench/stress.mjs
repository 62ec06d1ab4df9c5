// Load, faults and bad input, measured from outside as a client would see them.
//
//   node bench/stress.mjs [--short] [--only SUBSTRING] [--no-load] [--no-checks] [--bodies N]
//   (after scripts/build.sh)
//
// Load: each scenario runs for a set time (5 s; --short 1 s) at 1, 8 and 64 clients on a
// keep-alive agent, against the Worker in `wrangler dev` and against the floor, an empty
// JavaScript Durable Object that echoes (bench/floor/, its own `wrangler dev` in the same
// run): Requests/s, latency percentiles, statuses and errors, and the ratio to the floor.
// Then the checks of tests/stress/checks.mjs, long: 10,000 random bodies of 0 to 10 MiB
// answered and delivered (--short: 300 up to 1 MiB), bad input, a slow client, fuzzed
// envelopes, destinations down and hanging, an object's panic and wrangler dev killed in
// the middle of deliveries.
import http from "node:http";
import path from "node:path";
import WebSocket from "ws";
import { ROOT, TOKEN, putFifo, signIn, startServer, startWorker } from "../tests/worker/harness.mjs";
import {
  KiB,
  MiB,
  badInput,
  destinationFaults,
  integrityAnswered,
  integrityDelivered,
  killDuringDelivery,
  malformedEnvelopes,
  panicDuringDelivery,
  request,
  reservedWords,
  slowClient,
} from "../tests/stress/checks.mjs";

const args = process.argv.slice(2);
const SHORT = args.includes("--short");
const ONLY = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
const CHECKS = !args.includes("--no-checks");
const LOAD = !args.includes("--no-load");
const BODIES = args.includes("--bodies") ? Number(args[args.indexOf("--bodies") + 1]) : SHORT ? 300 : 10_000;
const SECONDS = SHORT ? 1 : 5;
const CLIENTS = [1, 8, 64];

function jsonBody(bytes) {
  const items = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const item = { id: i, name: `item-${i}`, tags: ["a", "b", String(i % 7)], price: (i * 1.25) % 100 };
    items.push(item);
    n += JSON.stringify(item).length + 1;
  }
  return Buffer.from(JSON.stringify({ movie: { id: 42, title: "The Hitchhiker" }, items }));
}
function htmlBody(bytes) {
  const parts = ["<!doctype html><html><head><title>Stress page</title></head><body>"];
  for (let i = 0, n = 0; n < bytes; i++) {
    const p = `<div class="row" id="r${i}"><span class="name">Item ${i}</span><a href="/item/${i}">more</a></div>\n`;
    parts.push(p);
    n += p.length;
  }
  parts.push('<div class="price"><span>42.00</span></div></body></html>');
  return Buffer.from(parts.join(""));
}

// A message of `bytes` of text with an attachment of `attached` random bytes (base64).
function mailWithAttachment(bytes, attached) {
  const text = "Some words of a message, line after line.\r\n".repeat(Math.ceil(bytes / 43)).slice(0, bytes);
  const data = Buffer.alloc(attached, 0).map((_, i) => (i * 2654435761) >>> 24).toString("base64").replace(/.{76}/g, "$&\r\n");
  return Buffer.from(
    [
      "From: Ada <ada@example.com>",
      "To: load-mail@mkfifo.localhost",
      "Subject: a report",
      "Message-ID: <load-1@example.com>",
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="b1"',
      "",
      "--b1",
      "Content-Type: text/plain; charset=utf-8",
      "",
      text,
      "--b1",
      'Content-Type: application/octet-stream; name="report.bin"',
      'Content-Disposition: attachment; filename="report.bin"',
      "Content-Transfer-Encoding: base64",
      "",
      data,
      "--b1--",
      "",
    ].join("\r\n"),
  );
}

// Editors of a FIFO, open on its live log: each logged Request goes to all of them.
async function openEditors(base, name, cookie, count) {
  const url = `${base.replace(/^http/, "ws")}/_/api/fifos/${name}/live`;
  const sockets = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(url, { headers: { Cookie: cookie, Origin: base } });
        ws.received = 0;
        ws.on("message", () => ws.received++);
        ws.once("open", () => {
          ws.send(JSON.stringify({ type: "hello" }));
          resolve(ws);
        });
        ws.once("error", reject);
      }),
    ),
  );
  return sockets;
}

// A scenario: the FIFOs it needs (`setup(base, worker)`), then one Request per call of
// `req(client, i)`: { method, path, headers, body, want } (`want`: the expected status);
// `teardown()` after its figures.
function scenarios(dest) {
  const json = jsonBody(256 * KiB);
  const html = htmlBody(256 * KiB);
  const mail = mailWithAttachment(4 * KiB, 64 * KiB);
  let session = null;
  const signedIn = async (worker) => (session ||= (await signIn(worker, "load@example.com")).cookie);
  const owned = async (worker, name, envelope) => {
    const cookie = await signedIn(worker);
    const r = await fetch(`${worker.base}/_/api/fifos/${name}`, { method: "PUT", headers: { Cookie: cookie, Origin: worker.base }, body: envelope });
    if (r.status !== 201) throw new Error(`PUT ${name} as its owner: ${r.status} ${await r.text()}`);
    return cookie;
  };
  let editors = [];
  const envelope = "To: -\n\ntr a-z A-Z\n";
  return [
    { name: "a static file (robots.txt)", req: () => ({ path: "/robots.txt", want: 200 }) },
    { name: "the home page", req: () => ({ path: "/", want: 200 }) },
    {
      name: "an echo FIFO (empty script, To: -)",
      setup: (base) => putFifo(base, "load-echo", "To: -\n"),
      req: () => ({ method: "POST", path: "/load-echo/", body: "hello, world\n", want: 200 }),
    },
    {
      name: "To: - with a 3-line script",
      setup: (base) => putFifo(base, "load-answer", "To: -\n\nread -r line\nprintf '%s\\n' \"$line\" | tr a-z A-Z\necho done\n"),
      req: () => ({ method: "POST", path: "/load-answer/", body: "hello, world\n", want: 200 }),
    },
    {
      name: "256 KiB JSON body, 3 selectors",
      setup: (base) =>
        putFifo(base, "load-json", "To: -\n$t = .movie.title\n$a = .items[0].name\n$b = .items[100].price\n\nprintf '%s %s %s\\n' \"$t\" \"$a\" \"$b\"\n"),
      req: () => ({ method: "POST", path: "/load-json/", headers: { "Content-Type": "application/json" }, body: json, want: 200 }),
    },
    {
      name: "256 KiB HTML body, 1 CSS selector",
      setup: (base) => putFifo(base, "load-html", "To: -\n$price = div.price span\n\nprintf '%s\\n' \"$price\"\n"),
      req: () => ({ method: "POST", path: "/load-html/", headers: { "Content-Type": "text/html" }, body: html, want: 200 }),
    },
    {
      name: "a save (PUT of an envelope, one FIFO per client)",
      req: (c, i) => ({
        method: "PUT",
        path: `/_/api/fifos/save-${c}`,
        floorPath: `/save-${c}/`,
        headers: { Authorization: `Bearer ${TOKEN}` },
        body: `${envelope}# ${i}\n`,
        accept: [200, 201],
      }),
    },
    {
      name: "Requests spread over 100 FIFOs",
      setup: async (base) => {
        for (let f = 0; f < 100; f++) await putFifo(base, `spread-${f}`, "To: -\n");
      },
      req: (c, i) => ({ method: "POST", path: `/spread-${(c * 7 + i) % 100}/`, body: "hello\n", want: 200 }),
    },
    {
      name: "the editor page of a FIFO, signed in",
      setup: async (base, worker) => {
        session = await owned(worker, "load-editor", "To: -\n\ncat\n");
      },
      req: () => ({ path: "/_/edit/load-editor", floorPath: "/edit/", headers: { Cookie: session }, want: 200 }),
    },
    {
      name: "an echo FIFO with 10 editors open on its live log",
      setup: async (base, worker) => {
        const cookie = await owned(worker, "load-watched", "To: -\n");
        editors = await openEditors(base, "load-watched", cookie, 10);
      },
      req: () => ({ method: "POST", path: "/load-watched/", body: "hello, world\n", want: 200 }),
      teardown: () => {
        const received = editors.reduce((n, ws) => n + ws.received, 0);
        for (const ws of editors) ws.close();
        return `the editors got ${received} messages`;
      },
    },
    {
      name: `an email of ${Math.round(mail.length / KiB)} KiB with an attachment (To: -, wc -c)`,
      setup: (base) => putFifo(base, "load-mail", "To: -\n\nwc -c\n"),
      req: () => ({
        method: "POST",
        path: "/_/test/mail?from=ada@example.com&to=load-mail@mkfifo.localhost",
        floorPath: "/load-mail/",
        body: mail,
        want: 200,
      }),
    },
    {
      name: "an async Request to a local destination (202, then delivered)",
      setup: (base) => putFifo(base, "load-async", `To: ${dest.url}/in\n`),
      req: () => ({ method: "POST", path: "/load-async/", body: "deliver me\n", want: 202 }),
      async: true,
    },
  ];
}

function pct(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// `clients` clients, each sending the scenario's Requests one after another for `seconds`.
async function load(base, scenario, clients, seconds, floor) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const times = [];
  const statuses = {};
  const errors = {};
  let done = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; Date.now() < end; i++) {
        const r = scenario.req(c, i);
        const p = floor ? r.floorPath || r.path.replace(/^\/$/, "/home") : r.path;
        const t = process.hrtime.bigint();
        try {
          const answer = await request(agent, base + p, { method: r.method || "GET", headers: r.headers, body: r.body, timeoutMs: 30_000 });
          times.push(Number(process.hrtime.bigint() - t) / 1e6);
          statuses[answer.status] = (statuses[answer.status] || 0) + 1;
          const ok = floor ? answer.status === 200 : (r.accept || [r.want]).includes(answer.status);
          if (!ok) errors[`${answer.status} ${answer.body.toString().slice(0, 80).trim()}`] = (errors[`${answer.status} ${answer.body.toString().slice(0, 80).trim()}`] || 0) + 1;
          done++;
        } catch (err) {
          errors[err.message] = (errors[err.message] || 0) + 1;
        }
      }
    }),
  );
  agent.destroy();
  times.sort((a, b) => a - b);
  return {
    rps: done / seconds,
    p50: pct(times, 50),
    p90: pct(times, 90),
    p99: pct(times, 99),
    max: times.at(-1),
    statuses,
    errors,
    accepted: statuses[202] || 0,
  };
}

const ms = (x) => (Number.isFinite(x) ? x.toFixed(1) : "-");
const table = (rows) => rows.map((r) => `| ${r.join(" | ")} |`).join("\n");

async function runLoad(rows) {
  let delivered = 0;
  const dest = await startServer((req, res) => {
    delivered++;
    res.writeHead(200);
    res.end("ok");
  });
  dest.requests.push = () => 0;
  const worker = await startWorker({ vars: { MKFIFO_STEPS: "100000000" } });
  const floor = await startWorker({ config: path.join(ROOT, "bench/floor/wrangler.toml") });
  try {
    for (const s of scenarios(dest)) {
      if (ONLY && !s.name.includes(ONLY)) continue;
      if (s.setup) await s.setup(worker.base, worker);
      // A warm-up second each, so that no figure counts the start of an object (the
      // floor's 100 objects of the spread scenario among them).
      let accepted = (await load(worker.base, s, 8, 1, false)).accepted;
      await load(floor.base, s, 8, 1, true);
      for (const clients of CLIENTS) {
        const m = await load(worker.base, s, clients, SECONDS, false);
        let deliveredNote = "";
        if (s.async) {
          // Every Request accepted so far (the warm-up's too) delivered before the floor runs.
          accepted += m.accepted;
          const deadline = Date.now() + 120_000;
          while (delivered < accepted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
          deliveredNote = `; delivered: ${delivered} of ${accepted} accepted so far`;
        }
        const f = await load(floor.base, s, clients, SECONDS, true);
        const errs = Object.entries(m.errors).map(([k, v]) => `${v}x ${k}`).join("; ");
        const fErrs = Object.entries(f.errors).map(([k, v]) => `${v}x ${k}`).join("; ");
        const statuses = Object.entries(m.statuses).map(([k, v]) => `${k}: ${v}`).join(", ");
        const row = [s.name, clients, m.rps.toFixed(0), ms(m.p50), ms(m.p90), ms(m.p99), ms(m.max), f.rps.toFixed(0), ms(f.p50), ms(f.p99), `${(m.rps / f.rps).toFixed(2)}x`, `${statuses}${deliveredNote}${errs ? `; errors: ${errs}` : ""}${fErrs ? `; floor errors: ${fErrs}` : ""}`];
        rows.push(row);
        console.log(table([row]));
      }
      if (s.teardown) console.log(`${s.name}: ${s.teardown()}`);
    }
  } finally {
    await worker.stop();
    await floor.stop();
    await dest.close();
  }
}

async function runChecks() {
  const out = [];
  const show = (what, result) => {
    const { failures, ...figures } = result;
    // Failures by kind (their numbers taken out), then the first 30 as they are.
    const kinds = {};
    for (const f of failures) {
      const kind = f.replace(/\b[0-9a-f-]{36}\b|\d+/g, "N");
      kinds[kind] = (kinds[kind] || 0) + 1;
    }
    const byKind = Object.entries(kinds).map(([k, n]) => `${n}x ${k}`).join("\n  ");
    const line = `${what}: ${JSON.stringify(figures)}; ${failures.length ? `${failures.length} FAILURES:\n  ${byKind}\n first:\n  ${failures.slice(0, 30).join("\n  ")}` : "no failures"}`;
    console.log(line);
    out.push(line);
  };
  const max = SHORT ? MiB : 10 * MiB;
  let worker = await startWorker({ vars: { MKFIFO_STEPS: "1000000000", MKFIFO_SEND_TIMEOUT: "2", MKFIFO_RETRY_SCHEDULE: "1" } });
  try {
    show(`${BODIES} random bodies (0 B to ${max / MiB} MiB, log-uniform) from 64 clients, To: - sha256sum`,
      await integrityAnswered(worker.base, { count: BODIES, max, clients: 64 }));
    show(`the same as async Requests to a local destination`,
      await integrityDelivered(worker.base, { count: BODIES, max, clients: 64, waitMs: 1_800_000 }));
    show("bad input", await badInput(worker.base, { reserved: await reservedWords(ROOT) }));
    show("a slow client, a byte every 100 ms", await slowClient(worker.base, { bytes: 50, everyMs: 100, fast: 50, withinMs: 2000 }));
    show(`${SHORT ? 300 : 3000} envelopes of seeded fragments, saved`, await malformedEnvelopes(worker.base, { count: SHORT ? 300 : 3000 }));
    show("destinations down for 5 s, hanging for 7 s, and healthy (send time-out 2 s, retries every second)",
      await destinationFaults(worker.base, { count: SHORT ? 20 : 100, downMs: 5000, timeoutMs: 2000 }));
    show(`an object's panic in the middle of ${SHORT ? 60 : 300} deliveries`,
      await panicDuringDelivery(worker.base, { count: SHORT ? 60 : 300, delayMs: 50 }));
  } finally {
    await worker.stop();
  }
  show(`wrangler dev killed (SIGKILL) in the middle of ${SHORT ? 200 : 1000} deliveries`,
    await killDuringDelivery({ count: SHORT ? 200 : 1000, clients: 16, delayMs: 20 }));
  return out;
}

const started = Date.now();
const rows = [];
console.log(`node bench/stress.mjs ${args.join(" ")}; ${SECONDS} s per figure; Node ${process.version}`);
if (LOAD) console.log(table([
  ["scenario", "clients", "Requests/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "floor Requests/s", "floor p50", "floor p99", "ratio", "statuses, errors"],
  Array(12).fill("---"),
]));
if (LOAD) await runLoad(rows);
if (CHECKS) await runChecks();
console.log(`whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exit(0);
