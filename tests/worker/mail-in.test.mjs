// Inbound mail through the real local path (POST /cdn-cgi/handler/email, which runs the
// Worker's email()): the golden corpus of tests/mail (messages built by Python's `email`
// package, expectations read by it), selectors over a message's text, attachments as
// files, refusals, the log, and the hop limit.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { ROOT, getLog, putFifo, sendMail, startServer, startWorker, until } from "./harness.mjs";

const CORPUS = path.join(ROOT, "tests/mail");
const DOMAIN = "mkfifo.localhost";
let worker, server;

before(async () => {
  worker = await startWorker();
  server = await startServer((req, res) => res.end("ok"));
});
after(async () => {
  await server.close();
  await worker.stop();
});


// Every variable a mail script sees, its stdin, the selectors and a digest of each
// attachment read with `cat attachment:NAME`, posted as JSON to the test's server.
const DUMP = `To: ${"SERVER"}/dump
Content-Type: application/json
$price = div.price span
$movie = .movie.title
$q = ?q

body=$(base64 -w0)
sums=$(printf '%s\\n' "$ATTACHMENTS" | while IFS="$(printf '\\t')" read -r name type size; do
  [ -n "$name" ] && printf '%s %s\\n' "$(cat "attachment:$name" | sha256sum | cut -d' ' -f1)" "$name"
done)
jq -n --arg body "$body" --arg sums "$sums" --arg price "$price" --arg movie "$movie" --arg q "$q" \\
  '{env: ($ENV | with_entries(select(.key | test("^(FROM|FROM_NAME|TO|CC|REPLY_TO|SUBJECT|MESSAGE_ID|DATE|IN_REPLY_TO|ATTACHMENTS|PARSE_ERROR|CONTENT_TYPE|CONTENT_LENGTH|REQUEST_METHOD|PATH_INFO|QUERY_STRING|REMOTE_ADDR)$|^(MAIL|HTTP)_")))),
    body: $body, sums: $sums, price: $price, movie: $movie, q: $q}'
`;

async function dumped(messageId) {
  const r = await until(
    () => server.requests.find((q) => q.url === "/dump" && JSON.parse(q.body).env.MESSAGE_ID === messageId),
    `the dump of ${messageId}`,
  );
  return JSON.parse(r.body);
}

const corpus = fs
  .readdirSync(CORPUS)
  .filter((f) => f.endsWith(".eml"))
  .sort();

test("each message of the corpus is seen as Python's email package reads it", async () => {
  assert.ok(corpus.length >= 13);
  await putFifo(worker.base, "inbox", DUMP.replace("SERVER", server.url));
  for (const file of corpus) {
    const raw = fs.readFileSync(path.join(CORPUS, file));
    const want = JSON.parse(fs.readFileSync(path.join(CORPUS, file.replace(/\.eml$/, ".json")), "utf8"));
    const r = await sendMail(worker.base, "sender@example.com", want.envelope_to, raw);
    assert.equal(r.status, 200, `${file}: ${await r.text()}`);
    const got = await dumped(want.vars.MESSAGE_ID);
    const env = { ...got.env };
    // What makes no sense for mail is not there; REQUEST_METHOD says MAIL.
    for (const cgi of ["PATH_INFO", "QUERY_STRING", "REMOTE_ADDR"]) assert.equal(env[cgi], undefined, `${file}: ${cgi}`);
    assert.deepEqual(Object.keys(env).filter((k) => k.startsWith("HTTP_")), [], file);
    assert.equal(env.REQUEST_METHOD, "MAIL", file);
    assert.equal(env.CONTENT_TYPE, want.content_type, file);
    const stdin = Buffer.from(got.body, "base64");
    assert.equal(env.CONTENT_LENGTH, String(stdin.length), file);
    assert.equal(stdin.toString("utf8"), want.stdin, `${file}: stdin`);
    const listing = want.attachments.map((a) => a.name);
    assert.deepEqual(
      env.ATTACHMENTS ? env.ATTACHMENTS.split("\n").map((l) => l.split("\t")[0]) : [],
      listing,
      `${file}: ATTACHMENTS`,
    );
    for (const k of ["REQUEST_METHOD", "CONTENT_TYPE", "CONTENT_LENGTH", "ATTACHMENTS"]) delete env[k];
    assert.deepEqual(env, want.vars, `${file}: variables`);
    const sums = got.sums ? got.sums.split("\n") : [];
    assert.equal(sums.length, want.attachments.length, `${file}: attachments read`);
    want.attachments.forEach((a, i) => {
      if (a.sha256) assert.equal(sums[i], `${a.sha256} ${a.name}`, `${file}: ${a.name}`);
    });
    assert.equal(got.q, "", "?q is empty for mail");
    if (file.includes("html-only")) assert.equal(got.price, "42.00", "CSS selectors run over an HTML text");
    if (file.includes("json-body")) assert.equal(got.movie, "Solaris", "jq paths run over a JSON text");
  }
});

