// Inbound mail: NAME@DOMAIN becomes a Request to FIFO NAME, holding the raw message.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { getLog, putFifo, sendMail, startWorker } from "./harness.mjs";

let worker;
before(async () => (worker = await startWorker()));
after(() => worker.stop());

function message(to) {
  return [
    "From: Alice <alice@example.com>",
    `To: ${to}`,
    "Subject: Hello FIFO",
    "Message-ID: <test-1@example.com>",
    "Date: Mon, 30 Nov 2026 02:00:00 +0000",
    "MIME-Version: 1.0",
    'Content-Type: multipart/alternative; boundary="b1"',
    "",
    "--b1",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "Hello, FIFO. Grüße.",
    "--b1",
    "Content-Type: text/html; charset=utf-8",
    "",
    "<p>Hello, <b>FIFO</b>.</p>",
    "--b1--",
    "",
  ].join("\r\n");
}


test("a message to NAME@DOMAIN is stored as a Request with its raw size", async () => {
  await putFifo(worker.base, "inbox");
  const raw = message("inbox@mkfifo.localhost");
  const r = await sendMail(worker.base, "alice@example.com", "inbox@mkfifo.localhost", raw);
  assert.equal(r.status, 200, await r.text());
  const [entry] = await getLog(worker.base, "inbox", "?bodies=1");
  assert.equal(entry.source, "email");
  assert.equal(entry.method, "MAIL");
  assert.equal(entry.request_bytes, Buffer.byteLength(raw));
  assert.equal(entry.body, raw);
});

test("NAME+tag@DOMAIN reaches NAME too", async () => {
  await putFifo(worker.base, "tagged");
  const r = await sendMail(worker.base, "alice@example.com", "tagged+news@mkfifo.localhost", message("tagged+news@mkfifo.localhost"));
  assert.equal(r.status, 200, await r.text());
  assert.equal((await getLog(worker.base, "tagged")).length, 1);
});

test("mail to a FIFO that does not exist, or to a bad name, is rejected", async () => {
  // The local email endpoint answers 200 and logs the handler's rejection.
  for (const to of ["nobody-here@mkfifo.localhost", "Bad_Name@mkfifo.localhost"]) {
    const r = await sendMail(worker.base, "alice@example.com", to, message(to));
    await r.text();
  }
  const expected = [
    /rejected message with the following reason: "nobody-here: no FIFO named nobody-here"/,
    /rejected message with the following reason: "no such FIFO: bad FIFO name 'bad_name'/,
  ];
  // The log lines of wrangler arrive a little after the answers.
  for (let i = 0; i < 50 && !expected.every((re) => re.test(worker.log())); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const re of expected) assert.match(worker.log(), re);
});
