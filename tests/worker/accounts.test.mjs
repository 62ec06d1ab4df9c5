// Accounts as a person uses them: sign in with an address (the link read from the .eml
// file that local send_email writes, by Python's email package), confirm, make a FIFO,
// send it a Request, read its log; another account and nobody cannot see it; API tokens
// work until revoked; writes from another origin change nothing.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TOKEN, signIn, startWorker, tempDir } from "./harness.mjs";

let worker;
before(async () => (worker = await startWorker({ env: { TMPDIR: tempDir("mkfifo-accounts-") } })));
after(() => worker.stop());

// Signs in as a browser would, checking each step the person sees.
async function signInChecked(email) {
  const { cookie, setCookie, link, message } = await signIn(worker, email);
  assert.equal(message.headers.to[0], email.toLowerCase());
  assert.ok(link.startsWith(worker.base), link);
  for (const attr of ["HttpOnly", "Secure", "SameSite=Lax", "Path=/"]) assert.ok(setCookie.includes(attr), setCookie);
  // The page the link opens has the button, and the link works once.
  const again = await fetch(link, { method: "POST", headers: { Origin: worker.base }, redirect: "manual" });
  assert.equal(again.status, 400);
  assert.match(await again.text(), /used already/);
  return { cookie, link };
}

const form = (fields) => new URLSearchParams(fields).toString();
const formHeaders = (extra = {}) => ({ "Content-Type": "application/x-www-form-urlencoded", Origin: worker.base, ...extra });

const asCookie = (cookie, method, p, body) =>
  fetch(`${worker.base}${p}`, { method, headers: { Cookie: cookie, Origin: worker.base }, body });
const asToken = (token, method, p, body) =>
  fetch(`${worker.base}${p}`, { method, headers: { Authorization: `Bearer ${token}` }, body });

test("sign in, make a FIFO, use it, read its log; others cannot see it", async () => {
  const ada = await signInChecked("Ada@Example.com");
  const home = await (await fetch(`${worker.base}/`, { headers: { Cookie: ada.cookie } })).text();
  assert.match(home, /Signed in as <strong>ada@example.com<\/strong>/);

  let r = await asCookie(ada.cookie, "PUT", "/_/api/fifos/ada-shout", "To: -\n\ntr a-z A-Z\n");
  assert.equal(r.status, 201, await r.text());
  r = await fetch(`${worker.base}/ada-shout/`, { method: "POST", body: "hello" });
  assert.equal(await r.text(), "HELLO");
  r = await asCookie(ada.cookie, "GET", "/_/api/fifos/ada-shout/log");
  assert.equal(r.status, 200);
  assert.equal((await r.json()).entries.length, 1);
  r = await asCookie(ada.cookie, "GET", "/_/api/fifos");
  assert.deepEqual((await r.json()).fifos.map((f) => f.name), ["ada-shout"]);
  assert.match(await (await fetch(`${worker.base}/`, { headers: { Cookie: ada.cookie } })).text(), /\/ada-shout\//);

  const bob = await signInChecked("bob@example.org");
  for (const [method, p, body] of [
    ["GET", "/_/api/fifos/ada-shout"],
    ["GET", "/_/api/fifos/ada-shout/log"],
    ["DELETE", "/_/api/fifos/ada-shout"],
    ["PUT", "/_/api/fifos/ada-shout/vars/X", "1"],
  ]) {
    r = await asCookie(bob.cookie, method, p, body);
    assert.equal(r.status, 404, `bob ${method} ${p}`);
    r = await fetch(`${worker.base}${p}`, { method, body });
    assert.equal(r.status, 401, `nobody ${method} ${p}`);
  }
  r = await asCookie(bob.cookie, "PUT", "/_/api/fifos/ada-shout", "\ncat\n");
  assert.equal(r.status, 409);
  assert.deepEqual((await (await asCookie(bob.cookie, "GET", "/_/api/fifos")).json()).fifos, []);
  // The operator sees it.
  r = await asToken(TOKEN, "GET", "/_/api/fifos/ada-shout");
  assert.equal((await r.json()).envelope, "To: -\n\ntr a-z A-Z\n");
});

test("a write with the cookie from another origin changes nothing", async () => {
  const eve = await signInChecked("eve@example.net");
  let r = await fetch(`${worker.base}/_/api/fifos/eve-target`, {
    method: "PUT",
    headers: { Cookie: eve.cookie, Origin: "https://evil.example" },
    body: "\ncat\n",
  });
  assert.equal(r.status, 403);
  r = await fetch(`${worker.base}/_/api/fifos/eve-target`, {
    method: "PUT",
    headers: { Cookie: eve.cookie, "Sec-Fetch-Site": "cross-site" },
    body: "\ncat\n",
  });
  assert.equal(r.status, 403);
  r = await asCookie(eve.cookie, "GET", "/_/api/fifos/eve-target");
  assert.equal(r.status, 404);
  r = await fetch(`${worker.base}/_/signout`, { method: "POST", headers: { Cookie: eve.cookie, Origin: "https://evil.example" } });
  assert.equal(r.status, 403);
});

test("API tokens act as the account until revoked; sign-out ends the session", async () => {
  const cy = await signInChecked("cy@example.com");
  let r = await asCookie(cy.cookie, "POST", "/_/api/tokens", JSON.stringify({ name: "ci" }));
  assert.equal(r.status, 201);
  const made = await r.json();
  assert.match(made.token, /^mkf_[0-9a-f]{64}\.[A-Za-z0-9_-]{43}$/);
  r = await asToken(made.token, "PUT", "/_/api/fifos/cy-echo", "");
  assert.equal(r.status, 201);
  r = await asCookie(cy.cookie, "GET", "/_/api/tokens");
  const list = (await r.json()).tokens;
  assert.deepEqual(list.map((t) => t.name), ["ci"]);
  assert.ok(!JSON.stringify(list).includes(made.token.split(".")[1]));
  r = await asCookie(cy.cookie, "DELETE", `/_/api/tokens/${made.id}`);
  assert.equal(r.status, 204);
  r = await asToken(made.token, "GET", "/_/api/fifos/cy-echo");
  assert.equal(r.status, 401);
  r = await fetch(`${worker.base}/_/signout`, { method: "POST", headers: { Cookie: cy.cookie, Origin: worker.base }, redirect: "manual" });
  assert.equal(r.status, 303);
  r = await asCookie(cy.cookie, "GET", "/_/api/fifos/cy-echo");
  assert.equal(r.status, 401);
  // Secrets never reach the log.
  assert.ok(!worker.log().includes(made.token.split(".")[1]));
  assert.ok(!worker.log().includes(cy.cookie.split(".")[1]));
});

test("bad addresses and forged links get a clear page", async () => {
  let r = await fetch(`${worker.base}/_/signin`, { method: "POST", headers: formHeaders(), body: form({ email: "not-an-address" }) });
  assert.equal(r.status, 400);
  assert.match(await r.text(), /not an email address/);
  r = await fetch(`${worker.base}/_/signin/${"a".repeat(64)}.${"b".repeat(43)}`);
  assert.equal(r.status, 400);
  assert.match(await r.text(), /not valid/);
  r = await fetch(`${worker.base}/_/signin/garbage`);
  assert.equal(r.status, 400);
});
