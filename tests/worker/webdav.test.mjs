// WebDAV of the S3 backend (envelopes/s3), with real rclone as the client: a `webdav`
// remote (vendor other) pointed at the FIFO, beside an `s3` remote on the same bucket of a
// real local S3 (`rclone serve s3`, which checks every signature). What rclone sees through
// the FIFO is compared with what it sees in the bucket directly; crypt remotes layered on
// each read what the other wrote.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import { api, runRclone, startRcloneS3, startWorker, tempDir } from "./harness.mjs";

const KEY = "AKIDMKFIFODAV";
const SECRET = "dav/s3cr3t+=";
const BUCKET = "bkt";
const names = ["a.json", "with space.txt", "Ünï%+#.txt", "a&b<c>.txt", "empty", "sub/c.md", "sub/deeper/d.txt"];
const when = new Date("2024-01-02T03:04:05.123Z");
let data, s3, worker, confFile, base;

// rclone with the test's remotes (see runRclone).
const rclone = (args, options) => runRclone(confFile, args, options);
// A listing reduced to what both backends can say: WebDAV times are whole seconds, its
// directories carry no time and size -1; entries in path order.
const comparable = (json) =>
  JSON.parse(json)
    .map((e) => (e.IsDir ? { Path: e.Path, Name: e.Name, IsDir: true } : { Path: e.Path, Name: e.Name, Size: e.Size, MimeType: e.MimeType, ModTime: e.ModTime.replace(/\.\d+Z$/, "Z"), IsDir: false }))
    .sort((a, b) => (a.Path < b.Path ? -1 : a.Path > b.Path ? 1 : 0));
const propfind = (p, depth, headers = {}) =>
  fetch(`${base}/files/${p}`, { method: "PROPFIND", headers: depth === undefined ? headers : { Depth: depth, ...headers } });
const size = (name) => String(fs.statSync(path.join(data, BUCKET, "dir", name)).size);
const urlPath = (p) => p.split("/").map(encodeURIComponent).join("/");
// The responses of a multistatus: href, displayname, length, time, collection or not.
const responses = (xml) =>
  [...xml.matchAll(/<D:response>(.*?)<\/D:response>/g)].map(([, r]) => ({
    href: r.match(/<D:href>(.*?)<\/D:href>/)[1],
    name: r.match(/<D:displayname>(.*?)<\/D:displayname>/)[1],
    length: r.match(/<D:getcontentlength>(.*?)<\/D:getcontentlength>/)?.[1],
    modified: r.match(/<D:getlastmodified>(.*?)<\/D:getlastmodified>/)?.[1],
    collection: r.includes("<D:collection/>"),
  }));

before(async () => {
  data = tempDir("mkfifo-dav-");
  const bucket = path.join(data, BUCKET);
  for (const name of names) {
    const file = path.join(bucket, "dir", name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, name === "empty" ? "" : `content of ${name}\n`);
    fs.utimesSync(file, when, when);
  }
  fs.mkdirSync(path.join(bucket, "big"));
  fs.writeFileSync(path.join(bucket, "big/20m.bin"), crypto.randomBytes(20 << 20));
  fs.mkdirSync(path.join(bucket, "many"));
  for (let i = 0; i < 2500; i++) fs.writeFileSync(path.join(bucket, "many", `k${String(i).padStart(4, "0")}.txt`), `${i}\n`);
  [s3, worker] = await Promise.all([startRcloneS3(data, KEY, SECRET), startWorker()]);
  base = worker.base;
  assert.equal((await api(base, "PUT", "fifos/files?from=s3")).status, 201);
  for (const [k, v] of Object.entries({ S3_ENDPOINT: s3.url, S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: KEY, S3_SECRET_ACCESS_KEY: SECRET })) {
    assert.equal((await api(base, "PUT", `fifos/files/vars/${k}`, v)).status, 200);
  }
  confFile = path.join(data, "rclone.conf");
  fs.writeFileSync(confFile, `[s3]\ntype = s3\nprovider = Rclone\nendpoint = ${s3.url}\naccess_key_id = ${KEY}\nsecret_access_key = ${SECRET}\n` +
    `[dav]\ntype = webdav\nurl = ${base}/files/\nvendor = other\n`);
  const password = (await rclone(["obscure", "a crypt password"])).stdout.trim();
  fs.appendFileSync(confFile, `[s3crypt]\ntype = crypt\nremote = s3:${BUCKET}/secret\npassword = ${password}\n` +
    `[davcrypt]\ntype = crypt\nremote = dav:secret\npassword = ${password}\n`);
});
after(async () => {
  await worker?.stop();
  await s3?.stop();
  if (data) fs.rmSync(data, { recursive: true, force: true });
});

