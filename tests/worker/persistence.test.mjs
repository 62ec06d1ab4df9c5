// State survives a restart of workerd: the FIFO, its variables and its log.
import assert from "node:assert/strict";
import { test } from "node:test";
import { api, getLog, putFifo, startWorker, tempDir } from "./harness.mjs";

test("a FIFO and its log are still there after workerd restarts", async () => {
  const persist = tempDir();
  let worker = await startWorker({ persist });
  try {
    await putFifo(worker.base, "durable", "");
    assert.equal((await api(worker.base, "PUT", "fifos/durable/vars/TOKEN", "abc")).status, 200);
    for (const body of ["one", "two", "three"]) {
      const r = await fetch(`${worker.base}/durable/`, { method: "POST", body });
      assert.equal(await r.text(), body);
    }
  } finally {
    await worker.stop();
  }
  worker = await startWorker({ persist });
  try {
    const fifo = await (await api(worker.base, "GET", "fifos/durable")).json();
    assert.equal(fifo.name, "durable");
    assert.deepEqual(fifo.vars.map((v) => v.name), ["TOKEN"]);
    const log = await getLog(worker.base, "durable", "?bodies=1");
    assert.deepEqual(log.map((e) => e.body), ["three", "two", "one"]);
    const r = await fetch(`${worker.base}/durable/`, { method: "POST", body: "four" });
    assert.equal(await r.text(), "four");
    assert.equal((await getLog(worker.base, "durable")).length, 4);
  } finally {
    await worker.stop();
  }
});
