// HTTP manners, with curl as the client: a HEAD gets the headers and the Content-Length
// its GET gets, and no body; each failed request is one log line without its query.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";
import { TOKEN, putFifo, startWorker } from "./harness.mjs";

let worker;
before(async () => {
  worker = await startWorker();
  await putFifo(worker.base, "manners", "To: -\nContent-Type: text/csv\n\nprintf 'a,b\\n1,2\\n'\n");
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

test("a failed request is one log line: method, path without the query, status, time", async () => {
  await (await fetch(`${worker.base}/_/api/fifos/none-such?secret=xyz`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
  await (await fetch(`${worker.base}/manners/`)).text();
  const lines = worker.log().split("\n");
  assert.ok(lines.some((l) => /^GET \/_\/api\/fifos\/none-such 404 \d+ms$/.test(l.trim())), worker.log());
  assert.ok(!lines.some((l) => /^GET \/manners\/ 200/.test(l.trim())));
});