test("PROPFIND of a file, Depth 0: one response with its length, time and name", async () => {
  const r = await propfind(`dir/${urlPath("a&b<c>.txt")}`, "0");
  assert.equal(r.status, 207);
  assert.equal(r.headers.get("content-type"), 'application/xml; charset="utf-8"');
  const xml = await r.text();
  assert.match(xml, /^<\?xml version="1.0" encoding="utf-8"\?>\n<D:multistatus xmlns:D="DAV:">/);
  assert.deepEqual(responses(xml), [
    { href: "/files/dir/a%26b%3Cc%3E.txt", name: "a&amp;b&lt;c&gt;.txt", length: size("a&b<c>.txt"), modified: when.toUTCString(), collection: false },
  ]);
  assert.match(xml, /<D:getetag>"[0-9a-f]{32}"<\/D:getetag>/);
  assert.match(xml, /<D:getcontenttype>text\/plain; charset=utf-8<\/D:getcontenttype>/);
});

test("PROPFIND of a directory: Depth 0 with or without its slash, 1 and infinity; nothing is 404", async () => {
  for (const p of ["dir", "dir/"]) {
    const r = await propfind(p, "0");
    assert.equal(r.status, 207, p);
    assert.deepEqual(responses(await r.text()), [{ href: "/files/dir/", name: "dir", length: undefined, modified: undefined, collection: true }], p);
  }
  const one = responses(await (await propfind("dir/", "1")).text());
  assert.deepEqual(one.map((e) => [e.href, e.collection, e.length]), [
    ["/files/dir/", true, undefined],
    ["/files/dir/a%26b%3Cc%3E.txt", false, size("a&b<c>.txt")],
    ["/files/dir/a.json", false, size("a.json")],
    ["/files/dir/empty", false, "0"],
    ["/files/dir/with%20space.txt", false, size("with space.txt")],
    ["/files/dir/%C3%9Cn%C3%AF%25%2B%23.txt", false, size("Ünï%+#.txt")],
    ["/files/dir/sub/", true, undefined],
  ]);
  assert.equal(one.find((e) => e.href.includes("%C3%9C")).name, "Ünï%+#.txt");
  const all = responses(await (await propfind("dir/sub/", "infinity")).text());
  assert.deepEqual(all.map((e) => e.href), ["/files/dir/sub/", "/files/dir/sub/c.md", "/files/dir/sub/deeper/d.txt", "/files/dir/sub/deeper/"]);
  // No Depth header means infinity (RFC 4918).
  assert.deepEqual(responses(await (await propfind("dir/sub/", undefined)).text()).length, 4);
  const root = responses(await (await propfind("", "1")).text());
  assert.deepEqual(root.map((e) => e.href), ["/files/", "/files/big/", "/files/dir/", "/files/many/"]);
  const missing = await propfind("dir/nope.txt", "0");
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /no file or directory \/dir\/nope.txt/);
  const bad = await propfind("dir/", "2");
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /Depth is 0, 1 or infinity, not 2/);
});

test("a Depth 1 listing of 2,500 keys is read page by page", async () => {
  const many = responses(await (await propfind("many/", "1")).text());
  assert.equal(many.length, 2501);
  assert.equal(many.at(-1).href, "/files/many/k2499.txt");
});

