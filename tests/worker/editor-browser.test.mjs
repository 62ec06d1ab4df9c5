// The editor in a real browser (Debian's Chromium, headless, driven by playwright-core):
// sign in by the mailed link, make a FIFO on the home page, edit and save its envelope
// with Ctrl-S, see a refused envelope marked at its line, set a variable, try the FIFO,
// watch Requests sent with curl appear in the live log, also after the socket drops, open
// one (with its script's stderr), resend one whose body is not text, replay it, see a
// schedule's next run, and sign in again
// from the editor's page and land back on it.
// Screenshots go to target/editor/ for a person to look at (also one at a phone's width).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { ROOT, signinMail, startWorker, tempDir } from "./harness.mjs";

// Debian's chromium (scripts/setup.sh --test installs it); CHROMIUM names another.
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const SHOTS = path.join(ROOT, "target/editor");

let worker, browser;
before(async () => {
  assert.ok(fs.existsSync(CHROMIUM), `no browser at ${CHROMIUM}: run scripts/setup.sh --test`);
  worker = await startWorker({ env: { TMPDIR: tempDir("mkfifo-browser-") } });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  fs.mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await worker?.stop();
});

const curl = (...args) => execFileSync("curl", ["-sS", ...args], { encoding: "utf8" });

// Replaces the editor's text by typing, as a person would.
async function typeEnvelope(page, text) {
  await page.locator(".cm-content").click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type(text);
}

