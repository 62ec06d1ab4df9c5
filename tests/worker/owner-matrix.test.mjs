// Every route of the site and the JSON API, asked by each kind of caller: the owner (by
// its session cookie and by its API token), another account, nobody, and the operator.
// The expected statuses are the security model of the README's Accounts section: a FIFO
// another account may not see is a 404, nobody is a 401, the operator's token reaches
// every FIFO but no account's own routes (403). Then the same writes with the owner's
// cookie from a foreign origin (403, nothing changes), and a deleted account's
// credentials (401).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TOKEN, signIn, startWorker, tempDir } from "./harness.mjs";

let worker;
const callers = {};
const CALLERS = ["owner", "ownerToken", "other", "anonymous", "operator"];

async function call(caller, method, path, body, headers = {}) {
  const r = await fetch(`${worker.base}${path}`, { method, headers: { ...callers[caller], ...headers }, body, redirect: "manual" });
  return { status: r.status, text: await r.text() };
}

async function ok(caller, method, path, body, headers) {
  const r = await call(caller, method, path, body, headers);
  assert.ok(r.status < 400, `${caller} ${method} ${path}: ${r.status} ${r.text}`);
  return r.text ? JSON.parse(r.text) : null;
}

let logId;
const ownerTokens = {};

before(async () => {
  worker = await startWorker({ env: { TMPDIR: tempDir("mkfifo-matrix-") }, vars: { MKFIFO_STATS: "1" } });
  const owner = await signIn(worker, "matrix-owner@example.com");
  const other = await signIn(worker, "matrix-other@example.com");
  callers.owner = { Cookie: owner.cookie, Origin: worker.base };
  callers.other = { Cookie: other.cookie, Origin: worker.base };
  callers.anonymous = {};
  callers.operator = { Authorization: `Bearer ${TOKEN}` };
  const made = await ok("owner", "POST", "/_/api/tokens", JSON.stringify({ name: "matrix" }));
  callers.ownerToken = { Authorization: `Bearer ${made.token}` };

  await ok("owner", "PUT", "/_/api/fifos/mx-owned", "To: -\n\ncat\n");
  await ok("owner", "PUT", "/_/api/fifos/mx-owned/vars/KEEP", "a secret value");
  for (const c of CALLERS) {
    await ok("owner", "PUT", `/_/api/fifos/mx-del-${c.toLowerCase()}`, "");
    await ok("owner", "PUT", `/_/api/fifos/mx-owned/vars/GONE_${c.toUpperCase()}`, "x");
    ownerTokens[c] = (await ok("owner", "POST", "/_/api/tokens", JSON.stringify({ name: `spare-${c}` }))).id;
  }
  const r = await fetch(`${worker.base}/mx-owned/`, { method: "POST", body: "a Request" });
  assert.equal(await r.text(), "a Request");
  logId = (await ok("owner", "GET", "/_/api/fifos/mx-owned/log")).entries[0].request_id;
});
after(() => worker.stop());

const form = (fields) => [new URLSearchParams(fields).toString(), { "Content-Type": "application/x-www-form-urlencoded" }];