test("rclone lsjson -R through the FIFO lists what it lists from S3", async () => {
  for (const dir of ["dir", "many", ""]) {
    const dav = (await rclone(["lsjson", "-R", `dav:${dir}`])).stdout;
    const direct = (await rclone(["lsjson", "-R", `s3:${BUCKET}/${dir}`])).stdout;
    assert.deepEqual(comparable(dav), comparable(direct), `lsjson -R of ${dir || "the root"}`);
  }
  // A time with milliseconds is its second over WebDAV.
  const a = JSON.parse((await rclone(["lsjson", "dav:dir"])).stdout).find((e) => e.Name === "a.json");
  assert.equal(a.ModTime, "2024-01-02T03:04:05Z");
});

test("with S3_PREFIX the FIFO's root is the prefix: hrefs, and rclone's listing of it", async () => {
  assert.equal((await api(base, "PUT", "fifos/sub?from=s3")).status, 201);
  const vars = { S3_ENDPOINT: s3.url, S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: KEY, S3_SECRET_ACCESS_KEY: SECRET, S3_PREFIX: "dir/sub/" };
  for (const [k, v] of Object.entries(vars)) assert.equal((await api(base, "PUT", `fifos/sub/vars/${k}`, v)).status, 200);
  const r = await fetch(`${base}/sub/`, { method: "PROPFIND", headers: { Depth: "1" } });
  assert.equal(r.status, 207);
  assert.deepEqual(responses(await r.text()).map((e) => e.href), ["/sub/", "/sub/c.md", "/sub/deeper/"]);
  fs.appendFileSync(confFile, `[davsub]\ntype = webdav\nurl = ${base}/sub/\nvendor = other\n`);
  const dav = (await rclone(["lsjson", "-R", "davsub:"])).stdout;
  assert.deepEqual(comparable(dav), comparable((await rclone(["lsjson", "-R", `s3:${BUCKET}/dir/sub`])).stdout));
});

test("rclone cat and copy from the FIFO give the bucket's bytes; check --download finds no difference", async () => {
  assert.equal((await rclone(["cat", "dav:dir/Ünï%+#.txt"])).stdout, "content of Ünï%+#.txt\n");
  const out = path.join(data, "out");
  await rclone(["copy", "dav:dir", out]);
  for (const name of names) assert.deepEqual(fs.readFileSync(path.join(out, name)), fs.readFileSync(path.join(data, BUCKET, "dir", name)), name);
  await rclone(["copy", "dav:big", path.join(data, "out-big")]);
  assert.deepEqual(fs.readFileSync(path.join(data, "out-big/20m.bin")), fs.readFileSync(path.join(data, BUCKET, "big/20m.bin")));
  const check = await rclone(["check", "--download", "dav:dir", `s3:${BUCKET}/dir`]);
  assert.match(check.stderr, /0 differences found/);
  assert.match(check.stderr, /7 matching files/);
});

test("rclone copy into the FIFO, then delete, mkdir, rmdir and purge", async () => {
  const src = path.join(data, "src");
  fs.mkdirSync(path.join(src, "a b/c"), { recursive: true });
  fs.writeFileSync(path.join(src, "a b/c/ü+#%.txt"), "deep\n");
  fs.writeFileSync(path.join(src, "5m.bin"), crypto.randomBytes(5 << 20));
  fs.writeFileSync(path.join(src, "empty.txt"), "");
  await rclone(["copy", src, "dav:up"]);
  assert.match((await rclone(["check", "--download", src, `s3:${BUCKET}/up`])).stderr, /0 differences found/);
  assert.match((await rclone(["check", "--download", src, "dav:up"])).stderr, /3 matching files/);
  await rclone(["delete", "dav:up/a b/c/ü+#%.txt"]);
  assert.deepEqual(JSON.parse((await rclone(["lsjson", "-R", `s3:${BUCKET}/up`])).stdout).map((e) => e.Path), ["5m.bin", "empty.txt"]);
  // S3 has no empty directories: mkdir succeeds and the new one lists empty, as over S3.
  await rclone(["mkdir", "dav:newdir"]);
  assert.equal((await rclone(["lsjson", "dav:newdir"])).stdout, (await rclone(["lsjson", `s3:${BUCKET}/newdir`])).stdout);
  await rclone(["rmdir", "dav:newdir"]);
  await rclone(["purge", "dav:up"]);
  assert.equal((await rclone(["lsjson", `s3:${BUCKET}/up`])).stdout, "[\n]\n");
  assert.deepEqual(fs.readdirSync(path.join(data, BUCKET)).sort(), ["big", "dir", "many"]);
});

