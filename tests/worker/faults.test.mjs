// A crash of the Worker or of a FIFO's object reaches the client as a 503 with the cause
// and Retry-After: 1, never as the platform's error page; the next request is served.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { getLog, putFifo, startWorker } from "./harness.mjs";

let worker;
before(async () => (worker = await startWorker()));
after(() => worker.stop());

test("a panic in the Worker is a 503, and the Worker recovers", async () => {
  const r = await fetch(`${worker.base}/_/fault/panic`);
  assert.equal(r.status, 503);
  assert.equal(r.headers.get("retry-after"), "1");
  assert.match(await r.text(), /^503 Service Unavailable: .*fault injected into the Worker/);
  await putFifo(worker.base, "after-panic");
  const ok = await fetch(`${worker.base}/after-panic/`, { method: "POST", body: "alive" });
  assert.equal(await ok.text(), "alive");
});

test("a panic in a FIFO's object is a 503, and its data is intact", async () => {
  await putFifo(worker.base, "crashy");
  await (await fetch(`${worker.base}/crashy/`, { method: "POST", body: "before" })).text();
  const r = await fetch(`${worker.base}/_/fault/fifo/crashy`);
  assert.equal(r.status, 503);
  assert.equal(r.headers.get("retry-after"), "1");
  assert.match(await r.text(), /^503 Service Unavailable: ./);
  // A client that honours Retry-After gets through once the platform has a new object.
  let again;
  for (let attempt = 0; attempt < 10; attempt++) {
    again = await fetch(`${worker.base}/crashy/`, { method: "POST", body: "after" });
    if (again.status !== 503) break;
    assert.equal(again.headers.get("retry-after"), "1");
    await again.text();
    await new Promise((r) => setTimeout(r, 1000));
  }
  assert.equal(again.status, 200);
  assert.equal(await again.text(), "after");
  const log = await getLog(worker.base, "crashy", "?bodies=1");
  assert.deepEqual(log.map((e) => e.body), ["after", "before"]);
});

test("faults are off unless the operator turns them on", async () => {
  const off = await startWorker({ vars: { MKFIFO_FAULTS: "0" } });
  try {
    const r = await fetch(`${off.base}/_/fault/panic`);
    assert.equal(r.status, 404);
    await r.text();
  } finally {
    await off.stop();
  }
});

test("a body over the limit gets 413 and the connection stays usable", async () => {
  await putFifo(worker.base, "small");
  const big = Buffer.alloc(33 * 1024 * 1024, 97);
  const r2 = await fetch(`${worker.base}/small/`, { method: "POST", body: big });
  assert.equal(r2.status, 413);
  assert.match(await r2.text(), /at most 32 MiB/);
  const ok = await fetch(`${worker.base}/small/`, { method: "POST", body: "fine" });
  assert.equal(await ok.text(), "fine");
});
