// Where the time of one Request goes: a CPU profile of the Worker's isolate (the entry
// module, the Worker's wasm and the FIFO's object, which local workerd runs in one
// isolate) taken through wrangler's inspector while one client sends a scenario's
// Requests, summed by function.
//
//   node bench/profile.mjs [--scenario echo|script|json|async|hmac|cut|s3get] [--seconds 5] [--clients 1] [--top 40]
//                          [--floor | --config WRANGLER_TOML]
//   (after scripts/build.sh)
//
// Prints the Requests/s of the profiled run, then the functions with the most self time
// (time in the function itself, not in what it calls), and the same summed by where the
// code lives (the entry module, the wasm module, the runtime). PROFILE_LOG=1 also prints
// the end of wrangler's output; PROFILE_DUMP=FILE writes the raw profile (DevTools'
// format). s3get: S3GET_BYTES sets the file's size (100 MiB); through wrangler dev's local relay a 100 MiB answer takes 10 to 20 s, so a run of a few seconds
// holds too few Requests for a figure: a small file shows the same work in the object.
import http from "node:http";
import WebSocket from "ws";
import path from "node:path";
import fs from "node:fs";
import { ROOT, api, putFifo, startRcloneS3, startServer, startWorker, tempDir } from "../tests/worker/harness.mjs";
import { request } from "../tests/stress/checks.mjs";
import { listObjectsPage } from "./pages.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const SCENARIO = opt("--scenario", "echo");
const SECONDS = Number(opt("--seconds", "5"));
const CLIENTS = Number(opt("--clients", "1"));
const TOP = Number(opt("--top", "40"));

const SCENARIOS = {
  echo: { envelope: "To: -\n", body: "hello, world\n", want: 200 },
  script: { envelope: "To: -\n\nread -r line\nprintf '%s\\n' \"$line\" | tr a-z A-Z\necho done\n", body: "hello, world\n", want: 200 },
  json: {
    envelope: "To: -\n$t = .movie.title\n$a = .items[0].name\n\nprintf '%s %s\\n' \"$t\" \"$a\"\n",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ movie: { title: "Heat" }, items: Array.from({ length: 2000 }, (_, i) => ({ name: `item ${i}`, price: i })) }),
    want: 200,
  },
  async: { envelope: (dest) => `To: ${dest}/in\n`, body: "deliver me\n", want: 202 },
  // Short builtins in pipelines, 200 to a Request: where a builtin's own fixed cost goes.
  hmac: { envelope: repeated("printf '%s' \"$x\" | hmac -K 000102030405060708090a0b0c0d0e0f"), body: "foo bar,baz alpha,beta the quick,brown x1 y22\n".slice(0, 64), want: 200 },
  cut: { envelope: repeated("printf '%s' \"$x\" | cut -d, -f2"), body: "foo bar,baz alpha,beta the quick,brown x1 y22\n".repeat(20), want: 200 },
  // A download of 100 MiB from a bucket (rclone serve s3) served by the s3 envelope: the
  // object signs a request and answers X-Accel-Redirect, and the platform streams the
  // bytes (a passthrough): what the isolate spends on one download.
  s3get: { s3: { key: "big.bin", bytes: Number(process.env.S3GET_BYTES || 100 * 1024 * 1024) }, method: "GET", path: "big.bin", want: 200 },
  // The s3 envelope's listing of a 1,000-key ListObjectsV2 page as lsjson, a page at a time
  // as it lists a directory, and as bench/run.mjs measures it: where jq's time goes.
  listing: { envelope: listingEnvelope(), body: listObjectsPage(1000), want: 200 },
};

function listingEnvelope() {
  const s3 = fs.readFileSync(path.join(ROOT, "envelopes/s3"), "utf8");
  const defs = s3.slice(s3.indexOf("\nTo: -\n") + 7, s3.indexOf('\ncase "$REQUEST_METHOD" in'));
  const vars = "S3_ENDPOINT=http://127.0.0.1:9 S3_BUCKET=bkt S3_ACCESS_KEY_ID=AKIDEXAMPLE S3_SECRET_ACCESS_KEY=x\n";
  return `To: -\n\n${vars}${defs}\nx=$(cat)\n` +
    `printf '[\\n%s\\n]\\n' "$(printf '%s' "$x" | jq -Rrs --arg prefix photos/2026/ "$page_lsjson_filter" | tail -n +2)" | wc -c\n`;
}

function repeated(op) {
  return `To: -\n\nx=$(cat)\n${Array.from({ length: 200 }, () => `${op} >/dev/null`).join("\n")}\n`;
}

// The DevTools protocol over the inspector's WebSocket: one call at a time.
async function inspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl) || targets[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let next = 1;
  const waiting = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(data);
    if (msg.id && waiting.has(msg.id)) {
      const { resolve, reject } = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.error) reject(new Error(`${msg.error.message}`));
      else resolve(msg.result);
    }
  });
  return {
    call: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

async function drive(base, scenario, clients, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  let done = 0;
  let wrong = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < end) {
        const r = await request(agent, `${base}/profiled/${scenario.path || ""}`, {
          method: scenario.method || "POST",
          headers: scenario.headers,
          body: scenario.body,
        });
        if (r.status !== scenario.want || (scenario.s3 && r.body.length !== scenario.s3.bytes)) wrong++;
        done++;
      }
    }),
  );
  agent.destroy();
  return { rps: done / seconds, wrong };
}

