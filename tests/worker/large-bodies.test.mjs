// Large Request bodies held whole: many at once take turns through the object's gate
// (memory stays bounded, every answer is right), and a body over the limit is answered
// 413 without being kept, on a connection that stays usable.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { after, before, test } from "node:test";
import { TOKEN, putFifo, startServer, startWorker, until } from "./harness.mjs";

const MiB = 1024 * 1024;
let worker;
before(async () => {
  worker = await startWorker({ vars: { MKFIFO_STATS: "1" } });
  // A selector needs the body whole before the script runs.
  await putFifo(worker.base, "held", "To: -\n$n = ?n\n\nsha256sum\n");
});
after(() => worker.stop());

async function wasmMemory() {
  const r = await fetch(`${worker.base}/_/stats/fifo/held`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return (await r.json()).wasm_memory_bytes;
}

test("16 bodies of 8 MiB at once: all answered right, the object's memory bounded", async () => {
  const idle = await wasmMemory();
  const bodies = Array.from({ length: 16 }, () => randomBytes(8 * MiB));
  const answers = await Promise.all(
    bodies.map(async (body) => {
      const r = await fetch(`${worker.base}/held/?n=1`, { method: "POST", body });
      return { status: r.status, text: await r.text(), want: createHash("sha256").update(body).digest("hex") };
    }),
  );
  for (const a of answers) {
    assert.equal(a.status, 200, a.text);
    assert.equal(a.text, `${a.want}  -\n`);
  }
  // 128 MiB of bodies; the gate lets in 16 MiB at a time, each held body is copied a few
  // times on its way into the script (measured: about 50 MiB above idle in all).
  const grown = (await wasmMemory()) - idle;
  assert.ok(grown < 80 * MiB, `grew by ${(grown / MiB).toFixed(1)} MiB`);
});

// One request on `agent`'s connection; its status, its answer and whether the socket was
// one used before.
function send(agent, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const url = new URL(path, worker.base);
    const req = http.request(url, { method: "POST", agent, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString(), reused: req.reusedSocket }));
    });
    req.on("error", reject);
    if (Buffer.isBuffer(body)) {
      req.end(body);
    } else {
      // Chunked: `body` is a count of 1 MiB chunks.
      let left = body;
      const chunk = Buffer.alloc(MiB, 120);
      const more = () => {
        while (left > 0) {
          left--;
          if (!req.write(chunk)) return req.once("drain", more);
        }
        req.end();
      };
      more();
    }
  });
}

