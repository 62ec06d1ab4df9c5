// The terminal client, bin/mkfifo.mjs, driven as a person would against local workerd:
// `login` in a pseudo-terminal (util-linux `script`), answering its prompts with the
// address and the link from the sign-in mail; then push (a refusal at FILE:LINE:COLUMN),
// pull, ls, vars set (the value from stdin), send, tail, replay and edit ($EDITOR).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { ROOT, api, readMail, sentMail, startServer, startWorker, tempDir, until } from "./harness.mjs";

const CLI = path.join(ROOT, "bin/mkfifo.mjs");
const config = tempDir("mkfifo-cli-config-");
const work = tempDir("mkfifo-cli-work-");
const env = { ...process.env, XDG_CONFIG_HOME: config };
let worker;

before(async () => (worker = await startWorker({ env: { TMPDIR: tempDir("mkfifo-cli-") } })));
after(() => worker.stop());

// Runs the client (never blocking this process, which reads the Worker's log).
function mkfifo(args, { input, extraEnv = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn("node", [CLI, ...args], { env: { ...env, ...extraEnv } });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("close", (code) => resolve({ code, out, err }));
    child.stdin.end(input);
  });
}

test("login in a terminal: the address, then the mailed link; the token is kept 0600", { timeout: 60_000 }, async () => {
  const seen = sentMail(worker).length;
  const child = spawn("script", ["-qefc", `node ${CLI} login ${worker.base}`, "/dev/null"], { env });
  let screen = "";
  child.stdout.on("data", (c) => (screen += c));
  const exited = new Promise((resolve) => child.on("close", resolve));
  await until(() => screen.includes("Email: "), "the email prompt");
  child.stdin.write("cli-user@example.com\r");
  await until(() => screen.includes("Paste the link"), "the link prompt");
  const message = readMail(await until(() => sentMail(worker)[seen], "the sign-in mail"));
  const link = message.text.match(/https?:\/\/\S+\/_\/signin\/\S+/)[0];
  child.stdin.write(`${link}\r`);
  assert.equal(await exited, 0, screen);
  assert.match(screen, /Signed in to http:\/\/127\.0\.0\.1:\d+ as cli-user@example\.com/);
  const file = path.join(config, "mkfifo", "config.json");
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const kept = JSON.parse(fs.readFileSync(file, "utf8"));
  assert.equal(kept.url, worker.base);
  assert.match(kept.token, /^mkf_/);
  assert.ok(!screen.includes(kept.token), "the token is not shown");
  // The link is used up: a second login with it is refused.
  const again = await mkfifo(["login", worker.base], { input: `cli-user@example.com\n${link}\n`, extraEnv: { XDG_CONFIG_HOME: tempDir() } });
  assert.equal(again.code, 1);
  assert.match(again.err, /^mkfifo: login: the link is not good/m);
});

test("push refuses at FILE:LINE:COLUMN; pull, ls, vars, send", async () => {
  const bad = path.join(work, "echo.envelope");
  fs.writeFileSync(bad, "To: -\nSchedule: 61 * * * *\n\ncat\n");
  let r = await mkfifo(["push", "cli-echo", bad]);
  assert.equal(r.code, 1);
  assert.equal(r.err, `mkfifo: ${bad}:2:11: error: Schedule: the minute field is 0 to 59, not 61\n`);
  const envelope = "To: -\nX-A: $HTTP_X_A\n\nprintf '%s %s %s %s/%s' \"$REQUEST_METHOD\" \"$PATH_INFO\" \"$QUERY_STRING\" \"$(cat)\" \"$HTTP_X_A\"\n";
  fs.writeFileSync(bad, envelope);
  r = await mkfifo(["push", "cli-echo", bad]);
  assert.deepEqual([r.code, r.err], [0, ""]);
  r = await mkfifo(["pull", "cli-echo"]);
  assert.deepEqual([r.code, r.out], [0, envelope]);
  r = await mkfifo(["ls"]);
  assert.match(r.out, /^cli-echo\t0\t-$/m);
  assert.equal((await mkfifo(["pull", "cli-none"])).code, 1);
  assert.equal((await mkfifo(["push", "cli-echo", path.join(work, "missing")])).err, `mkfifo: push: ${path.join(work, "missing")}: no such file\n`);
  assert.equal((await mkfifo(["push"])).code, 2);

  r = await mkfifo(["vars", "cli-echo", "set", "API_KEY"], { input: "s3cret value" });
  assert.equal(r.code, 0, r.err);
  const fifo = await (await api(worker.base, "GET", "fifos/cli-echo")).json();
  assert.deepEqual(fifo.vars.map((v) => [v.name, v.length]), [["API_KEY", 12]]);
  assert.equal((await mkfifo(["vars", "cli-echo"])).out, "API_KEY\t12\n");

  r = await mkfifo(["send", "cli-echo/sub?x=1", "-X", "PUT", "-H", "X-A: b", "-d", "hello"]);
  assert.deepEqual([r.code, r.out], [0, "PUT /sub x=1 hello/b"]);
  fs.writeFileSync(path.join(work, "body"), "from a file");
  r = await mkfifo(["send", "cli-echo", "-i", "--data-binary", `@${path.join(work, "body")}`]);
  assert.match(r.out, /^200 OK\n[\s\S]*\n\nPOST   from a file\/$/);
  r = await mkfifo(["send", "cli-echo", "-d", "@-"], { input: "piped" });
  assert.equal(r.out, "POST   piped/");
  r = await mkfifo(["send", "cli-nothing-here"]);
  assert.equal(r.code, 1);
  assert.match(r.out, /^404 no FIFO named cli-nothing-here/);
  assert.equal(r.err, "mkfifo: send: 404 Not Found\n");
  assert.equal((await mkfifo(["send", "cli-echo", "-Z"])).code, 2);

  // rm deletes the FIFO; a second rm says there is none.
  await mkfifo(["push", "cli-gone", bad]);
  r = await mkfifo(["rm", "cli-gone"]);
  assert.deepEqual([r.code, r.out, r.err], [0, "", ""]);
  assert.doesNotMatch((await mkfifo(["ls"])).out, /^cli-gone\t/m);
  r = await mkfifo(["rm", "cli-gone"]);
  assert.equal(r.code, 1);
  assert.match(r.err, /^mkfifo: .*cli-gone/);
  assert.equal((await mkfifo(["rm"])).code, 2);
});

