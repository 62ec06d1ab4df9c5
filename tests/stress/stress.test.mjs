// The short stress run (scripts/test.sh stress): random bodies checked by their hash,
// answered and delivered; bad input and fuzzed envelopes; a slow client; destinations
// down, hanging and healthy side by side; an object's panic and wrangler dev killed in
// the middle of deliveries. bench/stress.mjs runs the same checks long, beside the load
// figures.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ROOT, startWorker } from "../worker/harness.mjs";
import {
  MiB,
  badInput,
  destinationFaults,
  integrityAnswered,
  integrityDelivered,
  killDuringDelivery,
  malformedEnvelopes,
  panicDuringDelivery,
  reservedWords,
  slowClient,
} from "./checks.mjs";

let worker;
// Short send time-outs and retries, so that the destinations' faults play out in seconds.
const FAULT_VARS = { MKFIFO_SEND_TIMEOUT: "2", MKFIFO_RETRY_SCHEDULE: "1" };
before(async (t) => {
  worker = await startWorker({ vars: FAULT_VARS });
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

test("300 envelopes of seeded fragments: each taken, or refused at its place with nothing changed", { timeout: 120_000 }, async (t) => {
  const result = await malformedEnvelopes(worker.base, { count: 300 });
  pass(t, result);
  assert.ok(result.taken > 0 && result.refused > 0, JSON.stringify(result));
});

test("a destination down, one that hangs, and a healthy one: all delivered once, the healthy one first", { timeout: 120_000 }, async (t) => {
  pass(t, await destinationFaults(worker.base, { count: 20, downMs: 5000, timeoutMs: 2000 }));
});

test("an object's panic in the middle of 60 deliveries loses none of them", { timeout: 120_000 }, async (t) => {
  const result = await panicDuringDelivery(worker.base, { count: 60, delayMs: 50 });
  pass(t, result);
  assert.equal(result.accepted, 60);
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

