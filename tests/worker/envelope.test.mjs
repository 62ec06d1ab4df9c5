// The envelope: CGI answers, templates and variables, routing to URLs and FIFOs, fan-out,
// Reply-To and Errors-To, hop limits, and callers that try to override secrets.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, getLog, putFifo, startServer, startWorker, until } from "./harness.mjs";

let worker, dest;
const reports = [];

before(async () => {
  dest = await startServer((req, res, body) => {
    if (req.url.startsWith("/report")) reports.push(JSON.parse(body.toString()));
    if (req.url.startsWith("/fail")) {
      res.writeHead(500, { "Content-Type": "text/plain" });
      return res.end("broken");
    }
    if (req.url.startsWith("/reply")) {
      res.writeHead(200, { "Content-Type": "application/json", "X-From": "dest" });
      return res.end(JSON.stringify({ got: body.toString(), method: req.method }));
    }
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.end("ok");
  });
  worker = await startWorker({ vars: { MKFIFO_RETRY_SCHEDULE: "1", MKFIFO_RETRY_FOR: "3" } });
});
after(async () => {
  await worker.stop();
  await dest.close();
});

const sent = (path) => dest.requests.filter((r) => r.url.startsWith(path));

test("To: - answers with the script's output, CGI style", async () => {
  await putFifo(
    worker.base,
    "cgi",
    "To: -\nX-Method: $REQUEST_METHOD\n\necho 'Status: 201 Created'\necho 'Content-Type: application/json'\necho\nprintf '{\"path\":\"%s\",\"q\":\"%s\"}' \"$PATH_INFO\" \"$QUERY_STRING\"\n",
  );
  const r = await fetch(`${worker.base}/cgi/a/b?x=1`, { method: "PUT", body: "ignored" });
  assert.equal(r.status, 201);
  assert.equal(r.headers.get("content-type"), "application/json");
  assert.equal(r.headers.get("x-method"), "PUT");
  assert.deepEqual(await r.json(), { path: "/a/b", q: "x=1" });
  const [entry] = await getLog(worker.base, "cgi");
  assert.equal(entry.outcome, "answered");
  assert.equal(entry.status, 201);
  assert.ok(entry.steps > 0);
});

// The entry module passes a client's Request on as it came when it can; the object then
// reads the FIFO from the path and makes the Request's id and address itself. A Request
// with headers that only the Worker may set is copied without them: the same answer.
test("a Request's FIFO, path, query, address and id, sent plainly, percent-encoded, or with internal headers", async () => {
  await putFifo(worker.base, "whoami", 'To: -\n\nprintf \'%s|%s|%s|%s|%s\' "$PATH_INFO" "$QUERY_STRING" "$REMOTE_ADDR" "$REQUEST_ID" "$(cat)"\n');
  const forged = { "X-Mkfifo-Fifo": "cgi", "X-Mkfifo-Request-Id": "forged", "X-Mkfifo-Remote-Addr": "6.6.6.6", "X-Mkfifo-Hops": "99" };
  const cases = [
    ["/whoami/a/b?x=1&y=%20", {}, "GET", undefined, "/a/b", "x=1&y=%20", ""],
    ["/%77hoami/c%2Fd?", {}, "POST", "small body", "/c%2Fd", "", "small body"],
    ["/whoami/e", forged, "POST", "with forged headers", "/e", "", "with forged headers"],
    ["/whoami", forged, "GET", undefined, "", "", ""],
  ];
  const ids = [];
  for (const [path, headers, method, body, pathInfo, query, echoed] of cases) {
    const r = await fetch(`${worker.base}${path}`, { method, headers, body });
    assert.equal(r.status, 200, path);
    const [seenPath, seenQuery, addr, id, seenBody] = (await r.text()).split("|");
    assert.deepEqual([seenPath, seenQuery, seenBody], [pathInfo, query, echoed], path);
    assert.match(addr, /^[0-9a-f.:]+$/, `${path}: REMOTE_ADDR ${addr}`);
    assert.notEqual(addr, "6.6.6.6");
    assert.match(id, /^[0-9a-f]{32}$/, path);
    for (const name of Object.keys(forged)) assert.equal(r.headers.get(name), null, `${path}: ${name} in the answer`);
    ids.push(id);
  }
  assert.equal(new Set(ids).size, ids.length, "each Request its own id");
  const log = await getLog(worker.base, "whoami");
  assert.deepEqual(log.map((e) => e.request_id).sort(), [...ids].sort());
  assert.deepEqual(log.map((e) => e.path).sort(), ["/whoami", "/whoami/a/b", "/whoami/c%2Fd", "/whoami/e"]);
  assert.ok(log.every((e) => !e.headers || !Object.keys(e.headers).some((k) => k.startsWith("x-mkfifo-"))));
});

