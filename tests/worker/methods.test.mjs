// Any method, in and out: WebDAV's and others that the runtime's binding of nine methods
// would read as GET reach a FIFO's script as sent, and leave it as written (curl -X, a
// delivery's Method:).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { getLog, putFifo, startServer, startWorker, until } from "./harness.mjs";

const METHODS = ["PROPFIND", "MKCOL", "MOVE", "COPY", "PURGE", "PATCH", "DELETE"];
let worker, dest;

before(async () => {
  dest = await startServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.end(`${req.method}\n`);
  });
  worker = await startWorker();
});
after(async () => {
  await worker?.stop();
  await dest?.close();
});

test("a FIFO's script sees the method its client sent", async () => {
  await putFifo(worker.base, "echo-method", "To: -\n\nprintf '%s\\n' \"$REQUEST_METHOD\"\n");
  for (const method of METHODS) {
    const r = await fetch(`${worker.base}/echo-method/a`, { method, body: method === "DELETE" ? undefined : "x" });
    assert.equal(r.status, 200, method);
    assert.equal(await r.text(), `${method}\n`);
  }
  const log = await getLog(worker.base, "echo-method");
  const seen = log.map((e) => e.method).sort();
  assert.deepEqual(seen, [...METHODS].sort());
});

test("curl -X sends the method it names", async () => {
  await putFifo(
    worker.base,
    "curl-method",
    `To: -\n\nfor m in ${METHODS.join(" ")}; do curl -s -X "$m" ${dest.url}/m; done\n`,
  );
  const before = dest.requests.length;
  const r = await fetch(`${worker.base}/curl-method/`, { method: "POST" });
  assert.equal(r.status, 200);
  assert.equal(await r.text(), METHODS.map((m) => `${m}\n`).join(""));
  assert.deepEqual(dest.requests.slice(before).map((q) => q.method), METHODS);
});

test("a delivery's Method: goes out as written", async () => {
  await putFifo(worker.base, "send-propfind", `To: ${dest.url}/delivered\nMethod: PROPFIND\n`);
  const r = await fetch(`${worker.base}/send-propfind/`, { method: "POST", body: "<propfind/>" });
  assert.equal(r.status, 202);
  const got = await until(() => dest.requests.find((q) => q.url === "/delivered"), "the delivery");
  assert.equal(got.method, "PROPFIND");
  assert.equal(got.body.toString(), "<propfind/>");
});
