// The streaming engine in local workerd: a Request body goes into the script as it
// arrives, a To: - answer goes out as the script writes it, and builtins wait on a real
// local HTTP server where they stand. Bodies of 100 MiB pass with the WebAssembly memory
// under 32 MiB.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { Readable } from "node:stream";
import { TOKEN, startWorker, startServer, putFifo, getLog, until } from "./harness.mjs";

const MiB = 1024 * 1024;
let worker;

before(async () => {
  worker = await startWorker({ vars: { MKFIFO_STATS: "1", MKFIFO_STEPS: "100000000" } });
});
after(async () => worker && (await worker.stop()));

// 100 MiB of text, made in 1 MiB blocks as it is sent: lines of lower-case letters.
function* textBlocks(total) {
  const line = "the quick brown fox jumps over the lazy dog 0123456789\n";
  const block = Buffer.from(line.repeat(Math.ceil(MiB / line.length))).subarray(0, MiB);
  for (let sent = 0; sent < total; sent += MiB) yield block.subarray(0, Math.min(MiB, total - sent));
}

function sha256Of(blocks, map = (b) => b) {
  const h = createHash("sha256");
  for (const b of blocks) h.update(map(b));
  return h.digest("hex");
}

async function post(path, blocks) {
  const resp = await fetch(`${worker.base}${path}`, {
    method: "POST",
    body: Readable.from(blocks),
    duplex: "half",
    // No compression by the local proxy: the figures are of mkfifo, not of gzip.
    headers: { "Content-Type": "text/plain", "Accept-Encoding": "identity" },
  });
  const h = createHash("sha256");
  let bytes = 0;
  for await (const chunk of resp.body) {
    h.update(chunk);
    bytes += chunk.length;
  }
  return { status: resp.status, bytes, sha256: h.digest("hex") };
}

