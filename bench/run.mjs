// Benchmarks: the same scripts natively (mkfifo-sh --batch) and in local workerd
// (/bin/sh and FIFO Requests through wrangler dev), side by side in one run.
//
//   node bench/run.mjs [--quick] [--only SUBSTRING] [--cases] [--against BINARY]
//                      [--against-worker WRANGLER_TOML]   (after
//   scripts/build.sh and cargo build --profile native --bin mkfifo-sh; bench/run.sh does
//   all of it, and builds an older revision's mkfifo-sh for --against)
//
// --cases: the first table only (the builtins and scripts), not the sections after it.
// --against BINARY: another mkfifo-sh (an older build) runs each case too, in the same
// run, interleaved with this one, and the table gains its column and the ratio: figures
// from different days on a shared machine differ by more than the changes measured.
// --against-worker WRANGLER_TOML: likewise in workerd, the older Worker (its built
// checkout's wrangler.toml) in a wrangler dev of its own, after this one.
//
// Method: the time of one operation is the difference between a script that does it N
// times and one that does it once, divided by N - 1; each script runs K times and the
// median counts. This cancels the fixed costs (a process start natively, an HTTP round
// trip in workerd) and, in workerd, does not rely on the clock inside a request, which
// does not move while the request runs.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TOKEN, putFifo, startWorker } from "../tests/worker/harness.mjs";
import { listObjectsPage } from "./pages.mjs";

// /_/stats answers the operator only.
const operator = { headers: { Authorization: `Bearer ${TOKEN}` } };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const NATIVE = path.join(ROOT, "target/native/mkfifo-sh");
const args = process.argv.slice(2);
const QUICK = args.includes("--quick");
const ONLY = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
const CASES_ONLY = args.includes("--cases");
const AGAINST = args.includes("--against") ? path.resolve(args[args.indexOf("--against") + 1]) : null;
const AGAINST_WORKER = args.includes("--against-worker") ? path.resolve(args[args.indexOf("--against-worker") + 1]) : null;
const K = QUICK ? 3 : 7;
const NATIVE_SPAN_MS = QUICK ? 20 : 100;
const WORKERD_SPAN_MS = QUICK ? 50 : 300;
const MAX_N = 4000;
const MiB = 1024 * 1024;

// Inputs, made from a fixed seed so that every run measures the same bytes.
function seeded(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}
function text(bytes, seed = 1) {
  const rnd = seeded(seed);
  const words = ["foo", "bar", "baz", "alpha", "beta", "gamma", "x1", "y22", "z333", "the", "quick", "brown"];
  const lines = [];
  let n = 0;
  while (n < bytes) {
    const k = 3 + Math.floor(rnd() * 9);
    const line = Array.from({ length: k }, () => words[Math.floor(rnd() * words.length)]).join(rnd() < 0.5 ? " " : ",");
    lines.push(line);
    n += line.length + 1;
  }
  return Buffer.from(lines.join("\n") + "\n").subarray(0, bytes);
}
function jsonBody(bytes) {
  const items = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const item = { id: i, name: `item-${i}`, tags: ["a", "b", String(i % 7)], price: (i * 1.25) % 100, ok: i % 2 === 0 };
    items.push(item);
    n += JSON.stringify(item).length + 1;
  }
  return Buffer.from(JSON.stringify({ movie: { id: 42, title: "The Hitchhiker", year: 2005 }, items }));
}
function htmlBody(bytes) {
  const parts = ["<!doctype html><html><head><title>Bench page</title></head><body>"];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const p = `<div class="row" id="r${i}"><span class="name">Item ${i}</span><a href="/item/${i}">more</a></div>\n`;
    parts.push(p);
    n += p.length;
  }
  parts.push('<div class="price"><span>42.00</span></div></body></html>');
  return Buffer.from(parts.join(""));
}
function listing(keys) {
  const contents = Array.from({ length: keys }, (_, i) => ({
    Key: `photos/2026/${String(i).padStart(5, "0")}-img.jpg`,
    LastModified: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    ETag: crypto.createHash("md5").update(String(i)).digest("hex"),
    Size: 1000 + i,
  }));
  return Buffer.from(JSON.stringify({ Prefix: "photos/2026/", Contents: contents, CommonPrefixes: [{ Prefix: "photos/2026/raw/" }] }));
}

