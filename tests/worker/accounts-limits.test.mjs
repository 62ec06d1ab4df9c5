// Sign-in requests are limited per address (5 links an hour, counted by the Account
// object) and per client address (10 a minute, by the SIGNIN_LIMITER binding).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startWorker, tempDir } from "./harness.mjs";

let worker;
before(async () => (worker = await startWorker({ env: { TMPDIR: tempDir("mkfifo-limits-") } })));
after(() => worker.stop());

const signin = (email) =>
  fetch(`${worker.base}/_/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: worker.base },
    body: new URLSearchParams({ email }).toString(),
  });

test("the sixth link for one address within the hour is 429; the eleventh request a minute from one client too", async () => {
  for (let i = 0; i < 5; i++) {
    const r = await signin("busy@example.com");
    assert.equal(r.status, 200, `link ${i + 1}: ${await r.text()}`);
  }
  let r = await signin("Busy@Example.com");
  assert.equal(r.status, 429);
  assert.ok(Number(r.headers.get("retry-after")) > 3000, r.headers.get("retry-after"));
  assert.match(await r.text(), /too many sign-in links/);
  for (let i = 0; i < 4; i++) {
    r = await signin(`other${i}@example.com`);
    assert.equal(r.status, 200, `other ${i}: ${await r.text()}`);
  }
  r = await signin("fresh@example.com");
  assert.equal(r.status, 429);
  assert.equal(r.headers.get("retry-after"), "60");
  await r.text();
});