async function wasmMemory() {
  const r = await fetch(`${worker.base}/_/stats`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(r.status, 200);
  return (await r.json()).wasm_memory_bytes;
}

test("CONTENT_LENGTH is the caller's, and empty (unknown, not 0) for a chunked body that streams", async () => {
  await putFifo(worker.base, "length", "To: -\n\nprintf '[%s] ' \"$CONTENT_LENGTH\"\nwc -c\n");
  const told = await fetch(`${worker.base}/length/`, { method: "POST", body: "12345" });
  assert.equal(await told.text(), "[5] 5\n");
  const chunked = await fetch(`${worker.base}/length/`, {
    method: "POST",
    body: Readable.from([Buffer.from("123"), Buffer.from("4567")]),
    duplex: "half",
  });
  assert.equal(await chunked.text(), "[] 7\n");
});

test("a 100 MiB body streams through tr, and through gzip | gunzip, in bounded memory", async () => {
  await putFifo(worker.base, "upper", "To: -\n\ntr a-z A-Z\n");
  await putFifo(worker.base, "roundtrip", "To: -\n\ngzip -1 | gunzip\n");
  const total = 100 * MiB;
  const upper = await post("/upper/", textBlocks(total));
  assert.equal(upper.status, 200);
  assert.equal(upper.bytes, total);
  assert.equal(upper.sha256, sha256Of(textBlocks(total), (b) => Buffer.from(b.toString("latin1").toUpperCase(), "latin1")));
  const round = await post("/roundtrip/", textBlocks(total));
  assert.equal(round.status, 200);
  assert.equal(round.sha256, sha256Of(textBlocks(total)));
  const memory = await wasmMemory();
  assert.ok(memory < 32 * MiB, `WebAssembly memory ${memory} bytes after two 100 MiB bodies`);
  const [entry] = await getLog(worker.base, "upper");
  assert.equal(entry.request_bytes, total);
  assert.equal(entry.response_bytes, total);
  assert.equal(entry.status, 200);
});

test("a To: - answer of 200 MiB starts long before it ends, chunked, and is whole", async () => {
  await putFifo(worker.base, "numbers", "To: -\n\nseq 30000000\n");
  const want = createHash("sha256").update(spawnSync("seq", ["30000000"], { maxBuffer: 512 * MiB }).stdout).digest("hex");
  const started = performance.now();
  const resp = await fetch(`${worker.base}/numbers/`, { headers: { "Accept-Encoding": "identity" } });
  assert.equal(resp.status, 200);
  assert.equal(resp.headers.get("content-length"), null, "a streamed answer has no length");
  const h = createHash("sha256");
  let first = null;
  let bytes = 0;
  for await (const chunk of resp.body) {
    if (first === null) first = performance.now() - started;
    h.update(chunk);
    bytes += chunk.length;
  }
  const total = performance.now() - started;
  assert.equal(h.digest("hex"), want);
  assert.ok(bytes > 200 * 1000 * 1000, `${bytes} bytes`);
  assert.ok(first < total / 4, `first byte after ${first.toFixed(0)} ms of ${total.toFixed(0)} ms`);
  const [entry] = await until(async () => {
    const log = await getLog(worker.base, "numbers");
    return log.length && log[0].outcome ? log : null;
  }, "the log entry of the streamed answer");
  assert.equal(entry.outcome, "answered");
  assert.equal(entry.response_bytes, bytes);
});

test("a short answer is answered whole, and a script that fails early is a 500", async () => {
  await putFifo(worker.base, "short", "To: -\n\nseq 3\n");
  const r = await fetch(`${worker.base}/short/`, { headers: { "Accept-Encoding": "identity" } });
  assert.equal(r.headers.get("content-length"), "6");
  assert.equal(await r.text(), "1\n2\n3\n");
  await putFifo(worker.base, "early", "To: -\n\necho partial; echo broken >&2; exit 3\n");
  const e = await fetch(`${worker.base}/early/`);
  assert.equal(e.status, 500);
  assert.match(await e.text(), /exited with status 3: broken/);
});

test("a CGI header block at the start of a streamed answer sets its status and type", async () => {
  await putFifo(worker.base, "cgi", "To: -\n\nprintf 'Status: 201\\nContent-Type: text/csv\\n\\n'; seq 100000\n");
  const r = await fetch(`${worker.base}/cgi/`);
  assert.equal(r.status, 201);
  assert.equal(r.headers.get("content-type"), "text/csv");
  const body = await r.text();
  assert.ok(body.startsWith("1\n2\n3\n"));
  assert.ok(body.endsWith("\n100000\n"));
});

test("xargs runs curl once per URL, and xargs cat reads each URL", async () => {
  const server = await startServer((req, res) => res.end(`body ${req.url.slice(1)}\n`));
  try {
    const urls = Array.from({ length: 100 }, (_, i) => `${server.url}/${i + 1}`).join("\n");
    await putFifo(worker.base, "fetchall", "To: -\n\nxargs -n1 curl -s\n");
    const r = await fetch(`${worker.base}/fetchall/`, { method: "POST", body: urls + "\n" });
    const want = Array.from({ length: 100 }, (_, i) => `body ${i + 1}\n`).join("");
    assert.equal(await r.text(), want);
    assert.equal(server.requests.length, 100);
    await putFifo(worker.base, "catall", "To: -\n\nxargs cat\n");
    const c = await fetch(`${worker.base}/catall/`, { method: "POST", body: `${server.url}/a\n${server.url}/b\n` });
    assert.equal(await c.text(), "body a\nbody b\n");
    assert.equal(server.requests.length, 102);
  } finally {
    await server.close();
  }
});

test("yes | head and seq 1000000000 | head -n1 answer at once, with few steps", async () => {
  await putFifo(worker.base, "yeshead", "To: -\n\nyes | head -n1\n");
  await putFifo(worker.base, "seqhead", "To: -\n\nseq 1000000000 | head -n1\n");
  for (const [fifo, want] of [["yeshead", "y\n"], ["seqhead", "1\n"]]) {
    const r = await fetch(`${worker.base}/${fifo}/`);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), want);
    const [entry] = await getLog(worker.base, fifo);
    assert.ok(entry.steps < 200_000, `${fifo}: ${entry.steps} steps`);
  }
});