// The s3 envelope's own definitions (everything before its dispatch on the method), as
// the prelude of its cases: what is measured is the code that serves a bucket.
const s3Envelope = fs.readFileSync(path.join(ROOT, "envelopes/s3"), "utf8");
const s3Prelude =
  "S3_ENDPOINT=http://127.0.0.1:9 S3_BUCKET=bkt S3_ACCESS_KEY_ID=AKIDEXAMPLE\n" +
  "S3_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n" +
  s3Envelope.slice(s3Envelope.indexOf("\nTo: -\n") + 7, s3Envelope.indexOf('\ncase "$REQUEST_METHOD" in')) +
  "\n";
// The whole envelope as a function, for a GET of a file: what the object runs for a
// download of any size (the entry module makes S3's request and streams its answer).
const s3Serve =
  "S3_ENDPOINT=http://127.0.0.1:9 S3_BUCKET=bkt S3_ACCESS_KEY_ID=AKIDEXAMPLE\n" +
  "S3_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n" +
  "REQUEST_METHOD=GET PATH_INFO=/photos/2026/a%20b.jpg\n" +
  `serve() {\n${s3Envelope.slice(s3Envelope.indexOf("\nTo: -\n") + 7)}\n}\n`;
const lsjsonFilter = fs.existsSync(path.join(ROOT, "bench/s3-lsjson.jq"))
  ? fs.readFileSync(path.join(ROOT, "bench/s3-lsjson.jq"), "utf8")
  : null;

// A case: `op` is run N times (unrolled, one per line) on the input held in $x.
const cases = [
  { name: "printf '%s' over 1 MiB", input: text(MiB), op: `printf '%s' "$x"`, bytes: MiB, n: 9 },
  { name: "sed 's/foo/bar/g' over 1 MiB", input: text(MiB), op: `printf '%s' "$x" | sed 's/foo/bar/g'`, bytes: MiB, n: 9 },
  { name: "cut -d, -f2 over 1 MiB", input: text(MiB), op: `printf '%s' "$x" | cut -d, -f2`, bytes: MiB, n: 9 },
  { name: "tr a-z A-Z over 1 MiB", input: text(MiB), op: `printf '%s' "$x" | tr a-z A-Z`, bytes: MiB, n: 9 },
  { name: "pipeline of 5 small commands", input: text(200), op: `printf '%s' "$x" | head -n 3 | tr a-z A-Z | cut -c1-10 | wc -l`, n: 201 },
  { name: "hmac -K of 64 bytes", input: text(64), op: `printf '%s' "$x" | hmac -K 000102030405060708090a0b0c0d0e0f`, n: 201, per: "hmac" },
  { name: "sha256sum over 8 MiB", input: text(8 * MiB, 3), op: `printf '%s' "$x" | sha256sum`, bytes: 8 * MiB, n: 3 },
  { name: "base64 over 8 MiB", input: text(8 * MiB, 3), op: `printf '%s' "$x" | base64`, bytes: 8 * MiB, n: 3 },
  { name: "gzip -1 over 8 MiB", input: text(8 * MiB, 3), op: `printf '%s' "$x" | gzip -1`, bytes: 8 * MiB, n: 3 },
  { name: "rclone's scrypt", input: Buffer.from("pw"), op: `scrypt fixture-password-1`, n: 3 },
  { name: "the s3 envelope's SigV4 signature (sign)", input: Buffer.from(""), prelude: s3Prelude, op: `sign GET /bkt/photos/a.jpg '' UNSIGNED-PAYLOAD ''`, n: 41 },
  {
    name: "the s3 envelope's whole script for a GET of a file (its X-Accel-Redirect answer, for any size)",
    input: Buffer.from(""),
    prelude: s3Serve,
    op: "(serve)",
    n: 21,
  },
  {
    name: "the s3 envelope's listing of a 1,000-key page as lsjson, as it lists a directory (page_lsjson_filter)",
    input: listObjectsPage(1000),
    prelude: s3Prelude,
    op: `printf '[\\n%s\\n]\\n' "$(printf '%s' "$x" | jq -Rrs --arg prefix photos/2026/ "$page_lsjson_filter" | tail -n +2)"`,
    n: 5,
  },
  {
    name: "the same from the page filter's JSON lines, as a crypt bucket lists (page_filter, lsjson_filter)",
    input: listObjectsPage(1000),
    prelude: s3Prelude,
    op: `printf '%s' "$x" | jq -Rrs "$page_filter" | tail -n +2 | jq -rs --arg prefix photos/2026/ --argjson recursive false --arg now 2026-01-01T00:00:00.000000000Z "$lsjson_filter"`,
    n: 5,
  },
  { name: "jq .a on a small value", input: Buffer.from('{"a":{"b":[1,2,3]},"c":"x"}'), op: `printf '%s' "$x" | jq -c .a`, n: 201 },
  { name: "jq -c . over 256 KiB", input: jsonBody(256 * 1024), op: `printf '%s' "$x" | jq -c .`, bytes: 256 * 1024, n: 9 },
];
if (lsjsonFilter) {
  cases.push({
    name: "S3 listing to lsjson, 1,000 keys (jq)",
    input: listing(1000),
    op: `printf '%s' "$x" | jq -r -f /dev/stdin`,
    filter: lsjsonFilter,
    n: 5,
  });
}