test("crypt over the FIFO reads what crypt over S3 wrote, and the other way", async () => {
  const one = path.join(data, "plain1");
  fs.mkdirSync(path.join(one, "nested dir"), { recursive: true });
  fs.writeFileSync(path.join(one, "nested dir/ünï.txt"), "secret text\n");
  fs.writeFileSync(path.join(one, "blob.bin"), crypto.randomBytes((1 << 20) + 3));
  await rclone(["copy", one, "s3crypt:"]);
  assert.match((await rclone(["check", "--download", one, "davcrypt:"])).stderr, /2 matching files/);
  assert.equal((await rclone(["cat", "davcrypt:nested dir/ünï.txt"])).stdout, "secret text\n");
  const two = path.join(data, "plain2");
  fs.mkdirSync(two);
  fs.writeFileSync(path.join(two, "from dav.txt"), "written through the FIFO\n");
  await rclone(["copy", two, "davcrypt:two"]);
  assert.equal((await rclone(["cat", "s3crypt:two/from dav.txt"])).stdout, "written through the FIFO\n");
  // The bucket holds only encrypted names.
  assert.ok(!(await rclone(["lsf", "-R", `s3:${BUCKET}/secret`])).stdout.includes("from dav"));
});

test("MKCOL where a file or directory is is 405; OPTIONS says DAV 1; other methods are 405 with Allow", async () => {
  const onFile = await fetch(`${base}/files/dir/a.json/`, { method: "MKCOL" });
  assert.equal(onFile.status, 405);
  assert.match(await onFile.text(), /\/dir\/a.json is a file/);
  const onDir = await fetch(`${base}/files/dir/sub/`, { method: "MKCOL" });
  assert.equal(onDir.status, 405);
  assert.match(await onDir.text(), /\/dir\/sub\/ exists/);
  const fresh = await fetch(`${base}/files/fresh/`, { method: "MKCOL" });
  assert.equal(fresh.status, 201);
  await fresh.arrayBuffer();
  const withBody = await fetch(`${base}/files/fresh2/`, { method: "MKCOL", body: "<x/>" });
  assert.equal(withBody.status, 415);
  assert.match(await withBody.text(), /MKCOL takes no body/);
  const options = await fetch(`${base}/files/dir/`, { method: "OPTIONS" });
  assert.equal(options.status, 200);
  await options.arrayBuffer();
  assert.equal(options.headers.get("dav"), "1");
  assert.match(options.headers.get("allow"), /PROPFIND/);
  const lock = await fetch(`${base}/files/dir/a.json`, { method: "LOCK" });
  assert.equal(lock.status, 405);
  assert.match(await lock.text(), /LOCK is not one of/);
  assert.equal(lock.headers.get("allow"), options.headers.get("allow"));
});

