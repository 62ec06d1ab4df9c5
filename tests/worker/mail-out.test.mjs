// Outgoing mail: an address as a destination sends a message through the send_email
// binding. Locally wrangler writes each message to an .eml file under $TMPDIR and logs its
// path; Python's `email` package reads the files (tests/mail/read_eml.py).
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, test } from "node:test";
import { getLog, putFifo, readMail, sendMail, sentMail, startServer, startWorker, tempDir, until } from "./harness.mjs";

const DOMAIN = "mkfifo.localhost";
let worker, server;

before(async () => {
  worker = await startWorker({ env: { TMPDIR: tempDir("mkfifo-mail-") } });
  server = await startServer((req, res) => {
    res.setHeader("Content-Type", "text/plain; charset=utf-8");
    res.end("the destination's reply\n");
  });
});
after(async () => {
  await server.close();
  await worker.stop();
});

// The next message sent after `seen` files, read by Python.
async function nextMail(seen, what) {
  const file = await until(() => sentMail(worker)[seen], what);
  return readMail(file);
}

const header = (m, name) => (m.headers[name.toLowerCase()] || [])[0];

test("To: an address sends the script's output with the envelope's headers", async () => {
  await putFifo(
    worker.base,
    "notify",
    "To: ada@example.com\nSubject: Grüße, $REQUEST_METHOD\nCc: Bob <bob@example.org>\nX-Ticket: 42\n\ntr a-z A-Z\n",
  );
  const seen = sentMail(worker).length;
  const r = await fetch(`${worker.base}/notify/`, { method: "POST", body: "hello, ada\n" });
  assert.equal(r.status, 202, await r.text());
  const m = await nextMail(seen, "the message of notify");
  assert.equal(header(m, "From"), `notify@${DOMAIN}`);
  assert.equal(header(m, "To"), "ada@example.com");
  assert.equal(header(m, "Subject"), "Grüße, POST");
  assert.equal(header(m, "Cc"), "Bob <bob@example.org>");
  assert.equal(header(m, "X-Ticket"), "42");
  assert.equal(header(m, "Auto-Submitted"), "auto-generated");
  assert.match(header(m, "Message-ID"), new RegExp(`^<[0-9a-f-]+\\.\\d+\\.h1@${DOMAIN.replace(".", "\\.")}>$`));
  assert.ok(header(m, "Date"));
  assert.equal(m.text, "HELLO, ADA\n");
  assert.deepEqual(m.attachments, []);
  assert.deepEqual(m.defects, []);
  assert.ok(m.ascii, "the message is 7-bit");
  const [entry] = await until(async () => {
    const log = await getLog(worker.base, "notify");
    return log[0]?.delivery === "delivered" && log;
  }, "the delivery in the log");
  assert.equal(entry.outcome, "accepted");
});

test("HTML, binary bodies and From: within the domain", async () => {
  await putFifo(worker.base, "page", "To: ada@example.com\nContent-Type: text/html\n\nprintf '<p>Hi <b>%s</b></p>\\n' \"$(cat)\"\n");
  await putFifo(worker.base, "blob", "To: ada@example.com\nContent-Type: application/pdf\nFrom: Reports <reports@mkfifo.localhost>\n\nprintf '%%PDF\\377\\000\\001'\n");
  let seen = sentMail(worker).length;
  await (await fetch(`${worker.base}/page/`, { method: "POST", body: "Ada" })).text();
  const html = await nextMail(seen, "the HTML message");
  assert.equal(html.html, "<p>Hi <b>Ada</b></p>\n");
  assert.equal(html.text, null);
  seen = sentMail(worker).length;
  await (await fetch(`${worker.base}/blob/`, { method: "POST", body: "x" })).text();
  const blob = await nextMail(seen, "the binary message");
  assert.equal(header(blob, "From"), "Reports <reports@mkfifo.localhost>");
  assert.equal(blob.attachments.length, 1);
  assert.equal(blob.attachments[0].name, "body.pdf");
  assert.equal(blob.attachments[0].type, "application/pdf");
  assert.deepEqual(Buffer.from(blob.attachments[0].base64, "base64"), Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff, 0, 1]));
});

test("a From: outside the domain fails the delivery and says why", async () => {
  await putFifo(worker.base, "spoof", "To: ada@example.com\nFrom: boss@example.com\n\necho hi\n");
  const seen = sentMail(worker).length;
  const r = await fetch(`${worker.base}/spoof/`, { method: "POST", body: "x" });
  const { id } = await r.json();
  const entry = await until(async () => {
    const r = await fetch(`${worker.base}/_/api/fifos/spoof/log/${id}`, { headers: { Authorization: "Bearer test-operator-token" } });
    const j = await r.json();
    return j.entry.delivery === "failed" && j;
  }, "the failed delivery");
  assert.match(entry.deliveries[0].attempts[0].error, /only from an address of mkfifo\.localhost/);
  assert.equal(sentMail(worker).length, seen);
});