test("a body over the limit is 413, nothing of it is kept, and the connection goes on", async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const before = (await (await fetch(`${worker.base}/_/api/fifos/held`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()).log_entries;
  let r = await send(agent, "/held/?n=1", Buffer.from("first\n"));
  assert.equal(r.status, 200);
  r = await send(agent, "/held/?n=2", 40); // 40 MiB chunked, over the 32 MiB held whole
  assert.equal(r.status, 413);
  assert.match(r.text, /at most 32 MiB/);
  r = await send(agent, "/held/?n=3", Buffer.from("after\n"));
  assert.equal(r.status, 200);
  assert.equal(r.text, `${createHash("sha256").update("after\n").digest("hex")}  -\n`);
  assert.ok(r.reused, "the third request went on the same connection");
  agent.destroy();
  const after = (await (await fetch(`${worker.base}/_/api/fifos/held`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()).log_entries;
  assert.equal(after - before, 2, "the 413 left no Request in the log");
});

test("/_/stats/fifo/NAME counts the object's Requests, cache use and pending deliveries", async () => {
  const stats = async () => (await fetch(`${worker.base}/_/stats/fifo/held`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
  const before = await stats();
  for (let i = 0; i < 3; i++) await (await fetch(`${worker.base}/held/?n=${i}`, { method: "POST", body: "x" })).text();
  const after = await stats();
  assert.equal(after.requests_since_start - before.requests_since_start, 3);
  assert.equal(after.envelope_cache.hits - before.envelope_cache.hits, 3, "the envelope is parsed once");
  assert.equal(after.envelope_cache.misses, before.envelope_cache.misses);
  assert.equal(after.deliveries_pending, 0);
  assert.equal(after.websockets, 0);
  assert.ok(after.script_cache.entries >= 1 && after.script_cache.hits > before.script_cache.hits, JSON.stringify(after));
  for (const k of ["wasm_memory_bytes", "sqlite_bytes", "log_entries"]) assert.equal(typeof after[k], "number");
});

test("MKFIFO_MAX_BODY lowers the limits of streamed and held bodies", async () => {
  const small = await startWorker({ vars: { MKFIFO_MAX_BODY: String(512 * 1024) } });
  try {
    await putFifo(small.base, "streamed", "To: -\n\nwc -c\n");
    await putFifo(small.base, "held", "To: -\n$n = ?n\n\nwc -c\n");
    for (const name of ["streamed", "held"]) {
      let r = await fetch(`${small.base}/${name}/`, { method: "POST", body: Buffer.alloc(512 * 1024) });
      assert.equal(await r.text(), "524288\n", name);
      r = await fetch(`${small.base}/${name}/`, { method: "POST", body: Buffer.alloc(512 * 1024 + 1) });
      assert.equal(r.status, 413, name);
      assert.match(await r.text(), /at most 512 KiB/);
    }
    // Without a Content-Length (chunked), found as the body arrives.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const r = await new Promise((resolve, reject) => {
      const req = http.request(new URL("/held/", small.base), { method: "POST", agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      });
      req.on("error", reject);
      req.write(Buffer.alloc(300 * 1024));
      req.end(Buffer.alloc(300 * 1024));
    });
    agent.destroy();
    assert.equal(r, 413);
  } finally {
    await small.stop();
  }
});

test("a Request answered later keeps its body in storage in pieces: bodies and outputs of megabytes are delivered whole, past the held limit it is 413", async () => {
  const server = await startServer((req, res) => res.end("ok"));
  try {
    await putFifo(worker.base, "later", `To: ${server.url}/in\n\ncat\n`);
    // An output of 6 MiB: the body, then 3 MiB that the script makes.
    await putFifo(worker.base, "twice", `To: ${server.url}/twice\n\ncat; yes abcdefghijklmnopqrstuvwxyz | head -c ${3 * MiB}\n`);
    await putFifo(worker.base, "onward", `To: later\n\ncat\n`);
    // Around the piece size (1,000,000 bytes), and several pieces.
    const sizes = [999_999, 1_000_000, 1_000_001, 2_000_001, 5 * MiB];
    const bodies = sizes.map((n) => randomBytes(n));
    for (const body of bodies) {
      const r = await fetch(`${worker.base}/later/`, { method: "POST", body });
      assert.equal(r.status, 202, await r.text());
    }
    const doubled = randomBytes(3 * MiB);
    let r = await fetch(`${worker.base}/twice/`, { method: "POST", body: doubled });
    assert.equal(r.status, 202, await r.text());
    // Through a second FIFO: its object stores the body in pieces too.
    const relayed = randomBytes(4 * MiB);
    r = await fetch(`${worker.base}/onward/`, { method: "POST", body: relayed });
    assert.equal(r.status, 202, await r.text());

    await until(() => server.requests.length >= bodies.length + 2 || null, "the deliveries");
    const hash = (b) => createHash("sha256").update(b).digest("hex");
    const got = server.requests.filter((q) => q.url === "/in").map((q) => hash(q.body)).sort();
    assert.deepEqual(got, [...bodies, relayed].map(hash).sort());
    const twice = server.requests.find((q) => q.url === "/twice");
    assert.equal(twice.body.length, 6 * MiB);
    const made = Buffer.from("abcdefghijklmnopqrstuvwxyz\n".repeat(Math.ceil((3 * MiB) / 27))).subarray(0, 3 * MiB);
    assert.ok(twice.body.equals(Buffer.concat([doubled, made])));

    // Once sent, a body's pieces and its delivery's copy are freed: another 5 MiB grows
    // the storage by the copy kept for replays (and the log's 64 KiB), not three copies.
    const sqliteBytes = async () => {
      const r = await fetch(`${worker.base}/_/stats/fifo/later`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      return (await r.json()).sqlite_bytes;
    };
    const before = await sqliteBytes();
    r = await fetch(`${worker.base}/later/`, { method: "POST", body: randomBytes(5 * MiB) });
    assert.equal(r.status, 202, await r.text());
    await until(() => server.requests.length >= bodies.length + 3 || null, "the delivery");
    const grown = (await sqliteBytes()) - before;
    assert.ok(grown < 6 * MiB, `the storage grew by ${grown} bytes`);

    // Over the limit of a body held whole (32 MiB): 413, and nothing is kept or sent.
    r = await fetch(`${worker.base}/later/`, { method: "POST", body: Buffer.alloc(33 * MiB) });
    assert.equal(r.status, 413);
    await r.text();
    await new Promise((ok) => setTimeout(ok, 1000));
    assert.equal(server.requests.length, bodies.length + 3);
  } finally {
    await server.close();
  }
});
