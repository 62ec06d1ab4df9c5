// The README's first command: scripts/dev.sh starts mkfifo, prints the operator token and
// a sign-in link that works, and announces later sign-in mail in its output.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { ROOT, freePort, tempDir, until } from "./harness.mjs";

const devVars = path.join(ROOT, ".dev.vars");
const hadDevVars = fs.existsSync(devVars);
let child, output = "", base;
const address = `dev-${process.pid}@example.com`;

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(
    path.join(ROOT, "scripts/dev.sh"),
    ["--persist-to", tempDir("mkfifo-dev-"), "--inspector-port", String(await freePort())],
    {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PORT: String(port), MKFIFO_DEV_EMAIL: address, TMPDIR: tempDir("mkfifo-dev-mail-"), MKFIFO_SKIP_BUILD: "1" },
    },
  );
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  await until(() => output.includes("mkfifo is running") || child.exitCode !== null, "scripts/dev.sh to start", 120_000);
});

after(() => {
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {}
  // scripts/dev.sh writes a local operator token when there is none; leave none behind.
  if (!hadDevVars) fs.rmSync(devVars, { force: true });
});

test("scripts/dev.sh prints a sign-in link that signs its address in", async () => {
  const link = output.match(new RegExp(`sign in as ${address}: (\\S+)`))?.[1];
  assert.ok(link, output);
  assert.ok(link.startsWith(`${base}/_/signin/`), link);
  assert.match(output, /operator token \(JSON API\): local-[0-9a-f]{24}/);
  const done = await fetch(link, { method: "POST", headers: { Origin: base }, redirect: "manual" });
  assert.equal(done.status, 303);
  const cookie = done.headers.get("set-cookie").split(";")[0];
  const home = await (await fetch(`${base}/`, { headers: { Cookie: cookie } })).text();
  assert.match(home, new RegExp(`Signed in as <strong>${address}</strong>`));
  // The default setup's FIFO answers.
  assert.equal(await (await fetch(`${base}/hello/`, { method: "POST", body: "hi" })).text(), "hi");
});

test("a sign-in asked for later shows its link in the output", async () => {
  const later = `later-${process.pid}@example.com`;
  const r = await fetch(`${base}/_/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
    body: new URLSearchParams({ email: later }).toString(),
  });
  assert.equal(r.status, 200);
  await until(() => output.includes(`mail to ${later}: Your mkfifo sign-in link`), "the mail in the output");
  assert.match(output, new RegExp(`mail to ${later}: [^\\n]*\\n  sign in: ${base}/_/signin/\\S+`));
});
