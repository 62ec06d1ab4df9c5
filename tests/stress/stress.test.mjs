// The short stress run (scripts/test.sh stress): random bodies checked by their hash,
// answered and delivered; bad input; a slow client; wrangler dev killed in the middle of
// deliveries. bench/stress.mjs runs the same checks long, beside the load figures.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ROOT, startWorker } from "../worker/harness.mjs";
import {
  MiB,
  badInput,
  integrityAnswered,
  integrityDelivered,
  killDuringDelivery,
  reservedWords,
  slowClient,
} from "./checks.mjs";

let worker;
before(async (t) => {
  worker = await startWorker();
});
after(() => worker?.stop());

// Every failure at once, and the figures of a pass (shown by the spec reporter).
function pass(t, result) {
  const { failures, ...figures } = result;
  t.diagnostic(JSON.stringify(figures));
  assert.deepEqual(failures, [], JSON.stringify(figures));
}

test("300 random bodies up to 1 MiB from 64 clients, each answer its SHA-256", { timeout: 120_000 }, async (t) => {
  pass(t, await integrityAnswered(worker.base, { count: 300, max: MiB, clients: 64 }));
});

test("300 random bodies up to 1 MiB as async Requests: each accepted one delivered once, intact", { timeout: 180_000 }, async (t) => {
  const result = await integrityDelivered(worker.base, { count: 300, max: MiB, clients: 64, waitMs: 120_000 });
  pass(t, result);
  assert.equal(result.accepted, 300);
});

test("bad input gets a clear 4xx and nothing of it is stored", { timeout: 120_000 }, async (t) => {
  pass(t, await badInput(worker.base, { reserved: await reservedWords(ROOT) }));
});

test("a slow client (a byte every 100 ms) holds up no one", { timeout: 60_000 }, async (t) => {
  pass(t, await slowClient(worker.base, { bytes: 30, everyMs: 100, fast: 20, withinMs: 2000 }));
});

test("wrangler dev killed in the middle of 200 deliveries loses none of them", { timeout: 300_000 }, async (t) => {
  const result = await killDuringDelivery({ count: 200, clients: 16, delayMs: 20 });
  pass(t, result);
  assert.equal(result.accepted, 200);
  assert.ok(result.deliveredAtKill < result.accepted, "the kill came after every delivery");
});