test("tail prints each Request as it is logged; replay sends one again", { timeout: 60_000 }, async () => {
  const child = spawn("node", [CLI, "tail", "cli-echo", "--json", "-n", "1"], { env });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  const exited = new Promise((resolve) => child.on("close", resolve));
  const lines = () => out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  await until(() => lines().length === 1, "the newest entry");
  assert.equal(lines()[0].method, "POST");
  await mkfifo(["send", "cli-echo/while-tailing", "-d", "live"]);
  await until(() => lines().length === 2, "the new Request");
  const live = lines()[1];
  assert.equal(live.path, "/cli-echo/while-tailing");
  assert.equal(live.status, 200);

  const r = await mkfifo(["replay", "cli-echo", live.request_id]);
  assert.equal(r.code, 0, r.err);
  const id = r.out.trim();
  await until(() => lines().some((e) => e.request_id === id), "the replay in the tail");
  assert.equal(lines().find((e) => e.request_id === id).replay_of, live.request_id);
  child.kill("SIGINT");
  assert.equal(await exited, 0);

  // Plain lines: time, id, method, path, status.
  const plain = await new Promise((resolve) => {
    const t = spawn("node", [CLI, "tail", "cli-echo", "-n", "1"], { env });
    let text = "";
    t.stdout.on("data", (c) => {
      text += c;
      if (text.includes("\n")) t.kill("SIGINT");
    });
    t.on("close", () => resolve(text));
  });
  assert.match(plain, new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z ${id} POST /cli-echo/while-tailing 202 \\d+ms 4B delivery=\\w+ replay_of=${live.request_id}`));
  assert.equal((await mkfifo(["replay", "cli-echo", "nonesuch"])).err, "mkfifo: no Request nonesuch in the log\n");

  // A Request whose delivery moves on (pending, then delivered) is printed again.
  const slow = await startServer((req, res) => setTimeout(() => res.end("ok"), 1500));
  const later = path.join(work, "later.envelope");
  fs.writeFileSync(later, `To: ${slow.url}/in\n\ncat\n`);
  assert.equal((await mkfifo(["push", "cli-later", later])).code, 0);
  const watching = spawn("node", [CLI, "tail", "cli-later", "--json"], { env });
  let seen = "";
  watching.stdout.on("data", (c) => (seen += c));
  const closed = new Promise((resolve) => watching.on("close", resolve));
  await new Promise((resolve) => setTimeout(resolve, 1000)); // its socket open
  const sent = await mkfifo(["send", "cli-later", "-d", "x"]);
  const { id: later_id } = JSON.parse(sent.out);
  const states = () => seen.split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.request_id === later_id).map((e) => e.delivery);
  await until(() => states().length >= 2, "the entry printed again as its delivery moved on");
  assert.deepEqual(states(), ["pending", "delivered"]);
  watching.kill("SIGINT");
  assert.equal(await closed, 0);
  await slow.close();
});

test("edit opens $EDITOR, saves on exit, and reopens on an error", async () => {
  // An editor that writes a bad envelope first, then a good one.
  const editor = path.join(work, "editor.sh");
  const count = path.join(work, "count");
  fs.writeFileSync(
    editor,
    `#!/bin/sh\nn=$(cat "${count}" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "${count}"\n` +
      `if [ $n = 1 ]; then printf 'To: -\\n\\necho "unclosed\\n' > "$1"; else printf 'To: -\\n\\necho fixed\\n' > "$1"; fi\n`,
    { mode: 0o755 },
  );
  const r = await mkfifo(["edit", "cli-echo"], { extraEnv: { EDITOR: editor, VISUAL: "" } });
  assert.equal(r.code, 0, r.err);
  // At the line and column the API gives.
  const refused = await (await api(worker.base, "PUT", "fifos/cli-refused", 'To: -\n\necho "unclosed\n')).json();
  assert.match(r.err, new RegExp(`^/\\S+/cli-echo\\.envelope:${refused.line}:${refused.column}: error: unexpected EOF`, "m"));
  assert.match(r.err, /opening it again/);
  assert.match(r.err, /mkfifo: edit: cli-echo saved\n$/);
  assert.equal(fs.readFileSync(count, "utf8").trim(), "2");
  assert.equal((await mkfifo(["pull", "cli-echo"])).out, "To: -\n\necho fixed\n");
});