test("the log shows a mail Request with its From, Subject and size", async () => {
  const file = corpus.find((f) => f.includes("alternative"));
  const raw = fs.readFileSync(path.join(CORPUS, file));
  await putFifo(worker.base, "logged", `To: ${server.url}/logged\n\ncat\n`);
  const r = await sendMail(worker.base, "sender@example.com", `logged+tag@${DOMAIN}`, raw);
  assert.equal(r.status, 200, await r.text());
  const [entry] = await getLog(worker.base, "logged");
  assert.equal(entry.source, "email");
  assert.equal(entry.method, "MAIL");
  assert.equal(entry.from, "ada@example.com");
  assert.equal(entry.subject, "Hello FIFO");
  assert.equal(entry.request_bytes, raw.length);
});

test("To: - accepts a message when the script succeeds and refuses it with its first stderr line", async () => {
  await putFifo(
    worker.base,
    "strict",
    'To: -\n\ncase "$SUBJECT" in\n  *spam*) echo "no spam here, $FROM_NAME" >&2; echo second line >&2; exit 1 ;;\nesac\ncat >/dev/null\n',
  );
  const message = (subject) =>
    [
      "From: Ada <ada@example.com>",
      `To: strict@${DOMAIN}`,
      `Subject: ${subject}`,
      `Message-ID: <${crypto.randomUUID()}@example.com>`,
      "",
      "text",
      "",
    ].join("\r\n");
  const ok = await sendMail(worker.base, "ada@example.com", `strict@${DOMAIN}`, message("hello"));
  assert.equal(ok.status, 200, await ok.text());
  const no = await sendMail(worker.base, "ada@example.com", `strict@${DOMAIN}`, message("buy spam now"));
  assert.equal(no.status, 400);
  assert.match(await no.text(), /strict: no spam here, Ada$/m);
  const missing = await sendMail(worker.base, "ada@example.com", `nobody-here@${DOMAIN}`, message("hi"));
  assert.equal(missing.status, 400);
  assert.match(await missing.text(), /nobody-here: no FIFO named nobody-here/);
});

test("a message the parser cannot read is still a Request, with PARSE_ERROR", async () => {
  // The local trigger refuses such messages itself; the test-only route takes the same path.
  const raw = Buffer.from([0, 1, 2, 0x20, 0xff, 0xfe, 0x0a]);
  const r = await fetch(`${worker.base}/_/test/mail?from=odd@example.com&to=inbox@${DOMAIN}`, { method: "POST", body: raw });
  assert.equal(r.status, 200, await r.text());
  const got = await until(
    () => server.requests.filter((q) => q.url === "/dump").map((q) => JSON.parse(q.body)).find((d) => d.env.PARSE_ERROR),
    "the dump of the unreadable message",
  );
  assert.equal(got.env.PARSE_ERROR, "no header found: this is not a mail message");
  assert.equal(got.env.FROM, "odd@example.com");
  assert.deepEqual(Buffer.from(got.body, "base64"), raw);
});

test("a message that has passed 16 FIFOs by mail is refused as a loop", async () => {
  await putFifo(worker.base, "looped", `To: ${server.url}/looped\n`);
  const refs = Array.from({ length: 17 }, (_, i) => `<r${i}.0.h${i}@${DOMAIN}>`).join(" ");
  const raw = [
    "From: looped@mkfifo.localhost",
    `To: looped@${DOMAIN}`,
    "Subject: round and round",
    `Message-ID: <r17.0.h17@${DOMAIN}>`,
    `References: ${refs}`,
    "",
    "again",
    "",
  ].join("\r\n");
  const r = await sendMail(worker.base, `looped@${DOMAIN}`, `looped@${DOMAIN}`, raw);
  assert.equal(r.status, 400);
  assert.match(await r.text(), /limited to 16 hops/);
});