// [method, path(caller), body(caller) or [body, headers], statuses by caller]
const ROUTES = [
  ["GET", () => "/", null, { owner: 200, ownerToken: 200, other: 200, anonymous: 200, operator: 200 }],
  ["POST", () => "/mx-owned/", () => "anyone may send", { owner: 200, ownerToken: 200, other: 200, anonymous: 200, operator: 200 }],
  ["GET", () => "/_/signin/forged", null, { owner: 400, ownerToken: 400, other: 400, anonymous: 400, operator: 400 }],
  ["GET", () => "/_/api/account", null, { owner: 200, ownerToken: 200, other: 200, anonymous: 401, operator: 403 }],
  ["GET", () => "/_/api/fifos", null, { owner: 200, ownerToken: 200, other: 200, anonymous: 401, operator: 403 }],
  // A library envelope (?from=s3) is a PUT of the FIFO like any other.
  ["PUT", (c) => `/_/api/fifos/mx-lib-${c.toLowerCase()}?from=s3`, null, { owner: 201, ownerToken: 201, other: 201, anonymous: 401, operator: 201 }],
  ["PUT", () => "/_/api/fifos/mx-owned?from=s3", null, { owner: 200, ownerToken: 200, other: 409, anonymous: 401, operator: 200 }],
  ["PUT", () => "/_/api/fifos/mx-owned", () => "To: -\n\ncat\n", { owner: 200, ownerToken: 200, other: 409, anonymous: 401, operator: 200 }],
  ["GET", () => "/_/api/fifos/mx-owned", null, { owner: 200, ownerToken: 200, other: 404, anonymous: 401, operator: 200 }],
  ["PUT", () => "/_/api/fifos/mx-owned/vars/SET", () => "v", { owner: 200, ownerToken: 200, other: 404, anonymous: 401, operator: 200 }],
  ["DELETE", (c) => `/_/api/fifos/mx-owned/vars/GONE_${c.toUpperCase()}`, null, { owner: 204, ownerToken: 204, other: 404, anonymous: 401, operator: 204 }],
  ["GET", () => "/_/api/fifos/mx-owned/log", null, { owner: 200, ownerToken: 200, other: 404, anonymous: 401, operator: 200 }],
  ["GET", () => `/_/api/fifos/mx-owned/log/${logId}`, null, { owner: 200, ownerToken: 200, other: 404, anonymous: 401, operator: 200 }],
  ["POST", () => `/_/api/fifos/mx-owned/log/${logId}/replay`, null, { owner: 202, ownerToken: 202, other: 404, anonymous: 401, operator: 202 }],
  ["POST", () => "/_/api/fifos/mx-owned/replay?failed_since=0", null, { owner: 200, ownerToken: 200, other: 404, anonymous: 401, operator: 200 }],
  ["DELETE", (c) => `/_/api/fifos/mx-del-${c.toLowerCase()}`, null, { owner: 204, ownerToken: 204, other: 404, anonymous: 401, operator: 204 }],
  ["GET", () => "/_/edit/mx-owned", null, { owner: 200, ownerToken: 200, other: 404, anonymous: 200, operator: 200 }],
  ["GET", () => "/_/api/fifos/mx-owned/live", null, { owner: 426, ownerToken: 426, other: 404, anonymous: 401, operator: 426 }],
  ["GET", () => "/_/api/tokens", null, { owner: 200, ownerToken: 200, other: 200, anonymous: 401, operator: 403 }],
  ["POST", () => "/_/api/tokens", (c) => JSON.stringify({ name: `new-${c}` }), { owner: 201, ownerToken: 201, other: 201, anonymous: 401, operator: 403 }],
  ["DELETE", (c) => `/_/api/tokens/${ownerTokens[c]}`, null, { owner: 204, ownerToken: 204, other: 404, anonymous: 401, operator: 403 }],
  ["POST", () => "/_/fifos", (c) => form({ name: `mx-form-${c.toLowerCase()}`, envelope: "" }), { owner: 303, ownerToken: 303, other: 303, anonymous: 401, operator: 403 }],
  ["POST", () => "/_/fifos", () => form({ name: "mx-owned", envelope: "" }), { owner: 409, ownerToken: 409, other: 409, anonymous: 401, operator: 403 }],
  ["GET", () => "/_/stats", null, { owner: 403, ownerToken: 403, other: 403, anonymous: 401, operator: 200 }],
  ["GET", () => "/_/stats/fifo/mx-owned", null, { owner: 403, ownerToken: 403, other: 403, anonymous: 401, operator: 200 }],
];

