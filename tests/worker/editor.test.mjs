// The editor without a browser: its page is the owner's only; its WebSocket is refused
// without a session, from another origin and to another account; it pushes each logged
// Request at once, and a socket that comes back catches up by log id; each entry keeps
// what its script wrote to stderr.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import { sendMail, signIn, signinMail, startWorker, tempDir, until } from "./harness.mjs";
import { openLive } from "./editor-support.mjs";

let worker, ada, bob;
before(async () => {
  worker = await startWorker({ env: { TMPDIR: tempDir("mkfifo-editor-") } });
  ada = (await signIn(worker, "ada@example.com")).cookie;
  bob = (await signIn(worker, "bob@example.com")).cookie;
});
after(() => worker.stop());

const as = (cookie, method, p, body) =>
  fetch(`${worker.base}${p}`, { method, headers: { Cookie: cookie, Origin: worker.base }, body });

async function makeFifo(cookie, name, envelope) {
  const r = await as(cookie, "PUT", `/_/api/fifos/${name}`, envelope);
  assert.equal(r.status, 201, await r.text());
}

test("the editor's page is its owner's; nobody gets the sign-in form, others a 404", async () => {
  await makeFifo(ada, "ada-page", "To: -\n\ncat\n");
  let r = await as(ada, "GET", "/_/edit/ada-page");
  assert.equal(r.status, 200);
  const policy = r.headers.get("content-security-policy");
  assert.match(policy, /script-src 'self'(;|$)/);
  assert.match(policy, /frame-ancestors 'none'/);
  const html = await r.text();
  assert.match(html, /<body data-fifo="ada-page">/);
  assert.match(html, /<script type="module" src="\/assets\/editor.js"><\/script>/);
  assert.doesNotMatch(html, /\son[a-z]+=/, "no inline event handlers");
  r = await fetch(`${worker.base}/assets/editor.js`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type"), /javascript/);
  assert.ok((await r.text()).length > 100_000, "CodeMirror is bundled in");
  r = await fetch(`${worker.base}/_/edit/ada-page`);
  assert.equal(r.status, 200);
  assert.match(await r.text(), /action="\/_\/signin"/);
  r = await as(bob, "GET", "/_/edit/ada-page");
  assert.equal(r.status, 404);
  r = await as(ada, "GET", "/_/edit/no-such-fifo");
  assert.equal(r.status, 404);
  const home = await (await as(ada, "GET", "/")).text();
  assert.match(home, /<a href="\/_\/edit\/ada-page">edit<\/a>/);
});

test("a refused envelope names the line and column of its error", async () => {
  await makeFifo(ada, "ada-syntax", "To: -\n\ncat\n");
  const script = "echo ok\necho )\n";
  // bash names the script's line; the script starts on the envelope's line 3.
  let bashLine;
  try {
    execFileSync("bash", ["-n"], { input: script, stdio: ["pipe", "pipe", "pipe"] });
  } catch (e) {
    bashLine = Number(String(e.stderr).match(/line (\d+)/)[1]);
  }
  assert.equal(bashLine, 2);
  const r = await as(ada, "PUT", "/_/api/fifos/ada-syntax", `To: -\n\n${script}`);
  assert.equal(r.status, 400);
  const refused = await r.json();
  assert.equal(refused.line, bashLine + 2);
  assert.ok(refused.column >= 1, JSON.stringify(refused));
  assert.ok(refused.error.includes(`line ${refused.line}, column ${refused.column}`), refused.error);
});

test("the live log is refused without a session, from another origin, to another account", async () => {
  await makeFifo(ada, "ada-guarded", "To: -\n\ncat\n");
  const refusal = (headers) => openLive(worker, "ada-guarded", headers).then(
    (ws) => (ws.close(), 101),
    (e) => e.status,
  );
  assert.equal(await refusal({ Origin: worker.base }), 401);
  assert.equal(await refusal({ Cookie: ada, Origin: "https://evil.example" }), 403);
  assert.equal(await refusal({ Cookie: ada, Origin: worker.base, "Sec-Fetch-Site": "cross-site" }), 403);
  assert.equal(await refusal({ Cookie: bob, Origin: worker.base }), 404);
  assert.equal(await refusal({ Cookie: ada, Origin: worker.base }), 101);
  const plain = await as(ada, "GET", "/_/api/fifos/ada-guarded/live");
  assert.equal(plain.status, 426);
});

test("each Request appears at once; a socket that comes back catches up by log id", async () => {
  await makeFifo(ada, "ada-live", "To: -\n\ntr a-z A-Z\n");
  const send = async (sub, body) => {
    const r = await fetch(`${worker.base}/ada-live/${sub}`, { method: "POST", body });
    assert.equal(r.status, 200);
    await r.text();
  };
  await send("before", "0");
  let ws = await openLive(worker, "ada-live", { Cookie: ada, Origin: worker.base });
  ws.send(JSON.stringify({ type: "hello" }));
  const first = await ws.next((m) => m.type === "entries");
  assert.deepEqual(first.entries.map((e) => e.path), ["/ada-live/before"]);
  assert.equal(first.more, false);

  const sent = Date.now();
  await send("one", "1");
  const pushed = await ws.next((m) => m.type === "entry", 1000);
  assert.ok(Date.now() - sent < 1000);
  assert.equal(pushed.entry.path, "/ada-live/one");
  assert.equal(pushed.entry.method, "POST");
  assert.equal(pushed.entry.status, 200);
  assert.ok(pushed.entry.id > first.entries[0].id);
  assert.equal(pushed.entry.body, undefined, "bodies only when an entry is opened");

  // Keep-alive pings are answered; a message that is not one of the editor's gets an error.
  ws.send('{"type":"ping"}');
  assert.deepEqual(await ws.next((m) => m.type === "pong"), { type: "pong" });
  ws.send("hello?");
  assert.match((await ws.next((m) => m.type === "error")).message, /not a message/);
  // A socket that pinged is not taken for a quiet one.
  await send("pinged", "p");
  const afterPing = await ws.next((m) => m.type === "entry" && m.entry.path === "/ada-live/pinged", 1000);

  ws.close();
  await ws.closed;
  await send("two", "2");
  await send("three", "3");
  ws = await openLive(worker, "ada-live", { Cookie: ada, Origin: worker.base });
  ws.send(JSON.stringify({ type: "hello", after: afterPing.entry.id }));
  const missed = await ws.next((m) => m.type === "entries");
  assert.deepEqual(missed.entries.map((e) => e.path), ["/ada-live/two", "/ada-live/three"]);
  assert.equal(missed.more, false);

  // An opened entry has the Request's headers (credentials only by their length).
  const r = await fetch(`${worker.base}/ada-live/secret?q=1`, { method: "POST", headers: { Authorization: "Bearer abc123", "X-Note": "hi" }, body: "s" });
  await r.text();
  const entry = (await ws.next((m) => m.type === "entry" && m.entry.path === "/ada-live/secret")).entry;
  const opened = await (await as(ada, "GET", `/_/api/fifos/ada-live/log/${entry.request_id}`)).json();
  const headers = Object.fromEntries(opened.entry.headers);
  assert.equal(headers["x-note"], "hi");
  assert.equal(headers.authorization, "(13 bytes, not kept)");
  assert.equal(opened.entry.body, "s");
  assert.equal(opened.entry.query, "q=1");

  // Deleting the FIFO closes its editors.
  assert.equal((await as(ada, "DELETE", "/_/api/fifos/ada-live")).status, 204);
  assert.deepEqual(await ws.next((m) => m.type === "deleted"), { type: "deleted" });
  assert.equal((await ws.closed).code, 1000);
});

test("an editor left idle long enough for its object to hibernate still gets each Request", async () => {
  // Local workerd lets an object with only hibernatable sockets sleep after about 10 s
  // idle; the next event builds it anew, and it finds the sockets again.
  await makeFifo(ada, "ada-idle", "To: -\n\ncat\n");
  const ws = await openLive(worker, "ada-idle", { Cookie: ada, Origin: worker.base });
  ws.send(JSON.stringify({ type: "hello" }));
  await ws.next((m) => m.type === "entries");
  await new Promise((r) => setTimeout(r, 12_000));
  const r = await fetch(`${worker.base}/ada-idle/woken`, { method: "POST", body: "w" });
  assert.equal(await r.text(), "w");
  assert.equal((await ws.next((m) => m.type === "entry", 1000)).entry.path, "/ada-idle/woken");
  ws.send(JSON.stringify({ type: "hello", after: 0 }));
  assert.deepEqual((await ws.next((m) => m.type === "entries")).entries.map((e) => e.path), ["/ada-idle/woken"]);
  ws.close();
});

// What `sh` (the reference) writes to stderr for `script` over `input`.
const shStderr = (script, input = "") => spawnSync("sh", ["-c", script], { input }).stderr.toString("utf8");

test("each Request's log entry keeps what its script wrote to stderr", async () => {
  const opened = async (name, requestId) => (await (await as(ada, "GET", `/_/api/fifos/${name}/log/${requestId}`)).json()).entry;
  const newest = async (name) => (await (await as(ada, "GET", `/_/api/fifos/${name}/log?limit=1`)).json()).entries[0];
  const script = "echo out; echo oops >&2; echo 'and more' >&2\n";
  const want = shStderr(script);
  assert.equal(want, "oops\nand more\n");

  // A `To: -` answer (streamed, short enough to go out whole), seen by an open editor.
  await makeFifo(ada, "ada-stderr", `To: -\n\n${script}`);
  const ws = await openLive(worker, "ada-stderr", { Cookie: ada, Origin: worker.base });
  ws.send(JSON.stringify({ type: "hello" }));
  await ws.next((m) => m.type === "entries");
  let r = await fetch(`${worker.base}/ada-stderr/a`, { method: "POST", body: "x" });
  assert.equal(await r.text(), "out\n");
  const pushed = (await ws.next((m) => m.type === "entry", 1000)).entry;
  assert.equal(pushed.stderr, want);
  assert.equal(pushed.stderr_bytes, want.length);
  assert.equal((await opened("ada-stderr", pushed.request_id)).stderr, want);
  ws.close();

  // A whole answer (a header reads the output), a streamed one that fails after it started.
  await makeFifo(ada, "ada-stderr-whole", `To: -\nX-Length: $(wc -c)\n\n${script}`);
  r = await fetch(`${worker.base}/ada-stderr-whole/`, { method: "POST", body: "x" });
  assert.equal(r.headers.get("x-length"), "4");
  await r.text();
  assert.equal((await newest("ada-stderr-whole")).stderr, want);
  const late = "seq 100000; echo late >&2; exit 2\n";
  await makeFifo(ada, "ada-stderr-late", `To: -\n\n${late}`);
  r = await fetch(`${worker.base}/ada-stderr-late/`);
  await r.text().catch(() => "cut short");
  // Locally, a Request right after an answer whose stream errored may hang in wrangler
  // dev (an empty JS object's does too; README, The shell and its builtins): give it half a second.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const lateEntry = await until(() => newest("ada-stderr-late"), "the late failure's entry");
  assert.equal(lateEntry.outcome, "failed");
  assert.equal(lateEntry.stderr, shStderr(late));

  // A Request run later from the queue (its script fails: the Request is never sent on).
  const failing = "echo oops >&2; echo 'and more' >&2; exit 3\n";
  await makeFifo(ada, "ada-stderr-later", `To: https://example.invalid/\n\n${failing}`);
  r = await fetch(`${worker.base}/ada-stderr-later/`, { method: "POST", body: "x" });
  assert.equal(r.status, 202);
  const { id } = await r.json();
  const ran = await until(async () => {
    const e = await opened("ada-stderr-later", id);
    return e.delivery === "failed" && e;
  }, "the queued run");
  assert.equal(ran.stderr, shStderr(failing));
  assert.ok(ran.steps > 0);

  // Mail: a message whose `To: -` script writes to stderr and succeeds.
  const mailScript = 'echo "from $FROM" >&2; cat >/dev/null\n';
  await makeFifo(ada, "ada-stderr-mail", `To: -\n\n${mailScript}`);
  const raw = ["From: Ada <ada@example.com>", "To: ada-stderr-mail@mkfifo.localhost", "Subject: hi", `Message-ID: <${crypto.randomUUID()}@example.com>`, "", "text", ""].join("\r\n");
  r = await sendMail(worker.base, "ada@example.com", "ada-stderr-mail@mkfifo.localhost", raw);
  assert.equal(r.status, 200, await r.text());
  const mailed = await newest("ada-stderr-mail");
  assert.equal(mailed.source, "email");
  assert.equal(mailed.stderr, shStderr(mailScript.replace("$FROM", "ada@example.com")));

  // Much stderr: the log keeps 16 KiB (the list and the live log show its first KiB) and says how much there was.
  const much = "yes 'line of stderr' | head -c 20000 >&2\n";
  await makeFifo(ada, "ada-stderr-much", `To: -\n\n${much}`);
  await (await fetch(`${worker.base}/ada-stderr-much/`)).text();
  const whole = shStderr(much);
  assert.equal(whole.length, 20000);
  const listed = await newest("ada-stderr-much");
  assert.equal(listed.stderr_bytes, 20000);
  assert.equal(listed.stderr, whole.slice(0, 1024));
  assert.equal((await opened("ada-stderr-much", listed.request_id)).stderr, whole.slice(0, 16 * 1024));
});

test("signed out, the editor's sign-in form leads back to the editor; never to another site", async () => {
  await makeFifo(ada, "ada-back", "To: -\n\ncat\n");
  const form = await (await fetch(`${worker.base}/_/edit/ada-back`)).text();
  const next = form.match(/<input type="hidden" name="next" value="([^"]*)">/)?.[1];
  assert.equal(next, "/_/edit/ada-back");
  // Asks for a link with the form's fields, as the browser posts them (the site takes ten
  // such posts a minute from one client: the test makes seven).
  const askFor = (fields) =>
    signinMail(worker, fields.email, async () => {
      const r = await fetch(`${worker.base}/_/signin`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: worker.base },
        body: new URLSearchParams(fields).toString(),
      });
      assert.equal(r.status, 200, await r.text());
    }).then((mail) => mail.link);
  // Opens a link and presses its button: where the button leads, where signing in leads.
  const follow = async (link) => {
    const page = await (await fetch(link)).text();
    const action = page.match(/<form method="post" action="([^"]*)">/)[1].replaceAll("&amp;", "&");
    const done = await fetch(`${worker.base}${action}`, { method: "POST", headers: { Origin: worker.base }, redirect: "manual" });
    assert.equal(done.status, 303);
    return { action, location: done.headers.get("location"), cookie: done.headers.get("set-cookie").split(";")[0] };
  };
  const link = await askFor({ email: "ada@example.com", next });
  assert.match(link, /\/_\/signin\/[^?]+\?next=\/_\/edit\/ada-back$/);
  const back = await follow(link);
  assert.equal(back.location, "/_/edit/ada-back");
  assert.equal((await as(back.cookie, "GET", back.location)).status, 200);

  // Another site, however it is spelled, is never where a sign-in leads: home instead.
  const bads = ["//evil.example/", "https://evil.example/", "/\\evil.example", "/\t/evil.example", "edit"];
  for (const bad of bads) assert.doesNotMatch(await askFor({ email: "eve@example.com", next: bad }), /next=/, bad);
  const good = await askFor({ email: "eve2@example.com" });
  for (const bad of bads) {
    const page = await (await fetch(`${good}?next=${encodeURIComponent(bad)}`)).text();
    assert.match(page, /<form method="post" action="\/_\/signin\/[^"?]+">/, bad);
  }
  // The button's POST itself, with a forged next.
  const forged = await fetch(`${good}?next=${encodeURIComponent("//evil.example/")}`, { method: "POST", headers: { Origin: worker.base }, redirect: "manual" });
  assert.equal(forged.status, 303);
  assert.equal(forged.headers.get("location"), "/");
});