test("sign in, make a FIFO, edit it, try it, watch its log live", async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // Every failed load but the refused envelope's PUT is an error of the page.
  const refusedPut = (m) => /status of 400/.test(m.text()) && m.location().url.endsWith("/_/api/fifos/lin-shout");
  page.on("console", (m) => m.type() === "error" && !refusedPut(m) && errors.push(m.text()));

  // Sign in by the mailed link.
  await page.goto(`${worker.base}/`);
  await page.fill('input[name="email"]', "lin@example.com");
  const link = (await signinMail(worker, "lin@example.com", () => page.click("text=Send me a link"))).link;
  await page.locator("text=Check your mail").waitFor();
  await page.goto(link);
  await page.click('button:has-text("Sign in")');
  await page.locator("text=Signed in as").waitFor();

  // Make a FIFO with the home page's form, and open its editor from the list.
  await page.fill('input[name="name"]', "lin-shout");
  await page.fill('textarea[name="envelope"]', "To: -\n\ntr a-z A-Z\n");
  await page.click('button:has-text("Make it")');
  await page.click('a[href="/_/edit/lin-shout"]');
  await page.locator(".cm-content", { hasText: "tr a-z A-Z" }).waitFor();
  await page.locator("#live-state.live").waitFor();

  // Edit and save with Ctrl-S.
  const greeted = 'echo "greeted $REQUEST_METHOD" >&2';
  const envelope = `# Greets whoever writes in.\nTo: -\n\n${greeted}\nsed "s/^/$GREETING, /"\n`;
  await typeEnvelope(page, envelope);
  await page.keyboard.press("ControlOrMeta+S");
  await page.locator("#save-status.ok").waitFor();
  const saved = await page.evaluate(async () => (await (await fetch("/_/api/fifos/lin-shout")).json()).envelope);
  assert.equal(saved, envelope);

  // A refused envelope: its error is shown and marked on its line.
  await typeEnvelope(page, "To: -\n\necho ok\necho )\n");
  await page.click("#save");
  await page.locator("#save-status.error").waitFor();
  assert.match(await page.textContent("#save-status"), /line 4, column \d+/);
  await page.locator(".cm-line").nth(3).locator(".cm-lintRange-error").waitFor();
  await page.screenshot({ path: path.join(SHOTS, "refused.png"), fullPage: true });
  await typeEnvelope(page, envelope);
  await page.keyboard.press("ControlOrMeta+S");
  await page.locator("#save-status.ok").waitFor();

  // A schedule: once saved, its next run is shown; without one, none is.
  await typeEnvelope(page, `Schedule: @daily\n${envelope}`);
  await page.keyboard.press("ControlOrMeta+S");
  await page.locator("#save-status.ok").waitFor();
  const midnight = new Date((Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000).toISOString().replace(".000Z", "Z");
  await page.locator("#next-run", { hasText: `Next scheduled run: ${midnight}` }).waitFor();
  await typeEnvelope(page, envelope);
  await page.keyboard.press("ControlOrMeta+S");
  await page.locator("#save-status.ok").waitFor();
  await page.locator("#next-run").waitFor({ state: "hidden" });

  // A variable: its name and length are shown, never its value.
  await page.fill('#var-form input[name="name"]', "GREETING");
  await page.fill('#var-form input[name="value"]', "hello");
  await page.click('#var-form button[type="submit"]');
  await page.locator("#var-list tr", { hasText: "GREETING" }).waitFor();
  assert.match(await page.textContent("#var-list"), /GREETING\s*5 bytes/);
  assert.doesNotMatch(await page.textContent("body"), /hello,|>hello</);

  // Try it.
  await page.fill('#try-form input[name="path"]', "from-page");
  await page.fill('#try-form textarea[name="body"]', "the page");
  await page.click('#try-form button[type="submit"]');
  await page.locator("#try-answer .status", { hasText: "200" }).waitFor();
  assert.equal(await page.textContent("#try-answer .body"), "hello, the page");
  // With the steps its log entry says it spent.
  await page.locator("#try-answer .steps button").waitFor();
  const tried = await page.evaluate(async () => (await (await fetch("/_/api/fifos/lin-shout/log?limit=1")).json()).entries[0]);
  assert.equal(tried.path, "/lin-shout/from-page");
  assert.match(await page.textContent("#try-answer .steps"), new RegExp(`^, ${tried.steps} steps`));
  assert.ok(tried.steps > 0);

  // A Request sent with curl is in the live log within a second.
  const sentAt = Date.now();
  assert.equal(curl("-X", "POST", "--data-binary", "from curl", `${worker.base}/lin-shout/by-curl?x=1`), "hello, from curl");
  await page.locator("#log-list tr", { hasText: "/lin-shout/by-curl" }).waitFor({ timeout: 1000 });
  const seenMs = Date.now() - sentAt;
  assert.ok(seenMs < 1000, `${seenMs} ms`);

  // Opened, it shows its headers and body.
  await page.click('#log-list button:has-text("/lin-shout/by-curl")');
  await page.locator("#log-entry .body", { hasText: "from curl" }).waitFor();
  assert.match(await page.textContent("#log-entry .headers"), /user-agent: curl\//);
  // And what its script wrote to stderr, as sh writes it.
  const stderr = spawnSync("sh", ["-c", greeted], { env: { ...process.env, REQUEST_METHOD: "POST" } }).stderr.toString();
  assert.equal(await page.textContent("#log-entry .stderr"), stderr);
  await page.locator("#log-entry").screenshot({ path: path.join(SHOTS, "entry.png") });

  // Resent from the page: through "try it", with its query, headers and body.
  await page.click("#log-entry button.resend");
  await page.locator("#try-answer .body", { hasText: "hello, from curl" }).waitFor();
  assert.equal(await page.inputValue('#try-form input[name="path"]'), "by-curl?x=1");
  assert.match(await page.inputValue('#try-form textarea[name="headers"]'), /^user-agent: curl\//m);
  await page.locator("#log-list tr", { hasText: "/lin-shout/by-curl" }).nth(1).waitFor();

  // The socket drops; what came meanwhile arrives when it is back.
  await page.evaluate(() => window.mkfifoEditor.dropLive());
  curl("-X", "PUT", "--data-binary", "while away", `${worker.base}/lin-shout/meanwhile`);
  await page.locator("#log-list tr", { hasText: "/lin-shout/meanwhile" }).waitFor({ timeout: 10_000 });
  await page.locator("#live-state.live").waitFor();
  const paths = await page.locator("#log-list tr td:nth-child(3)").allTextContents();
  assert.deepEqual(paths, ["/lin-shout/meanwhile", "/lin-shout/by-curl", "/lin-shout/by-curl", "/lin-shout/from-page"]);

  // A body that is not text is resent as it was, from the bytes the log keeps.
  const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x41, 0x0a, 0x80, 0x42, 0x0a]);
  const file = path.join(tempDir("mkfifo-binary-"), "body.bin");
  fs.writeFileSync(file, bytes);
  curl("-X", "POST", "-H", "Content-Type: application/octet-stream", "--data-binary", `@${file}`, `${worker.base}/lin-shout/binary`);
  await page.click('#log-list button:has-text("/lin-shout/binary")');
  await page.locator("#log-entry p", { hasText: "Not text" }).waitFor();
  await page.click("#log-entry button.resend");
  await page.locator("#log-list tr", { hasText: "/lin-shout/binary" }).nth(1).waitFor();
  assert.match(await page.getAttribute('#try-form textarea[name="body"]', "placeholder"), /^8 bytes that are not text/);
  const both = await page.evaluate(async () => (await (await fetch("/_/api/fifos/lin-shout/log?limit=2&bodies=1")).json()).entries);
  assert.deepEqual(both.map((e) => [e.path, e.request_bytes, e.body_base64]), [
    ["/lin-shout/binary", 8, bytes.toString("base64")],
    ["/lin-shout/binary", 8, bytes.toString("base64")],
  ]);
  // Replayed from the page: a new Request, run from the queue, whose entry names the one
  // it replays.
  await page.click("#log-entry button.replay");
  await page.locator("#log-entry p.replay-of").waitFor();
  await page.locator("#log-list tr", { hasText: "/lin-shout/binary" }).nth(2).waitFor();
  const replayed = await page.evaluate(async () => (await (await fetch("/_/api/fifos/lin-shout/log?limit=1&bodies=1")).json()).entries[0]);
  assert.equal(replayed.body_base64, bytes.toString("base64"));
  assert.equal(await page.textContent("#log-entry p.replay-of button"), both[1].request_id, "the entry that was open");
  await page.click("#log-entry button:has-text('Close')");

  await page.screenshot({ path: path.join(SHOTS, "editor.png"), fullPage: true });
  // On a phone: one column, nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, "editor-phone.png"), fullPage: true });
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > 391).map((e) => `${e.tagName}#${e.id}.${e.className}`).slice(0, 8),
  );
  assert.deepEqual(wide, [], "no sideways scrolling");
  await page.screenshot({ path: path.join(SHOTS, "editor-phone.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("signed out, the editor's page signs in and comes back to the editor", async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(`${worker.base}/_/edit/lin-shout`);
  await page.fill('input[name="email"]', "lin@example.com");
  const link = (await signinMail(worker, "lin@example.com", () => page.click("text=Send me a link"))).link;
  await page.locator("text=Check your mail").waitFor();
  await page.goto(link);
  await page.click('button:has-text("Sign in")');
  await page.locator(".cm-content", { hasText: "greeted" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/_/edit/lin-shout");
  await page.close();
});