test("every route answers each caller as the security model says", async () => {
  const wrong = [];
  for (const [method, path, body, want] of ROUTES) {
    for (const c of CALLERS) {
      const made = body ? body(c) : undefined;
      const [payload, headers] = Array.isArray(made) ? made : [made, {}];
      const r = await call(c, method, path(c), payload, headers);
      if (r.status !== want[c]) wrong.push(`${c} ${method} ${path(c)}: ${r.status}, not ${want[c]} (${r.text.slice(0, 120)})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("what the routes answer belongs to the caller", async () => {
  assert.equal((await ok("other", "GET", "/_/api/account")).email, "matrix-other@example.com");
  assert.equal((await ok("ownerToken", "GET", "/_/api/account")).email, "matrix-owner@example.com");
  const names = async (c) => (await ok(c, "GET", "/_/api/fifos")).fifos.map((f) => f.name);
  assert.ok((await names("owner")).includes("mx-owned"));
  assert.ok(!(await names("other")).includes("mx-owned"));
  assert.ok((await names("other")).includes("mx-form-other"));
  const tokens = async (c) => (await ok(c, "GET", "/_/api/tokens")).tokens.map((t) => t.name);
  assert.ok(!(await tokens("other")).includes("matrix"));
  // The denied deletes left their FIFO, variable and token in place; the operator's
  // change to the envelope left its owner.
  for (const c of ["other", "anonymous"]) {
    await ok("owner", "GET", `/_/api/fifos/mx-del-${c}`);
  }
  const fifo = await ok("owner", "GET", "/_/api/fifos/mx-owned");
  assert.deepEqual(fifo.vars.map((v) => v.name), ["GONE_ANONYMOUS", "GONE_OTHER", "KEEP", "SET"]);
  assert.ok((await tokens("owner")).includes("spare-other"));
  assert.ok(!JSON.stringify(fifo).includes("a secret value"), "a variable's value is never shown");
});

test("writes with the owner's cookie from another origin are 403 and change nothing", async () => {
  const foreign = { Origin: "https://evil.example" };
  const writes = [
    ["PUT", "/_/api/fifos/mx-owned", "To: -\n\nrev\n"],
    ["PUT", "/_/api/fifos/mx-owned?from=s3"],
    ["DELETE", "/_/api/fifos/mx-owned"],
    ["PUT", "/_/api/fifos/mx-owned/vars/KEEP", "changed"],
    ["DELETE", "/_/api/fifos/mx-owned/vars/KEEP"],
    ["POST", `/_/api/fifos/mx-owned/log/${logId}/replay`],
    ["POST", "/_/api/fifos/mx-owned/replay?failed_since=0"],
    ["POST", "/_/api/tokens", JSON.stringify({ name: "forged" })],
    ["DELETE", `/_/api/tokens/${ownerTokens.other}`],
    ["DELETE", "/_/api/account"],
    ["POST", "/_/fifos", ...form({ name: "mx-forged", envelope: "" })],
    ["POST", "/_/signout"],
  ];
  for (const [method, path, body, headers] of writes) {
    for (const how of [foreign, { "Sec-Fetch-Site": "cross-site" }]) {
      const r = await fetch(`${worker.base}${path}`, {
        method,
        headers: { Cookie: callers.owner.Cookie, ...headers, ...how },
        body,
        redirect: "manual",
      });
      assert.equal(r.status, 403, `${method} ${path} with ${JSON.stringify(how)}`);
      await r.arrayBuffer();
    }
  }
  const fifo = await ok("owner", "GET", "/_/api/fifos/mx-owned");
  assert.equal(fifo.envelope, "To: -\n\ncat\n");
  assert.deepEqual(fifo.vars.filter((v) => v.name === "KEEP").map((v) => v.length), ["a secret value".length]);
  const tokens = (await ok("owner", "GET", "/_/api/tokens")).tokens.map((t) => t.name);
  assert.ok(tokens.includes("spare-other") && !tokens.includes("forged"));
  assert.equal((await call("owner", "GET", "/_/api/fifos/mx-forged")).status, 404);
});

test("a deleted account's cookie and tokens are 401 and its FIFOs are gone", async () => {
  const leaving = await signIn(worker, "matrix-leaving@example.com");
  const cookie = { Cookie: leaving.cookie, Origin: worker.base };
  let r = await fetch(`${worker.base}/_/api/tokens`, { method: "POST", headers: cookie, body: JSON.stringify({ name: "t" }) });
  const token = { Authorization: `Bearer ${(await r.json()).token}` };
  r = await fetch(`${worker.base}/_/api/fifos/mx-leaving`, { method: "PUT", headers: token, body: "" });
  assert.equal(r.status, 201);
  assert.equal((await call("anonymous", "DELETE", "/_/api/account")).status, 401);
  assert.equal((await call("operator", "DELETE", "/_/api/account")).status, 403);
  r = await fetch(`${worker.base}/_/api/account`, { method: "DELETE", headers: cookie });
  assert.equal(r.status, 204, await r.text());
  for (const headers of [cookie, token]) {
    r = await fetch(`${worker.base}/_/api/fifos`, { headers });
    assert.equal(r.status, 401);
    await r.arrayBuffer();
  }
  assert.equal((await call("operator", "GET", "/_/api/fifos/mx-leaving")).status, 404);
  // Signing out ends the owner's session: its cookie is then 401.
  r = await fetch(`${worker.base}/_/signout`, { method: "POST", headers: callers.owner, redirect: "manual" });
  assert.equal(r.status, 303);
  assert.equal((await call("owner", "GET", "/_/api/account")).status, 401);
  assert.equal((await call("ownerToken", "GET", "/_/api/account")).status, 200);
});

test("no secret reaches the log: cookies, tokens, variable values, sign-in links", () => {
  const secrets = [
    callers.owner.Cookie.split(".")[1],
    callers.other.Cookie.split(".")[1],
    callers.ownerToken.Authorization.split(".")[1],
    "a secret value",
  ];
  for (const secret of secrets) assert.ok(secret.length >= 14 && !worker.log().includes(secret), secret);
  // The dev server's own access lines name each path, a used sign-in link's too (as a
  // platform's request log would); what the Worker itself logs never does.
  const own = worker.log().replace(/^\[wrangler:info\] [A-Z]+ \S+ \d{3} .*$/gm, "");
  assert.doesNotMatch(own, /\/_\/signin\/[0-9a-f]{64}\.[A-Za-z0-9_-]{20,}/);
});
