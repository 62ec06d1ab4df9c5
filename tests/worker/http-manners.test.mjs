// HTTP manners, with curl as the client: a HEAD gets the headers and the Content-Length
// its GET gets, and no body; conditional GETs of FIFO answers with an ETag or a
// Last-Modified; each failed request is one log line without its query.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { TOKEN, putFifo, startWorker } from "./harness.mjs";

let worker;
before(async () => {
  worker = await startWorker();
  await putFifo(worker.base, "manners", "To: -\nContent-Type: text/csv\n\nprintf 'a,b\\n1,2\\n'\n");
  await putFifo(worker.base, "tagged", "To: -\nETag: auto\n\necho \"hello $REQUEST_METHOD\"\n");
  await putFifo(
    worker.base,
    "versioned",
    "To: -\n\nprintf 'Content-Type: text/plain\\nETag: W/\"v7\"\\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\\n\\nversion 7\\n'\n",
  );
});
after(() => worker.stop());

// The status line and headers curl prints for `args`, as a map of lower-case names.
function curl(...args) {
  const out = execFileSync("curl", ["-sS", "-D", "-", "-o", "/dev/null", ...args], { encoding: "latin1" });
  const [status, ...lines] = out.trim().split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => l.split(/:\s*/, 2)).map(([k, v]) => [k.toLowerCase(), v]));
  return { status: Number(status.split(" ")[1]), headers };
}

test("HEAD gives the headers and Content-Length of GET, and no body", async () => {
  const auth = ["-H", `Authorization: Bearer ${TOKEN}`];
  for (const [what, url, extra] of [
    ["a FIFO's answer", `${worker.base}/manners/`, []],
    ["the public shell", `${worker.base}/bin/sh?echo%20hello`, []],
    ["the home page", `${worker.base}/`, []],
    ["an API read", `${worker.base}/_/api/fifos/manners`, auth],
    ["an API failure", `${worker.base}/_/api/fifos/none-such`, auth],
    ["a refused name", `${worker.base}/Not_A_Name/`, []],
  ]) {
    const got = curl(...extra, url);
    const body = (await (await fetch(url, { headers: extra.length ? { Authorization: `Bearer ${TOKEN}` } : {} })).arrayBuffer()).byteLength;
    const head = curl("-I", ...extra, url);
    assert.equal(head.status, got.status, what);
    assert.equal(head.headers["content-type"], got.headers["content-type"], what);
    assert.equal(head.headers["content-length"], String(body), `${what}: ${JSON.stringify(head.headers)}`);
  }
  assert.equal(curl("-I", `${worker.base}/manners/`).headers["content-type"], "text/csv");
});

test("ETag: auto gives a strong tag of the answer; If-None-Match then answers 304, no body", () => {
  const url = `${worker.base}/tagged/`;
  const tag = `"${createHash("sha256").update("hello GET\n").digest("hex").slice(0, 32)}"`;
  assert.equal(curl(url).headers.etag, tag);
  for (const asked of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
    const r = curl("-H", `If-None-Match: ${asked}`, url);
    assert.equal(r.status, 304, asked);
    assert.equal(r.headers.etag, tag);
    assert.equal(r.headers["content-length"], undefined);
    assert.equal(r.headers["content-type"], undefined);
  }
  assert.equal(curl("-H", `If-None-Match: "other"`, url).status, 200);
  assert.equal(curl("-I", "-H", `If-None-Match: ${tag}`, url).status, 200, "a HEAD's own answer differs: hello HEAD");
  // Only GET and HEAD are conditional: the script of a POST has already run.
  assert.equal(curl("-X", "POST", "-H", `If-None-Match: ${tag}`, url).status, 200);
});

test("an ETag or Last-Modified set by the script (CGI style) answers If-None-Match and If-Modified-Since", () => {
  const url = `${worker.base}/versioned/`;
  assert.equal(curl("-H", 'If-None-Match: "v7"', url).status, 304);
  assert.equal(curl("-H", 'If-None-Match: "v8"', "-H", "If-Modified-Since: Mon, 07 Nov 1994 00:00:00 GMT", url).status, 200);
  assert.equal(curl("-H", "If-Modified-Since: Mon, 07 Nov 1994 00:00:00 GMT", url).status, 304);
  assert.equal(curl("-H", "If-Modified-Since: Sunday, 06-Nov-94 08:49:37 GMT", url).status, 304);
  assert.equal(curl("-H", "If-Modified-Since: Sat, 05 Nov 1994 00:00:00 GMT", url).status, 200);
  assert.equal(curl("-H", "If-Modified-Since: garbage", url).status, 200);
});

test("static files keep the platform's ETags", () => {
  const url = `${worker.base}/robots.txt`;
  const tag = curl(url).headers.etag;
  assert.ok(tag, "robots.txt has an ETag");
  assert.equal(curl("-H", `If-None-Match: ${tag}`, url).status, 304);
});

test("a failed request is one log line: method, path without the query, status, time", async () => {
  await (await fetch(`${worker.base}/_/api/fifos/none-such?secret=xyz`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
  await (await fetch(`${worker.base}/manners/`)).text();
  const lines = worker.log().split("\n");
  assert.ok(lines.some((l) => /^GET \/_\/api\/fifos\/none-such 404 \d+ms$/.test(l.trim())), worker.log());
  assert.ok(!lines.some((l) => /^GET \/manners\/ 200/.test(l.trim())));
});
