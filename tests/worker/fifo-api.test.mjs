// The JSON API: FIFOs, variables, the Request log; names, tokens and unknown FIFOs.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TOKEN, api, getLog, putFifo, startWorker } from "./harness.mjs";

let worker;
before(async () => (worker = await startWorker()));
after(() => worker.stop());

test("home page and static files are served", async () => {
  const r = await fetch(`${worker.base}/`);
  assert.equal(r.status, 200);
  assert.match(await r.text(), /<h1>mkfifo<\/h1>/);
});

test("a FIFO with an empty envelope answers the body back, and logs the Request", async () => {
  assert.deepEqual(await putFifo(worker.base, "hello"), { name: "hello", created: true });
  const body = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
  const r = await fetch(`${worker.base}/hello/sub/path?q=1`, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/x-test" },
  });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "application/x-test");
  assert.deepEqual(Buffer.from(await r.arrayBuffer()), body);
  const [entry] = await getLog(worker.base, "hello");
  assert.equal(entry.method, "POST");
  assert.equal(entry.path, "/hello/sub/path");
  assert.equal(entry.status, 200);
  assert.equal(entry.request_bytes, body.length);
  assert.equal(entry.response_bytes, body.length);
  assert.equal(entry.source, "http");
  assert.match(entry.request_id, /^[0-9a-f]{32}$/);
});