// The object may answer before it reads a body (a script that never reads its stdin); the
// client's own stream can no longer be read once the answer has left, so the entry module
// hands bodies on in a stream of their own, and reading the rest must fail nothing.
test("a script that never reads the body answers every time, and the Worker logs no error", async () => {
  await putFifo(worker.base, "deaf", "To: -\n\necho hi\n");
  for (const bytes of [1, 13, 1000, 64 * 1024, 100 * 1024]) {
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${worker.base}/deaf/`, { method: "POST", body: "x".repeat(bytes) });
      assert.equal(r.status, 200, `${bytes} bytes`);
      assert.equal(await r.text(), "hi\n");
    }
  }
  assert.equal((await getLog(worker.base, "deaf")).length, 25);
  assert.doesNotMatch(worker.log(), /Can't read from request stream|Uncaught/);
});

test("a script that fails answers 500 and tells Errors-To", async () => {
  await putFifo(worker.base, "broken-script", `To: -\nErrors-To: ${dest.url}/report/script\n\necho nope >&2; exit 4\n`);
  const r = await fetch(`${worker.base}/broken-script/`, { method: "POST", body: "x" });
  assert.equal(r.status, 500);
  assert.match(await r.text(), /script: the script exited with status 4: nope/);
  const report = await until(() => reports.find((x) => x.fifo === "broken-script"), "the report");
  assert.match(report.error, /exited with status 4/);
  const [entry] = await getLog(worker.base, "broken-script");
  assert.equal(entry.status, 500);
  assert.notEqual(entry.delivery, "delivered", "the report's delivery does not count as the Request's");
});

test("the step limit is a failure that Errors-To hears of", async () => {
  await putFifo(worker.base, "runaway", `To: -\nErrors-To: ${dest.url}/report/steps\n\nwhile :; do :; done\n`);
  const r = await fetch(`${worker.base}/runaway/`, { method: "POST", body: "x" });
  assert.equal(r.status, 500);
  assert.match(await r.text(), /step limit/);
  const report = await until(() => reports.find((x) => x.fifo === "runaway"), "the report");
  assert.match(report.error, /step limit/);
});

test("a Request to a URL is accepted with 202 and delivered with its headers", async () => {
  await putFifo(
    worker.base,
    "relay",
    `To: ${dest.url}/in/$PATH_INFO\nMethod: PUT\nContent-Type: text/plain\nX-Secret: $API_KEY\nConnection: close\n\nprintf 'hello %s' "$(cat)"\n`,
  );
  assert.equal((await api(worker.base, "PUT", "fifos/relay/vars/API_KEY", "k-123")).status, 200);
  const r = await fetch(`${worker.base}/relay/x`, { method: "POST", body: "world" });
  assert.equal(r.status, 202);
  const accepted = await r.json();
  assert.equal(accepted.status, "accepted");
  assert.equal(r.headers.get("location"), `/_/api/fifos/relay/log/${accepted.id}`);
  const got = await until(() => sent("/in/").find((x) => x.body.toString() === "hello world"), "the delivery");
  assert.equal(got.method, "PUT");
  assert.equal(got.url, "/in//x");
  assert.equal(got.headers["x-secret"], "k-123");
  assert.equal(got.headers["content-type"], "text/plain");
  assert.equal(got.headers["idempotency-key"], `${accepted.id}-0`);
  assert.notEqual(got.headers.connection, "close");
  const one = await until(async () => {
    const e = await (await api(worker.base, "GET", accepted.log.replace("/_/api/", ""))).json();
    return e.entry.delivery === "delivered" && e;
  }, "the log to say delivered");
  assert.equal(one.deliveries.length, 1);
  assert.equal(one.deliveries[0].attempts[0].status, 200);
});

test("several destinations fan out", async () => {
  await putFifo(worker.base, "sink-a");
  await putFifo(worker.base, "fan", `To: ${dest.url}/fan/1, ${dest.url}/fan/2, sink-a\n\ncat\n`);
  const r = await fetch(`${worker.base}/fan/`, { method: "POST", body: "spread" });
  assert.equal(r.status, 202);
  await until(() => sent("/fan/1").length === 1 && sent("/fan/2").length === 1, "both URLs");
  const log = await until(async () => {
    const l = await getLog(worker.base, "sink-a", "?bodies=1");
    return l.length === 1 && l;
  }, "the FIFO");
  assert.equal(log[0].body, "spread");
  assert.equal(log[0].source, "fifo");
});

test("Reply-To: - gives the caller the destination's reply", async () => {
  await putFifo(worker.base, "ask", `To: ${dest.url}/reply\nReply-To: -\nMethod: POST\n\ntr a-z A-Z\n`);
  const r = await fetch(`${worker.base}/ask/`, { method: "POST", body: "question" });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("x-from"), "dest");
  assert.deepEqual(await r.json(), { got: "QUESTION", method: "POST" });
});

test("Reply-To: a FIFO gets the destination's reply as a new Request", async () => {
  await putFifo(worker.base, "replies");
  await putFifo(worker.base, "asker", `To: ${dest.url}/reply\nReply-To: replies\nMethod: POST\n`);
  const r = await fetch(`${worker.base}/asker/`, { method: "POST", body: "q1" });
  assert.equal(r.status, 202);
  const [entry] = await until(async () => {
    const l = await getLog(worker.base, "replies", "?bodies=1");
    return l.length === 1 && l;
  }, "the reply");
  assert.deepEqual(JSON.parse(entry.body), { got: "q1", method: "POST" });
});

test("a destination that answers 500 is retried, then Errors-To hears of it", async () => {
  await putFifo(worker.base, "failing", `To: ${dest.url}/fail\nErrors-To: ${dest.url}/report/fail\n\ncat\n`);
  const r = await fetch(`${worker.base}/failing/`, { method: "POST", body: "x" });
  const { id } = await r.json();
  const report = await until(() => reports.find((x) => x.request_id === id), "the report");
  assert.equal(report.status, 500);
  assert.match(report.error, /gave up after \d+ attempt\(s\).*answered 500/);
  assert.ok(sent("/fail").length >= 2, "retried");
  const e = await (await api(worker.base, "GET", `fifos/failing/log/${id}`)).json();
  assert.equal(e.entry.delivery, "failed");
  assert.ok(e.deliveries[0].attempts.length >= 2);
});

test("a loop of FIFOs stops at the hop limit", async () => {
  await putFifo(worker.base, "ping", "To: pong\n");
  await putFifo(worker.base, "pong", "To: ping\n");
  const r = await fetch(`${worker.base}/ping/`, { method: "POST", body: "ball" });
  assert.equal(r.status, 202);
  const looped = await until(async () => {
    const all = [...(await getLog(worker.base, "ping")), ...(await getLog(worker.base, "pong"))];
    return all.find((e) => e.status === 508);
  }, "the hop limit");
  assert.equal(looped.outcome, "loop");
  const count = (await getLog(worker.base, "ping")).length + (await getLog(worker.base, "pong")).length;
  assert.ok(count <= 18, `${count} Requests`);
});

test("a caller cannot override a FIFO's variable", async () => {
  await putFifo(worker.base, "guarded-secret", "To: -\n\nprintf '%s|%s' \"$SECRET\" \"$HTTP_SECRET\"\n");
  await api(worker.base, "PUT", "fifos/guarded-secret/vars/SECRET", "owner-value");
  const r = await fetch(`${worker.base}/guarded-secret/?SECRET=x`, {
    method: "POST",
    headers: { Secret: "caller-value", "X-Mkfifo-Fifo": "other" },
    body: "SECRET=caller",
  });
  assert.equal(await r.text(), "owner-value|caller-value");
});

test("a FIFO runs as a command in a script", async () => {
  await putFifo(worker.base, "upper", "To: -\n\nprintf '%s:' \"$1\"; tr a-z A-Z\n");
  await putFifo(worker.base, "caller", "To: -\n\necho hello | upper first-arg\n");
  const r = await fetch(`${worker.base}/caller/`, { method: "POST", body: "" });
  assert.equal(await r.text(), "first-arg:HELLO\n");
});

test("a Slack-style signature is checked by the envelope", async () => {
  const { createHmac } = await import("node:crypto");
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  await putFifo(
    worker.base,
    "slack",
    [
      "To: -",
      "sig=v0=$(printf 'v0:%s:%s' \"$HTTP_X_SLACK_REQUEST_TIMESTAMP\" \"$(cat)\" | hmac -k \"$SLACK_SIGNING_SECRET\" | cut -d' ' -f1)",
      "",
      'if [ "$sig" = "$HTTP_X_SLACK_SIGNATURE" ]; then echo verified; else printf \'Status: 401\\n\\nbad signature\\n\'; fi',
      "",
    ].join("\n"),
  );
  await api(worker.base, "PUT", "fifos/slack/vars/SLACK_SIGNING_SECRET", secret);
  const body = "token=xyz&team_id=T1&command=%2Fweather&text=94070";
  const ts = "1531420618";
  const sig = "v0=" + createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex");
  const send = (signature, b = body) =>
    fetch(`${worker.base}/slack/`, {
      method: "POST",
      body: b,
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature,
      },
    });
  let r = await send(sig);
  assert.equal(r.status, 200);
  assert.equal(await r.text(), "verified\n");
  r = await send(sig, body + "&x=1");
  assert.equal(r.status, 401);
  assert.equal(await r.text(), "bad signature\n");
});

test("an HMAC-signed relay signs exactly the bytes it sends", async () => {
  const { createHmac } = await import("node:crypto");
  const secret = "relay-secret";
  await putFifo(
    worker.base,
    "signer",
    `To: ${dest.url}/signed\nContent-Type: application/json\nX-Hub-Signature-256: sha256=$(hmac -k "$SECRET" | cut -d' ' -f1)\n\njq -c '{event: .action, id: .id}'\n`,
  );
  await api(worker.base, "PUT", "fifos/signer/vars/SECRET", secret);
  const r = await fetch(`${worker.base}/signer/`, { method: "POST", body: '{"action":"opened","id":7,"noise":[1,2,3]}' });
  assert.equal(r.status, 202);
  const got = await until(() => sent("/signed")[0], "the signed request");
  assert.equal(got.body.toString(), '{"event":"opened","id":7}\n');
  const expected = "sha256=" + createHmac("sha256", secret).update(got.body).digest("hex");
  assert.equal(got.headers["x-hub-signature-256"], expected);
});