// Self time per function, from the profile's samples and their time deltas.
function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] || 0;
    total += dt;
    const f = byId.get(id).callFrame;
    const where = f.url ? f.url.replace(/^.*\//, "") : "(runtime)";
    // An anonymous function is told by its place (the bundle's line, 0-based as given).
    const name = f.functionName || `(anonymous at ${f.lineNumber}:${f.columnNumber})`;
    const key = `${name}\t${where}`;
    self.set(key, (self.get(key) || 0) + dt);
  });
  return { self, total };
}

const scenario = SCENARIOS[SCENARIO];
if (!scenario) throw new Error(`no scenario ${SCENARIO}: ${Object.keys(SCENARIOS).join(", ")}`);
const dest = await startServer((req, res) => {
  res.writeHead(200);
  res.end("ok");
});
dest.requests.push = () => 0;
// --floor: the same for the empty JS object (bench/floor/), which echoes every path.
const FLOOR = args.includes("--floor");
const worker = FLOOR
  ? await startWorker({ config: path.join(ROOT, "bench/floor/wrangler.toml") })
  : await startWorker({ config: opt("--config", null), vars: { MKFIFO_STEPS: "100000000" } });
// The s3 scenario's bucket, in a real local S3.
const [KEY, SECRET] = ["AKIDPROFILE", "profile-secret"];
const bucketDir = scenario.s3 && tempDir("mkfifo-profile-s3-");
if (scenario.s3) {
  fs.mkdirSync(path.join(bucketDir, "bkt"));
  fs.writeFileSync(path.join(bucketDir, "bkt", scenario.s3.key), Buffer.alloc(scenario.s3.bytes, "x"));
}
const s3 = scenario.s3 && (await startRcloneS3(bucketDir, KEY, SECRET));
try {
  if (scenario.s3) {
    const put = await api(worker.base, "PUT", "fifos/profiled?from=s3");
    if (put.status !== 201) throw new Error(`PUT ?from=s3: ${put.status} ${await put.text()}`);
    for (const [k, v] of Object.entries({ S3_ENDPOINT: s3.url, S3_BUCKET: "bkt", S3_ACCESS_KEY_ID: KEY, S3_SECRET_ACCESS_KEY: SECRET })) {
      await (await api(worker.base, "PUT", `fifos/profiled/vars/${k}`, v)).text();
    }
  } else if (!FLOOR) {
    const envelope = typeof scenario.envelope === "function" ? scenario.envelope(dest.url) : scenario.envelope;
    await putFifo(worker.base, "profiled", envelope);
  }
  await drive(worker.base, scenario, CLIENTS, 1); // warm: no figure counts the object's start
  const unprofiled = await drive(worker.base, scenario, CLIENTS, SECONDS);
  const dev = await inspector(worker.inspectorPort);
  await dev.call("Profiler.enable");
  await dev.call("Profiler.setSamplingInterval", { interval: 100 });
  await dev.call("Profiler.start");
  const run = await drive(worker.base, scenario, CLIENTS, SECONDS);
  const { profile } = await dev.call("Profiler.stop");
  dev.close();
  if (process.env.PROFILE_DUMP) fs.writeFileSync(process.env.PROFILE_DUMP, JSON.stringify(profile));
  const { self, total } = summarize(profile);
  console.log(`scenario ${SCENARIO}, ${CLIENTS} client(s), ${SECONDS} s: ${unprofiled.rps.toFixed(0)} Requests/s unprofiled, ${run.rps.toFixed(0)}/s profiled${run.wrong ? `, ${run.wrong} with another status` : ""}`);
  const busy = [...self].filter(([k]) => !k.startsWith("(idle)") && !k.startsWith("(program)")).reduce((a, [, v]) => a + v, 0);
  console.log(`sampled ${(total / 1e6).toFixed(2)} s, of which busy ${(busy / 1e6).toFixed(2)} s (${((busy / run.rps / SECONDS / 1e3) || 0).toFixed(2)} ms per Request)\n`);
  console.log("| self ms per Request | % of busy | function | module |\n|---:|---:|---|---|");
  const perRequest = (v) => (v / 1e3 / (run.rps * SECONDS)).toFixed(3);
  const rows = [...self].sort((a, b) => b[1] - a[1]);
  for (const [k, v] of rows.slice(0, TOP)) {
    const [fn, where] = k.split("\t");
    console.log(`| ${perRequest(v)} | ${((100 * v) / busy).toFixed(1)} | \`${fn.slice(0, 90)}\` | ${where} |`);
  }
  const byModule = new Map();
  for (const [k, v] of rows) {
    const where = k.split("\t")[1];
    byModule.set(where, (byModule.get(where) || 0) + v);
  }
  console.log("\n| module | self ms per Request |\n|---|---:|");
  for (const [where, v] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`| ${where} | ${perRequest(v)} |`);
} finally {
  if (process.env.PROFILE_LOG) console.error(worker.log().slice(-4000));
  await worker.stop();
  await dest.close();
  await s3?.stop();
  if (bucketDir) fs.rmSync(bucketDir, { recursive: true, force: true });
}