test("every method reaches the FIFO", async () => {
  await putFifo(worker.base, "methods");
  for (const method of ["GET", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
    const r = await fetch(`${worker.base}/methods/`, { method });
    assert.equal(r.status, 200, method);
    await r.arrayBuffer();
  }
  const log = await getLog(worker.base, "methods");
  assert.deepEqual(log.map((e) => e.method), ["OPTIONS", "DELETE", "PATCH", "PUT", "GET"]);
});

test("GET shows the envelope; replacing it answers 200", async () => {
  await putFifo(worker.base, "shown", "To: -\n\ncat\n");
  const again = await api(worker.base, "PUT", "fifos/shown", "\ncat\n");
  assert.equal(again.status, 200);
  assert.deepEqual(await again.json(), { name: "shown", created: false });
  const r = await api(worker.base, "GET", "fifos/shown");
  assert.equal(r.status, 200);
  const fifo = await r.json();
  assert.equal(fifo.name, "shown");
  assert.equal(fifo.envelope, "\ncat\n");
});

test("variables are set and deleted, and their values never shown", async () => {
  await putFifo(worker.base, "secrets");
  const secret = "s3cr3t-value-that-must-not-leak";
  const put = await api(worker.base, "PUT", "fifos/secrets/vars/API_KEY", secret);
  assert.equal(put.status, 200);
  const text = await (await api(worker.base, "GET", "fifos/secrets")).text();
  assert.ok(!text.includes(secret) && !text.includes("s3cr3t"), text);
  const vars = JSON.parse(text).vars;
  assert.equal(vars.length, 1);
  assert.equal(vars[0].name, "API_KEY");
  assert.equal(vars[0].length, secret.length);
  assert.equal((await api(worker.base, "PUT", "fifos/secrets/vars/bad-name", "x")).status, 400);
  assert.equal((await api(worker.base, "DELETE", "fifos/secrets/vars/API_KEY")).status, 204);
  assert.equal((await api(worker.base, "DELETE", "fifos/secrets/vars/API_KEY")).status, 404);
  assert.deepEqual((await (await api(worker.base, "GET", "fifos/secrets")).json()).vars, []);
});

test("DELETE removes the FIFO with its log", async () => {
  await putFifo(worker.base, "doomed");
  await (await fetch(`${worker.base}/doomed/`, { method: "POST", body: "x" })).text();
  assert.equal((await api(worker.base, "DELETE", "fifos/doomed")).status, 204);
  assert.equal((await api(worker.base, "GET", "fifos/doomed")).status, 404);
  assert.equal((await api(worker.base, "GET", "fifos/doomed/log")).status, 404);
  const r = await fetch(`${worker.base}/doomed/`);
  assert.equal(r.status, 404);
  assert.match(await r.text(), /no FIFO named doomed/);
  await putFifo(worker.base, "doomed");
  assert.deepEqual(await getLog(worker.base, "doomed"), []);
});

test("unknown FIFOs are 404, bad names 400, reserved names refused", async () => {
  let r = await fetch(`${worker.base}/no-such-fifo/x`, { method: "POST", body: "x" });
  assert.equal(r.status, 404);
  assert.match(await r.text(), /no FIFO named no-such-fifo/);
  for (const bad of ["Upper", "under_score", "-dash", "a.b"]) {
    r = await fetch(`${worker.base}/${bad}/`);
    assert.equal(r.status, 400, bad);
    assert.match(await r.text(), /FIFO name/);
    r = await api(worker.base, "PUT", `fifos/${bad}`, "");
    assert.equal(r.status, 400, bad);
    assert.match((await r.json()).error, /name/);
  }
  r = await api(worker.base, "PUT", `fifos/${"a".repeat(64)}`, "");
  assert.equal(r.status, 400);
  for (const reserved of ["bin", "postmaster", "true", "sh"]) {
    r = await api(worker.base, "PUT", `fifos/${reserved}`, "");
    assert.equal(r.status, 400, reserved);
    assert.match((await r.json()).error, /reserved/);
  }
});

test("a missing or wrong token is 401 and changes nothing", async () => {
  await putFifo(worker.base, "guarded", "\ncat\n");
  const attempts = [
    {},
    { Authorization: "Bearer wrong" },
    { Authorization: `Bearer ${TOKEN}x` },
    { Authorization: TOKEN },
    { Authorization: `Basic ${TOKEN}` },
  ];
  for (const headers of attempts) {
    for (const [method, path, body] of [
      ["PUT", "fifos/guarded", "changed"],
      ["DELETE", "fifos/guarded"],
      ["PUT", "fifos/guarded/vars/X", "1"],
      ["GET", "fifos/guarded"],
      ["GET", "fifos/guarded/log"],
    ]) {
      const r = await fetch(`${worker.base}/_/api/${path}`, { method, headers, body });
      assert.equal(r.status, 401, `${method} ${path} ${JSON.stringify(headers)}`);
      assert.equal(r.headers.get("www-authenticate"), "Bearer");
      await r.text();
    }
  }
  const fifo = await (await api(worker.base, "GET", "fifos/guarded")).json();
  assert.equal(fifo.envelope, "\ncat\n");
  assert.deepEqual(fifo.vars, []);
});

test("bad envelopes are refused with the line and column", async () => {
  const r = await api(worker.base, "PUT", "fifos/broken", "To: x\nthis is not a header\n");
  assert.equal(r.status, 400);
  assert.match((await r.json()).error, /line 2, column 1/);
  assert.equal((await api(worker.base, "GET", "fifos/broken")).status, 404);
  // A bad script is refused at its place in the envelope, not when a Request comes.
  const script = await api(worker.base, "PUT", "fifos/broken", "To: -\n\necho ok\nif true; then\n");
  assert.equal(script.status, 400);
  assert.match((await script.json()).error, /line [45]/);
  const selector = await api(worker.base, "PUT", "fifos/broken", "To: -\n$x = .a[\n");
  assert.equal(selector.status, 400);
  assert.match((await selector.json()).error, /line 2/);
});

test("the log is bounded, newest first, and pages with before=", async () => {
  await putFifo(worker.base, "paged");
  for (let i = 0; i < 5; i++) await (await fetch(`${worker.base}/paged/${i}`)).text();
  const first = await getLog(worker.base, "paged", "?limit=2");
  assert.deepEqual(first.map((e) => e.path), ["/paged/4", "/paged/3"]);
  const next = await getLog(worker.base, "paged", `?limit=2&before=${first[1].id}`);
  assert.deepEqual(next.map((e) => e.path), ["/paged/2", "/paged/1"]);
  const withBody = await getLog(worker.base, "paged", "?limit=1&bodies=1");
  assert.equal(withBody[0].body, "");
});

test("unknown API paths and methods", async () => {
  assert.equal((await api(worker.base, "GET", "nothing")).status, 404);
  assert.equal((await api(worker.base, "POST", "fifos/x")).status, 405);
});

test("what a FIFO's object remembers between Requests changes with its envelope, variables and deletion", async () => {
  const say = async () => {
    const r = await fetch(`${worker.base}/remembers/`, { method: "POST", body: "x" });
    return [r.status, (await r.text()).trim()];
  };
  await putFifo(worker.base, "remembers", 'To: -\n\necho "one $GREETING"\n');
  assert.deepEqual(await say(), [200, "one"]);
  assert.equal((await api(worker.base, "PUT", "fifos/remembers/vars/GREETING", "hi")).status, 200);
  assert.deepEqual(await say(), [200, "one hi"]);
  assert.equal((await api(worker.base, "PUT", "fifos/remembers/vars/GREETING", "ho")).status, 200);
  assert.deepEqual(await say(), [200, "one ho"]);
  assert.equal((await api(worker.base, "DELETE", "fifos/remembers/vars/GREETING")).status, 204);
  assert.deepEqual(await say(), [200, "one"]);
  await putFifo(worker.base, "remembers", 'To: -\n\necho "two $GREETING"\n');
  assert.deepEqual(await say(), [200, "two"]);
  assert.equal((await api(worker.base, "DELETE", "fifos/remembers")).status, 204);
  assert.equal((await say())[0], 404);
  assert.deepEqual(await getLog(worker.base, "remembers").catch(() => "gone"), "gone");
  await putFifo(worker.base, "remembers", 'To: -\n\necho three\n');
  assert.deepEqual(await say(), [200, "three"]);
  // Each answered Request is in the log as soon as it is asked for, even though its entry
  // is written just after its answer.
  const log = await getLog(worker.base, "remembers");
  assert.deepEqual(log.map((e) => [e.status, e.outcome]), [[200, "answered"]]);
});

test("the log entries of answers sent one right after another are all there, in order", async () => {
  await putFifo(worker.base, "quick", "To: -\n");
  const sent = [];
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${worker.base}/quick/${i}`, { method: "POST", body: String(i) });
    assert.equal(await r.text(), String(i));
    sent.push(`/quick/${i}`);
  }
  const log = await getLog(worker.base, "quick", "?limit=100");
  assert.deepEqual(log.map((e) => e.path).reverse(), sent);
});
