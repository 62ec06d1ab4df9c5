// Durable delivery: Requests accepted with 202 are delivered when the destination comes
// back, across a restart of workerd, each exactly as logged and none acknowledged twice.
import assert from "node:assert/strict";
import { test } from "node:test";
import { api, getLog, putFifo, startServer, startWorker, tempDir, until } from "./harness.mjs";

test("Requests wait out a dead destination and a restart, then arrive once each", { timeout: 120_000 }, async () => {
  let up = false;
  const acknowledged = new Map(); // Idempotency-Key -> body
  const dest = await startServer((req, res, body) => {
    if (!up) {
      res.writeHead(503);
      return res.end("down");
    }
    const key = req.headers["idempotency-key"];
    assert.ok(!acknowledged.has(key), `acknowledged twice: ${key}`);
    acknowledged.set(key, body.toString());
    res.writeHead(200);
    res.end("ok");
  });
  const persist = tempDir();
  const vars = { MKFIFO_RETRY_SCHEDULE: "1", MKFIFO_RETRY_FOR: "120" };
  let worker = await startWorker({ persist, vars });
  const ids = new Map();
  try {
    await putFifo(worker.base, "queue", `To: ${dest.url}/in\n\nprintf 'n=%s' "$(cat)"\n`);
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${worker.base}/queue/`, { method: "POST", body: String(i) });
      assert.equal(r.status, 202);
      ids.set((await r.json()).id, `n=${i}`);
    }
    // Some attempts fail while the destination is down.
    await until(() => dest.requests.length >= 10, "failed attempts");
  } finally {
    await worker.stop();
  }
  const failedBefore = dest.requests.length;
  up = true;
  worker = await startWorker({ persist, vars });
  try {
    await until(() => acknowledged.size === ids.size, "every Request delivered", 60_000);
    for (const [id, body] of ids) assert.equal(acknowledged.get(`${id}-0`), body, id);
    assert.ok(dest.requests.length > failedBefore);
    const log = await until(async () => {
      const l = await getLog(worker.base, "queue");
      return l.every((e) => e.delivery === "delivered") && l;
    }, "the log to say delivered");
    assert.equal(log.length, 10);
    for (const entry of log) {
      const one = await (await api(worker.base, "GET", `fifos/queue/log/${entry.request_id}`)).json();
      const attempts = one.deliveries[0].attempts;
      assert.equal(attempts.at(-1).status, 200);
      assert.ok(attempts.slice(0, -1).every((a) => a.status === 503));
    }
  } finally {
    await worker.stop();
    await dest.close();
  }
});