test("Errors-To: an address mails a short report; Reply-To: an address mails the reply", async () => {
  await putFifo(worker.base, "fails", "To: https://unused.example/\nErrors-To: ops@example.com\n\necho 'disk on fire' >&2; exit 3\n");
  let seen = sentMail(worker).length;
  const r = await fetch(`${worker.base}/fails/`, { method: "POST", body: "x" });
  const { id } = await r.json();
  const report = await nextMail(seen, "the report");
  assert.equal(header(report, "To"), "ops@example.com");
  assert.equal(header(report, "From"), `fails@${DOMAIN}`);
  assert.match(header(report, "Subject"), new RegExp(`FIFO fails failed on Request ${id}`));
  assert.match(report.text, /the script exited with status 3: disk on fire/);
  assert.match(report.text, new RegExp(`https://${DOMAIN}/_/api/fifos/fails/log/${id}`));

  await putFifo(worker.base, "asks", `To: ${server.url}/question\nReply-To: ada@example.com\n\ncat\n`);
  seen = sentMail(worker).length;
  await (await fetch(`${worker.base}/asks/`, { method: "POST", body: "a question" })).text();
  const reply = await nextMail(seen, "the reply by mail");
  assert.equal(header(reply, "To"), "ada@example.com");
  assert.equal(header(reply, "X-Reply-Status"), "200");
  assert.equal(reply.text, "the destination's reply\n");
});

function inbound(to, subject, extra = []) {
  return [
    "From: Ada <ada@example.com>",
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${crypto.randomUUID()}@example.com>`,
    ...extra,
    "",
    "Question?",
    "",
  ].join("\r\n");
}


test("an answer by mail joins the thread; an automatic message gets none (RFC 3834)", async () => {
  await putFifo(worker.base, "answers", "To: $FROM\nReply-To: answers\n\nprintf 'You asked: %s\\n' \"$(cat)\"\n");
  let seen = sentMail(worker).length;
  const raw = inbound(`answers@${DOMAIN}`, "Help");
  const id = raw.match(/Message-ID: <(.*)>/)[1];
  assert.equal((await sendMail(worker.base, "ada@example.com", `answers@${DOMAIN}`, raw)).status, 200);
  const m = await nextMail(seen, "the answer");
  assert.equal(header(m, "To"), "ada@example.com");
  assert.equal(header(m, "Subject"), "Re: Help");
  assert.equal(header(m, "In-Reply-To"), `<${id}>`);
  assert.equal(header(m, "References"), `<${id}>`);
  assert.equal(header(m, "Reply-To"), `answers@${DOMAIN}`);
  assert.equal(m.text, "You asked: Question?\n");

  seen = sentMail(worker).length;
  const auto = inbound(`answers@${DOMAIN}`, "Out of office", ["Auto-Submitted: auto-replied"]);
  assert.equal((await sendMail(worker.base, "ada@example.com", `answers@${DOMAIN}`, auto)).status, 200);
  const [entry] = await until(async () => {
    const log = await getLog(worker.base, "answers");
    return log[0]?.subject === "Out of office" && log[0].delivery === "failed" && log;
  }, "the unanswered automatic message");
  const detail = await (await fetch(`${worker.base}/_/api/fifos/answers/log/${entry.request_id}`, {
    headers: { Authorization: "Bearer test-operator-token" },
  })).json();
  assert.match(detail.deliveries[0].attempts[0].error, /Auto-Submitted, RFC 3834/);
  assert.equal(sentMail(worker).length, seen);
});

test("a FIFO that mails itself stops at the hop limit", async () => {
  await putFifo(worker.base, "echoes", `To: echoes@${DOMAIN}\n\ncat\n`);
  let raw = inbound(`echoes@${DOMAIN}`, "ping");
  let status = 200, rounds = 0;
  // Each message the FIFO sends is handed back to it, as a mail server would.
  for (; rounds < 40 && status === 200; rounds++) {
    const seen = sentMail(worker).length;
    const r = await sendMail(worker.base, `echoes@${DOMAIN}`, `echoes@${DOMAIN}`, raw);
    status = r.status;
    if (status !== 200) {
      assert.match(await r.text(), /limited to 16 hops/);
      break;
    }
    const file = await until(() => sentMail(worker)[seen], `round ${rounds}`);
    raw = (await import("node:fs")).readFileSync(file);
  }
  assert.equal(status, 400);
  assert.equal(rounds, 17, "16 FIFOs passed, the 17th refuses");
});
