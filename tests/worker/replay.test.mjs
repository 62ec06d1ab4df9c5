// Replays: Requests that failed at a destination are sent again through the fixed
// envelope, by the owner's API token, and arrive once each, with new Idempotency-Keys and
// Replay-Of naming the Request they replay; whole bodies past the log's 64 KiB too; a body
// no longer kept is said to be gone (410).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { signIn, startServer, startWorker, tempDir, until } from "./harness.mjs";

let worker;
let auth;

async function owner(method, path, body) {
  const r = await fetch(`${worker.base}/_/api/${path}`, { method, headers: auth, body });
  const text = await r.text();
  return { status: r.status, data: text ? JSON.parse(text) : null, text };
}

before(async () => {
  worker = await startWorker({ env: { TMPDIR: tempDir("mkfifo-replay-") } });
  const { cookie } = await signIn(worker, "replayer@example.com");
  const made = await fetch(`${worker.base}/_/api/tokens`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: worker.base },
    body: JSON.stringify({ name: "replays" }),
  });
  auth = { Authorization: `Bearer ${(await made.json()).token}` };
});
after(() => worker.stop());

test("failed Requests are replayed through the fixed envelope and arrive once each", { timeout: 120_000 }, async () => {
  const arrived = new Map(); // Idempotency-Key -> the request
  const dest = await startServer((req, res, body) => {
    if (!req.url.startsWith("/in")) {
      res.writeHead(404);
      return res.end("no such place");
    }
    const key = req.headers["idempotency-key"];
    assert.ok(!arrived.has(key), `acknowledged twice: ${key}`);
    arrived.set(key, { url: req.url, headers: req.headers, body });
    res.writeHead(200);
    res.end("ok");
  });
  try {
    const envelope = (place) =>
      `To: ${dest.url}/${place}\nX-Method: $REQUEST_METHOD\nX-Query: $QUERY_STRING\nX-Kind: $HTTP_X_KIND\nX-Replays: $REPLAY_OF\n\ncat\n`;
    let r = await owner("PUT", "fifos/rp-hook", envelope("wrong"));
    assert.equal(r.status, 201, r.text);
    const since = Date.now();
    const big = Buffer.alloc(200 * 1024, "0123456789abcdef"); // past the log's 64 KiB
    const sent = [
      { method: "POST", path: "/a?x=1", kind: "first", body: Buffer.from("one") },
      { method: "PUT", path: "/b", kind: "second", body: big },
      { method: "POST", path: "", kind: "third", body: Buffer.from([0, 255, 10, 128]) },
    ];
    const ids = [];
    for (const s of sent) {
      const resp = await fetch(`${worker.base}/rp-hook${s.path}`, {
        method: s.method,
        headers: { "X-Kind": s.kind, Authorization: "Bearer not-for-the-log" },
        body: s.body,
      });
      assert.equal(resp.status, 202);
      ids.push((await resp.json()).id);
    }
    // The destination refuses them (404: not retried).
    const failed = await until(async () => {
      const log = (await owner("GET", "fifos/rp-hook/log")).data.entries;
      return log.filter((e) => e.delivery === "failed").length === 3 && log;
    }, "the three deliveries to fail");
    assert.deepEqual(failed.map((e) => e.request_id).reverse(), ids);
    assert.equal(arrived.size, 0);

    // A Request that is not in the log.
    assert.equal((await owner("POST", "fifos/rp-hook/log/nonesuch/replay")).status, 404);

    // The owner fixes the envelope, replays the first by hand, then every failed one.
    assert.equal((await owner("PUT", "fifos/rp-hook", envelope("in"))).status, 200);
    r = await owner("POST", `fifos/rp-hook/log/${ids[0]}/replay`);
    assert.equal(r.status, 202, r.text);
    assert.equal(r.data.replay_of, ids[0]);
    assert.notEqual(r.data.id, ids[0]);
    const replays = new Map([[r.data.id, ids[0]]]);
    r = await owner("POST", `fifos/rp-hook/replay?failed_since=${since}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.data.not_replayed, []);
    assert.deepEqual(r.data.replayed.map((x) => x.replay_of), ids.slice(1), "the first was replayed already");
    for (const x of r.data.replayed) replays.set(x.id, x.replay_of);

    await until(() => arrived.size === 3, "the three replays to arrive", 30_000);
    const byOriginal = new Map([...arrived.entries()].map(([key, a]) => [a.headers["replay-of"], { key, ...a }]));
    assert.equal(byOriginal.size, 3);
    for (const [i, s] of sent.entries()) {
      const a = byOriginal.get(ids[i]);
      assert.ok(a, `replay of ${ids[i]}`);
      const replayId = [...replays].find(([, of]) => of === ids[i])[0];
      assert.equal(a.key, `${replayId}-0`, "a new Idempotency-Key per replay");
      assert.equal(a.headers["x-method"], s.method);
      assert.equal(a.headers["x-query"], s.path.includes("?") ? "x=1" : "");
      assert.equal(a.headers["x-kind"], s.kind);
      assert.equal(a.headers["x-replays"], ids[i], "the script sees REPLAY_OF");
      assert.ok(a.body.equals(s.body), `body of ${s.kind}: ${a.body.length} bytes`);
    }

    // The log links each replay to its original; all delivered now.
    const log = await until(async () => {
      const l = (await owner("GET", "fifos/rp-hook/log")).data.entries;
      return l.filter((e) => e.replay_of).every((e) => e.delivery === "delivered") && l;
    }, "the replays to be delivered");
    assert.deepEqual(
      log.filter((e) => e.replay_of).map((e) => [e.request_id, e.replay_of]).sort(),
      [...replays].sort(),
    );
    const one = (await owner("GET", `fifos/rp-hook/log/${[...replays.keys()][1]}`)).data.entry;
    assert.equal(one.method, "PUT");
    assert.equal(one.request_bytes, big.length);
    assert.ok(!one.headers.some(([k]) => k.toLowerCase() === "authorization"), "credentials are not replayed");

    // Nothing failed is left unreplayed: a second bulk replay sends nothing.
    r = await owner("POST", `fifos/rp-hook/replay?failed_since=${since}`);
    assert.deepEqual(r.data, { replayed: [], not_replayed: [] });
    assert.equal((await owner("POST", "fifos/rp-hook/replay")).status, 400);
  } finally {
    await dest.close();
  }
});

test("a whole body is kept for the newest Requests only; an older one's replay says it is gone", { timeout: 120_000 }, async () => {
  const body = Buffer.alloc(70 * 1024, "x");
  // A body streamed into the script (`To: -` and nothing else reads it) is not kept whole.
  assert.equal((await owner("PUT", "fifos/rp-stream", "To: -\n\nwc -c\n")).status, 201);
  await (await fetch(`${worker.base}/rp-stream/`, { method: "POST", body })).text();
  const [streamed] = (await owner("GET", "fifos/rp-stream/log")).data.entries;
  assert.equal(streamed.body_cut, true);
  let r = await owner("POST", `fifos/rp-stream/log/${streamed.request_id}/replay`);
  assert.equal(r.status, 410);
  assert.match(r.data.error, /a body streamed into the script is never kept whole/);
  // Held whole (a header reads the script's output, so the answer does not stream).
  assert.equal((await owner("PUT", "fifos/rp-keep", "To: -\nX-Late: $(echo 1)\n\nwc -c\n")).status, 201);
  for (let i = 0; i <= 100; i++) {
    const resp = await fetch(`${worker.base}/rp-keep/`, { method: "POST", body });
    assert.equal((await resp.text()).trim(), String(body.length));
  }
  const log = (await owner("GET", "fifos/rp-keep/log?limit=101")).data.entries.map((e) => e.request_id).reverse();
  r = await owner("POST", `fifos/rp-keep/log/${log[0]}/replay`);
  assert.equal(r.status, 410);
  assert.match(r.data.error, /^the body of Request \S+ \(71680 bytes\) is no longer kept: whole bodies over 64 KiB are kept for the FIFO's newest 100/);
  r = await owner("POST", `fifos/rp-keep/log/${log[1]}/replay`);
  assert.equal(r.status, 202, r.text);
  const replayed = await until(async () => {
    const e = (await owner("GET", `fifos/rp-keep/log/${r.data.id}`)).data.entry;
    return e.delivery === "answered" && e;
  }, "the replay to run");
  assert.equal(replayed.request_bytes, body.length);
  assert.equal(replayed.replay_of, log[1]);
});

test("bodies of megabytes are kept in pieces and replayed whole, the newest up to 32 MiB in all", { timeout: 120_000 }, async () => {
  const server = await startServer((req, res) => res.end("ok"));
  try {
    assert.equal((await owner("PUT", "fifos/rp-big", `To: ${server.url}/big\n\ncat\n`)).status, 201);
    const bodies = [12, 12, 12].map((mib, i) => Buffer.alloc(mib * 1024 * 1024 + i, String(i)));
    for (const body of bodies) {
      const r = await fetch(`${worker.base}/rp-big/`, { method: "POST", body });
      assert.equal(r.status, 202, await r.text());
    }
    await until(() => server.requests.length === 3 || null, "the deliveries");
    const log = (await owner("GET", "fifos/rp-big/log")).data.entries.map((e) => e.request_id).reverse();
    // 36 MiB in all: the oldest body is no longer kept.
    let r = await owner("POST", `fifos/rp-big/log/${log[0]}/replay`);
    assert.equal(r.status, 410);
    assert.match(r.data.error, /\(12582912 bytes\) is no longer kept/);
    for (const i of [1, 2]) {
      r = await owner("POST", `fifos/rp-big/log/${log[i]}/replay`);
      assert.equal(r.status, 202, r.text);
    }
    await until(() => server.requests.length === 5 || null, "the replays");
    const again = server.requests.slice(3).map((q) => q.body);
    assert.ok(again.some((b) => b.equals(bodies[1])), "the second body, replayed whole");
    assert.ok(again.some((b) => b.equals(bodies[2])), "the third body, replayed whole");
  } finally {
    await server.close();
  }
});