function script(c, n) {
  const lines = ['x=$(cat)'];
  for (let i = 0; i < n; i++) lines.push(`${c.op} >/dev/null`);
  return lines.join("\n") + "\n";
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// The time of one operation: (time of N operations - time of 1) / (N - 1), with N grown
// until the difference spans at least `spanMs`, so that the noise of a run is small
// against it.
async function perOp(timeOf, n0, spanMs, maxN = MAX_N) {
  const t1 = await timeOf(1);
  let n = QUICK ? Math.max(3, Math.ceil(n0 / 4)) : n0;
  for (;;) {
    const tn = await timeOf(n);
    const span = tn - t1;
    if (span >= spanMs || n >= maxN) return Math.max(0, span / (n - 1));
    n = Math.min(maxN, Math.max(n * 2, Math.ceil((n * spanMs) / Math.max(span, 0.01))));
  }
}

function show(c, ms) {
  if (Number.isNaN(ms)) return "fails";
  if (c.bytes) return `${((c.bytes / MiB) / (ms / 1000)).toFixed(0)} MiB/s`;
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  return `${ms.toFixed(2)} ms`;
}

// The same work by the operating system's tools, for a figure beside ours.
function osTool(c) {
  const tools = { "sha256sum over 8 MiB": "sha256sum", "base64 over 8 MiB": "base64", "gzip -1 over 8 MiB": "gzip -1" };
  const tool = tools[c.name];
  if (!tool) return "";
  const times = [];
  for (let k = 0; k < K; k++) {
    const t0 = process.hrtime.bigint();
    execFileSync("bash", ["-c", `${tool} >/dev/null`], { input: c.input });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return `${((c.bytes / MiB) / (median(times) / 1000)).toFixed(0)} MiB/s`;
}

async function envelopeCases(base) {
  const rows = [];
  // Round trips through wrangler dev cost milliseconds and wander; the cases are
  // interleaved, round after round, and each is compared with a baseline that differs
  // only in the work being measured (medians of many rounds).
  const timeInterleaved = async (cases, rounds) => {
    const times = cases.map(() => []);
    for (let round = 0; round <= rounds; round++) {
      for (const [i, c] of cases.entries()) {
        const t0 = process.hrtime.bigint();
        const r = await fetch(`${base}/${c.fifo}/`, { method: "POST", body: c.body, headers: c.headers ?? {} });
        await r.arrayBuffer();
        if (r.status >= 300) throw new Error(`${c.fifo}: ${r.status}`);
        if (round > 0) times[i].push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
    return times.map(median);
  };
  const json = { "Content-Type": "application/json" };
  const html = { "Content-Type": "text/html" };
  const answer = "printf '%s %s %s\\n' \"$id\" \"$title\" \"$last\"\n";
  await putFifo(base, "bench-echo", "");
  await putFifo(base, "bench-small", "To: -\n\nread -r line\nprintf '%s\\n' \"$line\" | tr a-z A-Z\necho done\n");
  await putFifo(base, "bench-json-base", `To: -\n\n${answer}`);
  await putFifo(base, "bench-json", `To: -\n$id = .movie.id\n$title = .movie.title\n$last = .items[-1].name\n\n${answer}`);
  await putFifo(base, "bench-html", "To: -\n$price = div.price span\n\nprintf '%s\\n' \"$price\"\n");
  const [echo, small] = await timeInterleaved(
    [{ fifo: "bench-echo", body: "hello\n" }, { fifo: "bench-small", body: "hello\n" }],
    QUICK ? 41 : 301,
  );
  const [base256, json256, html256] = await timeInterleaved(
    [
      { fifo: "bench-json-base", body: jsonBody(256 * 1024), headers: json },
      { fifo: "bench-json", body: jsonBody(256 * 1024), headers: json },
      { fifo: "bench-html", body: htmlBody(256 * 1024), headers: html },
    ],
    QUICK ? 11 : 61,
  );
  rows.push(["a Request with an empty envelope (echo), round trip", `${echo.toFixed(2)} ms`]);
  rows.push(["`To: -` with a 3-line script, beyond the echo", `${(small - echo).toFixed(2)} ms`]);
  rows.push(["256 KiB JSON body, 3 selectors, beyond the same script without them", `${(json256 - base256).toFixed(2)} ms`]);
  rows.push(["256 KiB HTML body, 1 CSS selector, beyond a script without selectors", `${(html256 - base256).toFixed(2)} ms`]);
  // Memory: the isolate's WebAssembly memory after 1,000 different Requests.
  const before = (await (await fetch(`${base}/_/stats/fifo/bench-small`, operator)).json());
  for (let i = 0; i < 1000; i++) {
    const r = await fetch(`${base}/bench-small/${i}?n=${i}`, { method: "POST", body: `request number ${i} ${"x".repeat(i % 500)}\n` });
    await r.arrayBuffer();
  }
  const afterStats = await (await fetch(`${base}/_/stats/fifo/bench-small`, operator)).json();
  const mb = (b) => `${(b / MiB).toFixed(1)} MiB`;
  rows.push(["WebAssembly memory before / after 1,000 Requests", `${mb(before.wasm_memory_bytes)} / ${mb(afterStats.wasm_memory_bytes)}`]);
  rows.push(["the FIFO's SQLite after them (log of 1,000)", mb(afterStats.sqlite_bytes)]);
  return rows;
}

// A message of `bytes` or so: a line of text and an attachment of seeded bytes, in base64
// lines of 76 characters, as mail programs write it.
function mailMessage(bytes, to) {
  const rnd = seeded(7);
  const data = Buffer.alloc(Math.floor((bytes * 57) / 78));
  for (let i = 0; i < data.length; i++) data[i] = Math.floor(rnd() * 256);
  const b64 = data.toString("base64").replace(/.{76}/g, "$&\r\n");
  return Buffer.from(
    [
      "From: Ada <ada@example.com>",
      `To: ${to}`,
      "Subject: the numbers",
      `Message-ID: <bench-${bytes}@example.com>`,
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="b"',
      "",
      "--b",
      "Content-Type: text/plain; charset=utf-8",
      "",
      "The numbers are attached.",
      "--b",
      'Content-Type: application/octet-stream; name="numbers.bin"',
      'Content-Disposition: attachment; filename="numbers.bin"',
      "Content-Transfer-Encoding: base64",
      "",
      b64,
      "--b--",
      "",
    ].join("\r\n"),
  );
}

// Inbound mail through the test-only route (the local trigger refuses messages over
// 1 MiB): a message of 4.3 MB with a 3.1 MB attachment, to a FIFO whose `To: -` script
// reads the attachment. The object reads the message N times (`&repeat=N`): (time of N -
// time of 1) / (N - 1) is the CPU of one reading (parse, variables, text, attachment), as
// the clock inside a Worker does not move. The whole Request is timed beyond a 2 kB
// message too (that includes moving 4.3 MB into the object and the script).
async function mailCases(base) {
  const script = "To: -\n\ncat attachment:numbers.bin | wc -c >/dev/null\ncat >/dev/null\n";
  await putFifo(base, "bench-mail", script);
  const big = mailMessage(4.3e6, "bench-mail@mkfifo.localhost");
  const small = mailMessage(2000, "bench-mail@mkfifo.localhost");
  const N = 9;
  const mail = (body, repeat = 1) => async () => {
    const r = await fetch(`${base}/_/test/mail?from=ada@example.com&to=bench-mail@mkfifo.localhost&repeat=${repeat}`, { method: "POST", body });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`bench-mail: ${r.status} ${text}`);
  };
  const cases = [mail(small), mail(big), mail(big, N)];
  const times = cases.map(() => []);
  const rounds = QUICK ? 5 : 15;
  for (let round = 0; round <= rounds; round++) {
    for (const [i, c] of cases.entries()) {
      const t0 = process.hrtime.bigint();
      await c();
      if (round > 0) times[i].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  const [tSmall, tBig, tRepeat] = times.map(median);
  return [
    [`reading a ${(big.length / 1e6).toFixed(1)} MB message with a 3.1 MB attachment (parse, variables, text, attachment)`, `${((tRepeat - tBig) / (N - 1)).toFixed(1)} ms`],
    ["the whole Request of that message, the script reading the attachment, beyond a 2 kB message", `${(tBig - tSmall).toFixed(1)} ms`],
  ];
}

// Streams: peak memory of 100 MiB through a pipeline natively (the OS's maximum resident
// set of mkfifo-sh, read by Python's resource module) and in workerd (WebAssembly memory
// from /_/stats), time to the first and last byte of a 200 MiB answer, and xargs -n1 curl
// over 100 and 1,000 URLs of a local HTTP server (the time per URL stays flat: linear).
async function streamCases(base) {
  const rows = [];
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mkfifo-bench-")), "body");
  const body = text(MiB, 5);
  const fd = fs.openSync(file, "w");
  for (let i = 0; i < 100; i++) fs.writeSync(fd, body);
  fs.closeSync(fd);
  const rss = (pipeline) => {
    const py = [
      "import resource, subprocess, sys",
      "with open(sys.argv[1], 'rb') as f:",
      "    subprocess.run([sys.argv[2], '-c', sys.argv[3]], stdin=f, stdout=subprocess.DEVNULL, check=True)",
      "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
    ].join("\n");
    const out = execFileSync("python3", ["-c", py, file, NATIVE, pipeline]);
    return Number(out.toString().trim()) * 1024;
  };
  const mb = (b) => `${(b / MiB).toFixed(1)} MiB`;
  const memory = async () => (await (await fetch(`${base}/_/stats`, operator)).json()).wasm_memory_bytes;
  // In workerd the same 100 MiB bodies are checked by tests/worker/streaming.test.mjs,
  // which asserts the WebAssembly memory stays under 32 MiB.
  rows.push(["100 MiB through `tr a-z A-Z`: peak memory", mb(rss("tr a-z A-Z")), "(tests/worker/streaming.test.mjs)"]);
  rows.push(["100 MiB through `gzip -1 | gunzip`: peak memory", mb(rss("gzip -1 | gunzip")), "(tests/worker/streaming.test.mjs)"]);
  fs.rmSync(path.dirname(file), { recursive: true });

  // A To: - answer of 200 MiB: seq 30000000.
  await putFifo(base, "bench-seq", "To: -\n\nseq 30000000\n");
  const t0 = performance.now();
  const r = await fetch(`${base}/bench-seq/`, { headers: { "Accept-Encoding": "identity" } });
  let first = null;
  let bytes = 0;
  for await (const chunk of r.body) {
    first ??= performance.now() - t0;
    bytes += chunk.length;
  }
  const total = performance.now() - t0;
  const n0 = performance.now();
  const native = spawnSync(NATIVE, ["--budget", "1000000000", "-c", "seq 30000000"], { maxBuffer: 512 * MiB });
  const nativeMs = performance.now() - n0;
  if (native.status !== 0) throw new Error("seq 30000000 natively failed");
  rows.push([
    `\`To: -\` answer of ${(bytes / MiB).toFixed(0)} MiB (\`seq 30000000\`): first byte / last byte`,
    `${nativeMs.toFixed(0)} ms (whole run)`,
    `${first.toFixed(0)} ms / ${total.toFixed(0)} ms, WebAssembly memory ${mb(await memory())}`,
  ]);

  // xargs -n1 curl over N local URLs, per URL.
  const server = http.createServer((req, res) => res.end(`body ${req.url}\n`));
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  await putFifo(base, "bench-xargs", "To: -\n\nxargs -n1 curl -s\n");
  try {
    for (const n of [100, 1000]) {
      const urls = Array.from({ length: n }, (_, i) => `${url}/${i}`).join("\n") + "\n";
      const w0 = performance.now();
      const w = await fetch(`${base}/bench-xargs/`, { method: "POST", body: urls });
      const got = await w.text();
      const wMs = performance.now() - w0;
      if (w.status !== 200 || got.split("\n").length !== n + 1) throw new Error(`xargs over ${n} URLs: ${w.status}`);
      const m0 = performance.now();
      const nat = await new Promise((ok, fail) => {
        const child = spawn(NATIVE, ["--subrequests", "2000", "-c", "xargs -n1 curl -s"]);
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("exit", (code) => (code === 0 ? ok(out) : fail(new Error(`native xargs: ${code}`))));
        child.stdin.end(urls);
      });
      const nMs = performance.now() - m0;
      if (nat.split("\n").length !== n + 1) throw new Error(`native xargs over ${n} URLs`);
      rows.push([`\`xargs -n1 curl -s\` over ${n} local URLs, per URL`, `${((nMs / n) * 1000).toFixed(0)} µs`, `${((wMs / n) * 1000).toFixed(0)} µs`]);
    }
  } finally {
    await new Promise((ok) => server.close(ok));
  }
  return rows;
}

async function main() {
  let worker = await startWorker({ vars: { MKFIFO_STEPS: "1000000000000", MKFIFO_STATS: "1" } });
  let older = null;
  const out = [];
  const measured = [];
  try {
    // From the start of wrangler dev to the first answer of a FIFO (the first Request
    // instantiates the WebAssembly module and the object).
    const t0 = process.hrtime.bigint();
    await putFifo(worker.base, "bench-first", "");
    const first = await fetch(`${worker.base}/bench-first/`, { method: "POST", body: "hi" });
    await first.text();
    const firstMs = worker.readyMs + Number(process.hrtime.bigint() - t0) / 1e6;
    out.push(`wrangler dev: static assets served ${worker.readyMs} ms after the start, a FIFO's first answer at ${firstMs.toFixed(0)} ms\n`);
    if (AGAINST) {
      out.push("| case | native | native, older build | this / older | workerd | workerd, older build | this / older | OS tool |");
      out.push("|---|---:|---:|---:|---:|---:|---:|---:|");
    } else {
      out.push("| case | native | workerd | OS tool |");
      out.push("|---|---:|---:|---:|");
    }
    for (const c of cases) {
      if (ONLY && !c.name.includes(ONLY)) continue;
      // A jq filter rides in $f from a here-document: scripts have no files to keep it in.
      const prefix = (c.prelude || "") + (c.filter ? `f=$(cat <<'FILTER'\n${c.filter}\nFILTER\n)\n` : "");
      const op = c.filter ? `printf '%s' "$x" | jq -r "$f"` : c.op;
      const text = (k) => prefix + script({ op }, k);
      // An envelope holds at most 1 MiB: that bounds the lines of a script.
      const maxN = Math.min(MAX_N, Math.floor(900_000 / (op.length + 12)));
      if (AGAINST) {
        // Both builds, alternately, the median of their rounds: load from elsewhere
        // on the machine falls on both alike.
        const rounds = { this: [], older: [] };
        for (let r = 0; r < (QUICK ? 3 : 5); r++) {
          rounds.this.push(await perOp((k) => nativeTime(c, text(k)), c.n, NATIVE_SPAN_MS, maxN));
          // An older build may lack what a case uses: its column says so.
          rounds.older.push(await perOp((k) => nativeTime(c, text(k), AGAINST), c.n, NATIVE_SPAN_MS, maxN).catch(() => NaN));
        }
        const wt = await perOp((k) => workerdTime(worker.base, c, text(k)), c.n, WORKERD_SPAN_MS, maxN);
        measured.push({ c, text, maxN, nt: median(rounds.this), ot: median(rounds.older), wt });
        console.error(c.name, show(c, measured.at(-1).nt), show(c, measured.at(-1).ot), show(c, wt));
        continue;
      }
      const nt = await perOp((k) => nativeTime(c, text(k)), c.n, NATIVE_SPAN_MS, maxN);
      const wt = await perOp((k) => workerdTime(worker.base, c, text(k)), c.n, WORKERD_SPAN_MS, maxN);
      out.push(`| ${c.name} | ${show(c, nt)} | ${show(c, wt)} | ${osTool(c)} |`);
      console.error(out.at(-1));
    }
    if (AGAINST) {
      // The older Worker after this one, in a wrangler dev of its own. (Its column then
      // meets other load than this one's; bench/pair.mjs runs both at once, alternating.)
      let wo = measured.map(() => null);
      if (AGAINST_WORKER) {
        await worker.stop();
        older = await startWorker({ config: AGAINST_WORKER, vars: { MKFIFO_STEPS: "1000000000000" } });
        wo = [];
        for (const m of measured) {
          wo.push(await perOp((k) => workerdTime(older.base, m.c, m.text(k)), m.c.n, WORKERD_SPAN_MS, m.maxN).catch(() => NaN));
        }
        await older.stop();
        older = null;
        worker = await startWorker({ vars: { MKFIFO_STEPS: "1000000000000", MKFIFO_STATS: "1" } });
      }
      for (const [i, { c, nt, ot, wt }] of measured.entries()) {
        const wcols = wo[i] === null ? " | " : `${show(c, wo[i])} | ${(wt / wo[i]).toFixed(2)}`;
        out.push(`| ${c.name} | ${show(c, nt)} | ${show(c, ot)} | ${(nt / ot).toFixed(2)} | ${show(c, wt)} | ${wcols} | ${osTool(c)} |`);
      }
    }
    if (!CASES_ONLY && (!ONLY || "streams".includes(ONLY))) {
      // A fresh Worker: the memory figures are the streams' own. (With a budget of 10^12
      // steps, workerd under wrangler dev stops answering after the 100 MiB through gzip;
      // see the README.)
      await worker.stop();
      worker = await startWorker({ vars: { MKFIFO_STEPS: "1000000000", MKFIFO_STATS: "1" } });
      out.push("\n| streams | native | workerd |");
      out.push("|---|---:|---:|");
      for (const [k, n, w] of await streamCases(worker.base)) {
        out.push(`| ${k} | ${n} | ${w} |`);
        console.error(out.at(-1));
      }
    }
    if (!CASES_ONLY && (!ONLY || "envelope".includes(ONLY))) {
      // A fresh Worker, so that the memory figures are the envelope cases' own.
      await worker.stop();
      worker = await startWorker({ vars: { MKFIFO_STEPS: "1000000000000", MKFIFO_STATS: "1" } });
      out.push("\n| envelope in workerd | figure |");
      out.push("|---|---:|");
      for (const [k, v] of await envelopeCases(worker.base)) {
        out.push(`| ${k} | ${v} |`);
        console.error(out.at(-1));
      }
    }
    if (!CASES_ONLY && (!ONLY || "cold".includes(ONLY))) {
      out.push("\n| cold start in workerd | first answer | warm answer (median) |");
      out.push("|---|---:|---:|");
      for (const [k, first, warm] of await coldCases(worker)) {
        out.push(`| ${k} | ${first.toFixed(1)} ms | ${warm.toFixed(1)} ms |`);
        console.error(out.at(-1));
      }
      // coldCases restarted the Worker.
      worker = coldCases.worker;
    }
    if (!CASES_ONLY && (!ONLY || "mail".includes(ONLY))) {
      out.push("\n| mail in workerd | figure |");
      out.push("|---|---:|");
      for (const [k, v] of await mailCases(worker.base)) {
        out.push(`| ${k} | ${v} |`);
        console.error(out.at(-1));
      }
    }
  } finally {
    await worker.stop();
    await older?.stop();
  }
  console.log(out.join("\n"));
}

// A FIFO's first answer from a fresh instance beside its warm answers: after its object
// was crashed on purpose (the next Request builds a new one, on a fresh WebAssembly
// instance), and after wrangler dev restarts on the same state (a new isolate: the module
// is instantiated, the object reads its envelope from SQLite).
async function coldCases(worker) {
  const name = "bench-cold";
  const ask = async (base) => {
    const t0 = process.hrtime.bigint();
    const r = await fetch(`${base}/${name}/`, { method: "POST", body: "hi" });
    if ((await r.text()) !== "HI") throw new Error(`${name}: ${r.status}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const warm = async (base) => {
    const times = [];
    for (let i = 0; i < 21; i++) times.push(await ask(base));
    return median(times);
  };
  await putFifo(worker.base, name, "To: -\n\ntr a-z A-Z\n");
  await ask(worker.base);
  const rows = [];
  const crashed = [];
  for (let i = 0; i < 5; i++) {
    await (await fetch(`${worker.base}/_/fault/fifo/${name}`)).text();
    crashed.push(await ask(worker.base));
  }
  rows.push(["a FIFO's object after a crash (a fresh instance), median of 5", median(crashed), await warm(worker.base)]);
  const restarted = [];
  for (let i = 0; i < 3; i++) {
    const persist = worker.persist;
    await worker.stop();
    worker = await startWorker({ persist, vars: { MKFIFO_STEPS: "1000000000000", MKFIFO_STATS: "1" } });
    restarted.push(await ask(worker.base));
  }
  rows.push(["a FIFO after wrangler dev restarts (a new isolate), median of 3", median(restarted), await warm(worker.base)]);
  coldCases.worker = worker;
  return rows;
}

// Native: one mkfifo-sh --batch process runs the script K times (the caches warm after
// the first); the process's wall time, divided by K, is one run.
function nativeTime(c, text, binary = NATIVE) {
  const line = JSON.stringify({ script: Buffer.from(text).toString("base64"), stdin: c.input.toString("base64"), budget: 1e15 });
  const input = (line + "\n").repeat(K);
  const t0 = process.hrtime.bigint();
  const out = spawnSync(binary, ["--batch"], { input, maxBuffer: 1 << 30 });
  const t1 = process.hrtime.bigint();
  for (const l of out.stdout.toString().trim().split("\n")) {
    const r = JSON.parse(l);
    if (r.status !== 0) throw new Error(`${c.name} (native) failed: ${Buffer.from(r.stderr, "base64")}`);
  }
  return Number(t1 - t0) / 1e6 / K;
}

// workerd: FIFO `bench-case` runs the script (its envelope is `To: -` and the script; a
// long script does not fit in a /bin/sh URL) with the input as the Request's body, K
// times after a warm-up run that fills the caches; the median counts.
async function workerdTime(base, c, text) {
  // After the native rounds the connection has sat idle, and wrangler dev may close it as
  // it is reused ("other side closed", EPIPE): the save is sent again once.
  const envelope = `To: -\n\n${text}`;
  await putFifo(base, "bench-case", envelope).catch((e) => {
    if (e?.message !== "fetch failed") throw e;
    return putFifo(base, "bench-case", envelope);
  });
  const times = [];
  for (let k = 0; k < K + 1; k++) {
    const t0 = process.hrtime.bigint();
    const r = await fetch(`${base}/bench-case/`, { method: "POST", body: c.input });
    const body = await r.text();
    const t1 = process.hrtime.bigint();
    if (r.status !== 200) throw new Error(`${c.name} (workerd) failed: ${r.status} ${body.slice(0, 300)}`);
    if (k > 0) times.push(Number(t1 - t0) / 1e6);
  }
  return median(times);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
