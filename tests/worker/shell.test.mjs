// /bin/sh: the public shell in the Worker, with its answers and its rate limit.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startWorker } from "./harness.mjs";

let worker;
before(async () => (worker = await startWorker()));
after(() => worker.stop());

let client = 0;
function sh(pathAndQuery, init = {}) {
  // Each test speaks from its own address, so the rate limit of one does not touch another.
  const headers = { "CF-Connecting-IP": `10.1.0.${++client}`, ...(init.headers || {}) };
  return fetch(`${worker.base}/bin/sh${pathAndQuery}`, { ...init, headers });
}

test("GET runs the URL-decoded query; stdout is the answer", async () => {
  const r = await sh(`?${encodeURIComponent("echo hello, world | tr a-z A-Z")}`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(r.headers.get("x-exit-status"), "0");
  assert.match(r.headers.get("x-steps"), /^\d+$/);
  assert.equal(await r.text(), "HELLO, WORLD\n");
});

test("POST runs the body; with a query, the body is stdin", async () => {
  let r = await sh("", { method: "POST", body: "printf '%s-%s\\n' a b; echo $((6 * 7))" });
  assert.equal(await r.text(), "a-b\n42\n");
  r = await sh(`?${encodeURIComponent("tr -d 0-9")}`, { method: "POST", body: "a1b2c3\n" });
  assert.equal(r.status, 200);
  assert.equal(await r.text(), "abc\n");
});

test("a failing script answers 422 with stdout, stderr and its exit status", async () => {
  const r = await sh(`?${encodeURIComponent("echo partial; echo oops >&2; exit 3")}`);
  assert.equal(r.status, 422);
  assert.equal(r.headers.get("x-exit-status"), "3");
  assert.equal(await r.text(), "partial\noops\n");
  const missing = await sh(`?${encodeURIComponent("no-such-command-here")}`);
  assert.equal(missing.status, 422);
  assert.equal(missing.headers.get("x-exit-status"), "127");
  assert.match(await missing.text(), /no-such-command-here: command not found/);
});

test("a script that does not parse answers 400", async () => {
  const r = await sh(`?${encodeURIComponent("if true; then echo x")}`);
  assert.equal(r.status, 400);
  assert.match(await r.text(), /syntax error/i);
});

test("a runaway script stops at the step limit", async () => {
  const r = await sh(`?${encodeURIComponent("while :; do :; done")}`);
  assert.equal(r.status, 422);
  assert.equal(r.headers.get("x-exit-status"), "124");
  assert.match(await r.text(), /step limit of \d+ steps exceeded/);
});

test("no script is a 400; other methods are 405", async () => {
  assert.equal((await sh("")).status, 400);
  assert.equal((await sh("?true", { method: "PUT", body: "x" })).status, 405);
});

test("more than 60 scripts a minute from one address get 429 with Retry-After", async () => {
  const headers = { "CF-Connecting-IP": "10.9.9.9" };
  let limited;
  for (let i = 0; i < 70 && !limited; i++) {
    const r = await fetch(`${worker.base}/bin/sh?true`, { headers });
    await r.text();
    if (r.status === 429) limited = r;
    else assert.equal(r.status, 200);
  }
  assert.ok(limited, "no 429 after 70 requests");
  assert.equal(limited.headers.get("retry-after"), "60");
  // Another address is still served.
  const other = await fetch(`${worker.base}/bin/sh?true`, { headers: { "CF-Connecting-IP": "10.9.9.10" } });
  assert.equal(other.status, 200);
});

test("deep recursion and nesting end with a clear error, not a crash", async () => {
  for (const script of [
    "f() { f; }; f",
    "f() { echo $(f); }; f",
    "f() { ( f ); }; f",
    `x=$(${"echo $(".repeat(300)}echo${")".repeat(300)})`,
  ]) {
    const r = await sh(`?${encodeURIComponent(script)}`);
    const text = await r.text();
    assert.ok(r.status === 422 || r.status === 400, `${script.slice(0, 40)}: ${r.status} ${text.slice(0, 200)}`);
    assert.match(text, /depth|nest|step limit|syntax/i, script.slice(0, 40));
  }
  const ok = await sh(`?${encodeURIComponent("echo still here")}`);
  assert.equal(await ok.text(), "still here\n");
});
