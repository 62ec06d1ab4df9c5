// Passthrough answers: the entry module makes the object's outgoing request itself and
// streams the reply to the client unchanged.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, test } from "node:test";
import { getLog, putFifo, startServer, startWorker, until } from "./harness.mjs";

const big = crypto.randomBytes(5 * 1024 * 1024);
let worker, origin, errors;

before(async () => {
  origin = await startServer((req, res) => {
    if (req.url === "/big") {
      res.writeHead(200, { "Content-Type": "application/x-big", "X-Origin": "yes", ETag: '"v1"' });
      res.end(big);
    } else if (req.url === "/moved") {
      res.writeHead(302, { Location: "/big", "X-Origin": "moved" });
      res.end("see /big");
    } else if (req.url === "/teapot") {
      res.writeHead(418, { "Content-Type": "text/plain", "X-Origin": "teapot" });
      res.end("short and stout");
    } else if (req.url === "/slow") {
      setTimeout(() => res.end("late"), 12_000);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  // Errors-To: the reports of failed passthroughs, as JSON.
  errors = await startServer((req, res) => {
    res.writeHead(204);
    res.end();
  });
  worker = await startWorker();
});
after(async () => {
  await worker.stop();
  await origin.close();
  await errors.close();
});

async function relay(name, path) {
  await putFifo(worker.base, name, `To: ${origin.url}${path}\nReply-To: -\n`);
  return fetch(`${worker.base}/${name}/`, { redirect: "manual" });
}

test("a 5 MiB body arrives unchanged, with the origin's status and headers", async () => {
  const r = await relay("big", "/big");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "application/x-big");
  assert.equal(r.headers.get("x-origin"), "yes");
  assert.equal(r.headers.get("etag"), '"v1"');
  assert.ok(!r.headers.has("x-accel-redirect"));
  const got = Buffer.from(await r.arrayBuffer());
  assert.equal(got.length, big.length);
  assert.ok(got.equals(big));
});

test("a redirect is passed through, not followed", async () => {
  const r = await relay("moved", "/moved");
  assert.equal(r.status, 302);
  assert.equal(r.headers.get("location"), "/big");
  assert.equal(r.headers.get("x-origin"), "moved");
  assert.equal(await r.text(), "see /big");
});

test("an error status of the origin is passed through", async () => {
  const r = await relay("teapot", "/teapot");
  assert.equal(r.status, 418);
  assert.equal(await r.text(), "short and stout");
});

test("an origin that does not start answering within 10 s gives 503", { timeout: 30_000 }, async () => {
  const started = Date.now();
  const r = await relay("slow", "/slow");
  assert.equal(r.status, 503);
  assert.equal(r.headers.get("retry-after"), "1");
  assert.match(await r.text(), /within 10 s/);
  const took = Date.now() - started;
  assert.ok(took >= 9_000 && took < 12_000, `took ${took} ms`);
});

test("an origin that cannot be reached gives 503 with the cause", async () => {
  await putFifo(worker.base, "unreachable", "To: http://127.0.0.1:1/\nReply-To: -\n");
  const r = await fetch(`${worker.base}/unreachable/`);
  assert.equal(r.status, 503);
  assert.equal(r.headers.get("retry-after"), "1");
  assert.match(await r.text(), /^503 Service Unavailable: ./);
});

// The reports Errors-To has received for FIFO `name`.
const reportsOf = (name) =>
  errors.requests.map((r) => JSON.parse(r.body.toString())).filter((report) => report.fifo === name);

test("a failed passthrough is logged and reported to Errors-To; a good one is not", async () => {
  await putFifo(worker.base, "teapot-watched", `To: ${origin.url}/teapot\nReply-To: -\nErrors-To: ${errors.url}/r\n`);
  await putFifo(worker.base, "gone-watched", `To: http://127.0.0.1:1/\nReply-To: -\nErrors-To: ${errors.url}/r\n`);
  await putFifo(worker.base, "fine-watched", `To: ${origin.url}/moved\nReply-To: -\nErrors-To: ${errors.url}/r\n`);

  const fine = await fetch(`${worker.base}/fine-watched/`, { redirect: "manual" });
  assert.equal(fine.status, 302);
  await fine.text();

  // The client gets the origin's answer unchanged; Errors-To hears of the status.
  const teapot = await fetch(`${worker.base}/teapot-watched/`);
  assert.equal(teapot.status, 418);
  assert.equal(await teapot.text(), "short and stout");
  const [report] = await until(() => reportsOf("teapot-watched").length && reportsOf("teapot-watched"), "the report");
  assert.equal(report.status, 418);
  assert.match(report.error, /\/teapot answered 418/);
  const [entry] = await getLog(worker.base, "teapot-watched");
  assert.equal(report.request_id, entry.request_id);
  assert.equal(entry.outcome, "passthrough");
  assert.equal(entry.delivery, "failed");
  assert.match(entry.error, /answered 418/);

  // No answer at all: the client gets 503, Errors-To the cause.
  const gone = await fetch(`${worker.base}/gone-watched/`);
  assert.equal(gone.status, 503);
  await gone.text();
  const [lost] = await until(() => reportsOf("gone-watched").length && reportsOf("gone-watched"), "the report");
  assert.equal(lost.status, null);
  assert.match(lost.error, /^http:\/\/127\.0\.0\.1:1\/: ./);

  // By now a report of the good one would have arrived with the others.
  assert.deepEqual(reportsOf("fine-watched"), []);
  assert.equal(errors.requests.length, 2);
});