test("COPY and MOVE within the FIFO: rclone's server-side copyto and moveto, a directory moved onto another", async () => {
  const lsf = async (dir) => (await rclone(["lsf", "-R", "--files-only", `s3:${BUCKET}/${dir}`])).stdout.split("\n").filter(Boolean).sort();
  const copied = await rclone(["copyto", "-v", "dav:dir/with space.txt", "dav:moves/ü+ #copy.txt"]);
  assert.match(copied.stderr, /Copied \(server-side copy\)/);
  const moved = await rclone(["moveto", "-v", "dav:moves/ü+ #copy.txt", "dav:moves/moved.txt"]);
  assert.match(moved.stderr, /Moved \(server-side\)/);
  assert.deepEqual(await lsf("moves"), ["moved.txt"]);
  assert.equal((await rclone(["cat", `s3:${BUCKET}/moves/moved.txt`])).stdout, "content of with space.txt\n");
  const move = (from, to, headers = {}) => fetch(`${base}/files/${from}`, { method: "MOVE", headers: { Destination: to, ...headers } });
  const copy = (from, to, headers = {}) => fetch(`${base}/files/${from}`, { method: "COPY", headers: { Destination: to, ...headers } });
  // A directory, by a full URL and by a path, without and with its slash.
  let r = await copy("dir", `${base}/files/moves/d1/`);
  assert.equal(r.status, 201, await r.text());
  r = await copy("dir/", "/files/moves/d2");
  assert.equal(r.status, 201, await r.text());
  const tree = (await lsf("dir")).filter((p) => !p.startsWith("secret"));
  assert.deepEqual(await lsf("moves/d1"), tree);
  // Onto a directory that exists: refused with Overwrite F; replaced (not merged) with T.
  await rclone(["copyto", "dav:dir/a.json", "dav:moves/d2/only-in-d2.json"]);
  r = await move("moves/d1/", `${base}/files/moves/d2/`, { Overwrite: "F" });
  assert.equal(r.status, 412);
  assert.match(await r.text(), /\/moves\/d2\/ exists \(Overwrite: F\)/);
  r = await move("moves/d1/", `${base}/files/moves/d2/`);
  assert.equal(r.status, 204, await r.text());
  assert.deepEqual(await lsf("moves/d2"), tree);
  assert.deepEqual(await lsf("moves/d1"), []);
  r = await copy("moves/moved.txt", `${base}/files/moves/d2/a.json`, { Overwrite: "F" });
  assert.equal(r.status, 412);
  r = await move("moves/d2/", `${base}/files/moves/d2/inner/`);
  assert.equal(r.status, 403);
  assert.match(await r.text(), /cannot go into itself/);
  r = await copy("moves/moved.txt", "http://elsewhere.example/other/x.txt");
  assert.equal(r.status, 502);
  assert.match(await r.text(), /Destination is not a path of \/files\//);
  r = await copy("moves/nothing-here/", `${base}/files/moves/x/`);
  assert.equal(r.status, 404);
  await r.arrayBuffer();
  await rclone(["purge", "dav:moves"]);
});

test("rclone purge of 2,500 keys deletes them 1,000 at a time", async () => {
  await rclone(["purge", "dav:many"]);
  assert.equal((await rclone(["lsjson", `s3:${BUCKET}/many`])).stdout, "[\n]\n");
  assert.ok(!fs.existsSync(path.join(data, BUCKET, "many")));
});

// litmus, the WebDAV compliance suite (Debian's litmus 0.13), run on the FIFO suite by
// suite (it stops at the first suite that fails). Each test that fails is one the README
// names, with why; any other failing, or one of these passing, fails this test.
test("litmus: every WebDAV test passes but those the README names", async () => {
  const expected = {
    // S3 has no empty directories: a collection exists only while keys are under it.
    basic: ["put_no_parent", "mkcol_again", "mkcol_no_parent"],
    copymove: ["copy_nodestcoll"],
    // No PROPPATCH, and PROPFIND does not read its body (every property comes).
    props: ["propfind_invalid", "propfind_invalid2", "propset", "propmanyns", "propget"],
    // Class 1: litmus runs no lock test.
    locks: [],
    // wrangler dev sends no 100 Continue ahead of the body.
    http: ["expect100"],
  };
  const dir = tempDir("mkfifo-litmus-");
  try {
    for (const [suite, failing] of Object.entries(expected)) {
      const r = spawnSync("litmus", [`${base}/files/`], { cwd: dir, env: { ...process.env, TESTS: suite }, encoding: "utf8", timeout: 300_000 });
      const summary = r.stdout.match(/summary for `\w+': of (\d+) tests run: (\d+) passed/);
      assert.ok(summary, `${suite}: ${r.stdout}${r.stderr}`);
      const failed = [...r.stdout.matchAll(/\d+\. (\w+)\.*\s*FAIL/g)].map((m) => m[1]);
      assert.deepEqual(failed, failing, `${suite}:\n${r.stdout}`);
      assert.equal(Number(summary[2]), Number(summary[1]) - failing.length, suite);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
