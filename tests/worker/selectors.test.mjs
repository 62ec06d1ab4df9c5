// Selectors on real-world-shaped bodies: a GitHub push event, a Stripe event, an HTML
// page, a multipart form with a file, an urlencoded form and query parameters.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { putFifo, startWorker } from "./harness.mjs";

let worker;
before(async () => (worker = await startWorker()));
after(() => worker.stop());

// A FIFO that prints each selected variable on a line of its own.
async function picker(name, selectors) {
  const lines = selectors.map(([v, sel]) => `$${v} = ${sel}`);
  const script = selectors.map(([v]) => `printf '%s=[%s]\\n' ${v} "$${v}"`).join("\n");
  await putFifo(worker.base, name, `To: -\n${lines.join("\n")}\n\n${script}\n`);
}

test("jq paths in a GitHub push event", async () => {
  await picker("github", [
    ["repo", ".repository.full_name"],
    ["message", ".head_commit.message"],
    ["email", ".commits[0].author.email"],
    ["pusher", ".pusher.name"],
    ["added", ".head_commit.added"],
    ["missing", ".nothing.here"],
  ]);
  const event = {
    ref: "refs/heads/main",
    repository: { id: 1, full_name: "octo/hello-world", private: false },
    pusher: { name: "octocat", email: "octo@example.com" },
    head_commit: { id: "abc", message: "Fix the café's menu ☕", added: ["menu.md", "prices.csv"] },
    commits: [{ id: "abc", author: { name: "Octo", email: "octo@example.com" } }],
  };
  const r = await fetch(`${worker.base}/github/`, {
    method: "POST",
    body: JSON.stringify(event),
    headers: { "Content-Type": "application/json", "X-GitHub-Event": "push" },
  });
  assert.equal(
    await r.text(),
    [
      "repo=[octo/hello-world]",
      "message=[Fix the café's menu ☕]",
      "email=[octo@example.com]",
      "pusher=[octocat]",
      'added=[["menu.md","prices.csv"]]',
      "missing=[]",
      "",
    ].join("\n"),
  );
});

test("jq paths in a Stripe event, with a quoted key", async () => {
  await picker("stripe", [
    ["type", ".type"],
    ["amount", ".data.object.amount"],
    ["order", '.data.object.metadata["order id"]'],
    ["paid", ".data.object.paid"],
  ]);
  const event = {
    id: "evt_1",
    type: "charge.succeeded",
    data: { object: { id: "ch_1", amount: 2000, currency: "eur", paid: true, metadata: { "order id": "A-17" } } },
  };
  const r = await fetch(`${worker.base}/stripe/`, {
    method: "POST",
    body: JSON.stringify(event),
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
  assert.equal(await r.text(), "type=[charge.succeeded]\namount=[2000]\norder=[A-17]\npaid=[true]\n");
});

test("CSS selectors in an HTML page", async () => {
  await picker("page", [
    ["title", "title"],
    ["og", 'meta[property="og:title"] @content'],
    ["price", "div.price > span"],
    ["next", "a.next @href"],
  ]);
  const html = `<!doctype html><html><head><title>Films &amp; more</title>
<meta property="og:title" content="The Hitchhiker's Guide"></head>
<body><div class="price"><span>42.00</span> EUR</div><p><a class="next" href="/page/2">next</a></p></body></html>`;
  const r = await fetch(`${worker.base}/page/`, { method: "POST", body: html, headers: { "Content-Type": "text/html" } });
  assert.equal(
    await r.text(),
    "title=[Films & more]\nog=[The Hitchhiker's Guide]\nprice=[42.00]\nnext=[/page/2]\n",
  );
});

test("form fields: multipart with a file, urlencoded, and query parameters", async () => {
  await picker("form", [
    ["who", "name"],
    ["file", "upload"],
    ["q", "?q"],
  ]);
  const form = new FormData();
  form.set("name", "Ada Lovelace");
  form.set("upload", new Blob(["line one\r\nline two\n"], { type: "text/plain" }), "notes.txt");
  let r = await fetch(`${worker.base}/form/?q=caf%C3%A9&q=second`, { method: "POST", body: form });
  assert.equal(await r.text(), "who=[Ada Lovelace]\nfile=[line one\r\nline two\n]\nq=[café]\n");
  r = await fetch(`${worker.base}/form/`, {
    method: "POST",
    body: "name=Grace+Hopper&upload=%E2%82%AC5",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  assert.equal(await r.text(), "who=[Grace Hopper]\nfile=[€5]\nq=[]\n");
});
