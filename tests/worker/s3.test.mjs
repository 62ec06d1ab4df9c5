// The S3 backend (envelopes/s3) against a real local S3: `rclone serve s3`, which checks
// every request's AWS Signature V4, over a folder of awkward names, an empty file, a
// 20 MiB file and 2,500 keys. Listings are compared with what the real `rclone lsjson`
// prints for the same bucket.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { api, getLog, rclone, startRcloneS3, startWorker, tempDir } from "./harness.mjs";

const KEY = "AKIDMKFIFOTEST";
const SECRET = "s3cr3t/with+signs=";
const BUCKET = "bkt";
const big = crypto.randomBytes(20 * 1024 * 1024);
const names = ["a.json", "with space.txt", "Ünï%+#.txt", "a&b<c>.txt", "empty", "sub/c.md", "sub/deeper/d.txt"];
let data, s3, worker, conf;

// Each segment encoded as a browser would send it.
const urlPath = (p) => p.split("/").map(encodeURIComponent).join("/");
const lsjson = (args) => rclone(conf, ["lsjson", ...args]).toString();

before(async () => {
  data = tempDir("mkfifo-s3-");
  const bucket = path.join(data, BUCKET);
  for (const name of names) {
    fs.mkdirSync(path.dirname(path.join(bucket, "dir", name)), { recursive: true });
    fs.writeFileSync(path.join(bucket, "dir", name), name === "empty" ? "" : `content of ${name}\n`);
  }
  fs.writeFileSync(path.join(bucket, "dir/a.json"), '{"a": [1, 2], "b": "x"}\n');
  fs.mkdirSync(path.join(bucket, "big"));
  fs.writeFileSync(path.join(bucket, "big/20m.bin"), big);
  fs.mkdirSync(path.join(bucket, "many"));
  for (let i = 0; i < 2500; i++) fs.writeFileSync(path.join(bucket, "many", `k${String(i).padStart(4, "0")}.txt`), `${i}\n`);
  // Times with milliseconds, as S3 listings keep them.
  fs.utimesSync(path.join(bucket, "dir/a.json"), new Date("2024-01-02T03:04:05.123Z"), new Date("2024-01-02T03:04:05.123Z"));
  fs.mkdirSync(path.join(bucket, "up"));
  fs.writeFileSync(path.join(bucket, "up/keep.txt"), "keep\n");
  [s3, worker] = await Promise.all([startRcloneS3(data, KEY, SECRET), startWorker()]);
  conf = `[s3]\ntype = s3\nprovider = Rclone\nendpoint = ${s3.url}\naccess_key_id = ${KEY}\nsecret_access_key = ${SECRET}\n`;
  const put = await api(worker.base, "PUT", "fifos/files?from=s3");
  assert.equal(put.status, 201, await put.text());
  for (const [k, v] of Object.entries({ S3_ENDPOINT: s3.url, S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: KEY, S3_SECRET_ACCESS_KEY: SECRET })) {
    const r = await api(worker.base, "PUT", `fifos/files/vars/${k}`, v);
    assert.equal(r.status, 200, await r.text());
  }
});
after(async () => {
  await worker?.stop();
  await s3?.stop();
  if (data) fs.rmSync(data, { recursive: true, force: true });
});

test("the library envelope is installed by ?from=s3; a wrong name or a body with it is refused", async () => {
  const got = await (await api(worker.base, "GET", "fifos/files")).json();
  assert.equal(got.envelope, fs.readFileSync(new URL("../../envelopes/s3", import.meta.url), "utf8"));
  const wrong = await api(worker.base, "PUT", "fifos/other?from=nope");
  assert.equal(wrong.status, 400);
  assert.match(await wrong.text(), /from=nope: no envelope of that name in the library \(it has: s3\)/);
  const both = await api(worker.base, "PUT", "fifos/other?from=s3", "To: -\n");
  assert.equal(both.status, 400);
  assert.match(await both.text(), /send no body/);
  assert.equal((await api(worker.base, "GET", "fifos/other")).status, 404);
});

test("an unconfigured s3 FIFO says which variables it needs", async () => {
  assert.equal((await api(worker.base, "PUT", "fifos/bare?from=s3")).status, 201);
  const r = await fetch(`${worker.base}/bare/x.txt`);
  assert.equal(r.status, 500);
  assert.match(await r.text(), /set the FIFO's variables S3_ENDPOINT, S3_BUCKET/);
});

test("GET of a file is S3's answer: bytes, Content-Length, ETag, Last-Modified; names of every kind", async () => {
  for (const name of names) {
    // identity: the platform gzips text for a client that takes gzip (and drops the length).
    const r = await fetch(`${worker.base}/files/dir/${urlPath(name)}`, { headers: { "Accept-Encoding": "identity" } });
    const body = Buffer.from(await r.arrayBuffer());
    assert.equal(r.status, 200, `${name}: ${body}`);
    assert.deepEqual(body, fs.readFileSync(path.join(data, BUCKET, "dir", name)), name);
    assert.equal(r.headers.get("content-length"), String(body.length), name);
    assert.match(r.headers.get("etag") || "", /^"[0-9a-f]{32}"$/, name);
    assert.ok(r.headers.get("last-modified"), name);
  }
  const missing = await fetch(`${worker.base}/files/dir/nope.txt`);
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /NoSuchKey/);
});

test("the 20 MiB file passes through without entering WebAssembly", async () => {
  const r = await fetch(`${worker.base}/files/big/20m.bin`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-length"), String(big.length));
  const body = Buffer.from(await r.arrayBuffer());
  assert.equal(crypto.createHash("sha256").update(body).digest("hex"), crypto.createHash("sha256").update(big).digest("hex"));
  // The object answered only the passthrough's headers: its log says how few bytes.
  const entry = (await getLog(worker.base, "files")).find((e) => e.path === "/files/big/20m.bin");
  assert.ok(entry, "logged");
  assert.ok(entry.response_bytes < 1024, `the object's answer was ${entry.response_bytes} bytes`);
});

test("Range, If-None-Match and HEAD pass through", async () => {
  const ranged = await fetch(`${worker.base}/files/big/20m.bin`, { headers: { Range: "bytes=2-5" } });
  assert.deepEqual(Buffer.from(await ranged.arrayBuffer()), big.subarray(2, 6));
  assert.equal(ranged.headers.get("content-range"), `bytes 2-5/${big.length}`);
  const first = await fetch(`${worker.base}/files/dir/a.json`);
  await first.arrayBuffer();
  const etag = first.headers.get("etag");
  const again = await fetch(`${worker.base}/files/dir/a.json`, { headers: { "If-None-Match": etag } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("etag"), etag);
  const head = await fetch(`${worker.base}/files/big/20m.bin`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), String(big.length));
  assert.equal(head.headers.get("etag"), (await fetch(`${worker.base}/files/big/20m.bin`, { method: "HEAD" })).headers.get("etag"));
});

test("PUT uploads as the body streams, DELETE deletes; rclone sees both", async () => {
  const upload = crypto.randomBytes(3 * 1024 * 1024 + 17);
  const put = await fetch(`${worker.base}/files/up/${urlPath("new file ü+.bin")}`, { method: "PUT", body: upload });
  assert.equal(put.status, 200, await put.text());
  assert.deepEqual(rclone(conf, ["cat", `s3:${BUCKET}/up/new file ü+.bin`]), upload);
  const got = await fetch(`${worker.base}/files/up/${urlPath("new file ü+.bin")}`);
  assert.deepEqual(Buffer.from(await got.arrayBuffer()), upload);
  const small = await fetch(`${worker.base}/files/up/small.json`, {
    method: "PUT",
    body: "{}\n",
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(small.status, 200, await small.text());
  const empty = await fetch(`${worker.base}/files/up/empty.txt`, { method: "PUT", body: "" });
  assert.equal(empty.status, 200, await empty.text());
  assert.equal(rclone(conf, ["cat", `s3:${BUCKET}/up/empty.txt`]).length, 0);
  const del = await fetch(`${worker.base}/files/up/${urlPath("new file ü+.bin")}`, { method: "DELETE" });
  assert.equal(del.status, 204);
  assert.equal((await fetch(`${worker.base}/files/up/${urlPath("new file ü+.bin")}`)).status, 404);
  const listed = JSON.parse(lsjson([`s3:${BUCKET}/up`])).map((e) => e.Name);
  assert.deepEqual(listed, ["empty.txt", "keep.txt", "small.json"]);
  // A DELETE of nothing is 404; of a directory named without its final /, the directory.
  assert.equal((await fetch(`${worker.base}/files/up/nope.txt`, { method: "DELETE" })).status, 404);
  for (const name of ["a.txt", "b/c.txt"]) {
    assert.equal((await fetch(`${worker.base}/files/up/gone/${name}`, { method: "PUT", body: name })).status, 200);
  }
  assert.equal((await fetch(`${worker.base}/files/up/gone`, { method: "DELETE" })).status, 204);
  assert.deepEqual(JSON.parse(lsjson([`s3:${BUCKET}/up`])).map((e) => e.Name), ["empty.txt", "keep.txt", "small.json"]);
  const dir = await fetch(`${worker.base}/files/up/`, { method: "PUT", body: "x" });
  assert.equal(dir.status, 400);
  // Chunked (no Content-Length): S3 would store it empty, so it is refused and not stored.
  const chunked = await fetch(`${worker.base}/files/up/chunked.txt`, {
    method: "PUT",
    body: Readable.from([Buffer.from("hello "), Buffer.from("world\n")]),
    duplex: "half",
  });
  assert.equal(chunked.status, 411);
  assert.match(await chunked.text(), /Content-Length/);
  assert.equal((await fetch(`${worker.base}/files/up/chunked.txt`, { method: "HEAD" })).status, 404);
});

test("a directory lists as rclone lsjson prints it, paged 1,000 keys at a time", async () => {
  const asJson = { headers: { Accept: "application/json" } };
  for (const [dir, ref] of [["dir/", "dir"], ["dir/sub/", "dir/sub"], ["many/", "many"], ["", ""]]) {
    const r = await fetch(`${worker.base}/files/${dir}`, asJson);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/json");
    const ours = await r.text();
    let theirs = lsjson([`s3:${BUCKET}/${ref}`]);
    assert.equal(ours, theirs, `lsjson of ${dir || "the bucket"}`);
  }
  assert.equal(JSON.parse(await (await fetch(`${worker.base}/files/many/`, asJson)).text()).length, 2500);
  // -R: the directories' times are those of the listing in rclone's output too.
  const noDirTimes = (text) => text.replace(/("IsDir":true)|"ModTime":"[^"]*"(?=,"IsDir":true)/g, (m) => (m.startsWith('"ModTime"') ? '"ModTime":""' : m));
  for (const [dir, ref] of [["dir/", "dir"], ["many/", "many"]]) {
    const ours = await (await fetch(`${worker.base}/files/${dir}?recursive=1`, asJson)).text();
    assert.equal(noDirTimes(ours), noDirTimes(lsjson(["-R", `s3:${BUCKET}/${ref}`])), `lsjson -R of ${dir}`);
  }
  const empty = await fetch(`${worker.base}/files/nothing-here/`, asJson);
  assert.equal(await empty.text(), "[\n]\n");
});

test("a directory is a page of links in a browser", async () => {
  const r = await fetch(`${worker.base}/files/dir/`, { headers: { Accept: "text/html" } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "text/html; charset=utf-8");
  const page = await r.text();
  assert.match(page, /<a href="with%20space.txt">with space.txt<\/a> 26<\/li>/);
  assert.match(page, /<a href="a%26b%3Cc%3E.txt">a&amp;b&lt;c&gt;.txt<\/a>/);
  assert.match(page, /<a href="sub\/">sub\/<\/a><\/li>/);
  // Named without its final /, a directory sends a browser on to it; a missing name is
  // still 404, and a client that is no browser gets S3's answer.
  const html = { Accept: "text/html,application/xhtml+xml", "Accept-Encoding": "identity" };
  const moved = await fetch(`${worker.base}/files/dir/sub`, { headers: html, redirect: "manual" });
  assert.equal(moved.status, 301);
  assert.equal(moved.headers.get("location"), "/files/dir/sub/");
  await moved.arrayBuffer();
  const file = await fetch(`${worker.base}/files/dir/a.json`, { headers: html });
  assert.equal(file.status, 200);
  assert.equal(await file.text(), '{"a": [1, 2], "b": "x"}\n');
  assert.equal((await fetch(`${worker.base}/files/dir/nothing`, { headers: html })).status, 404);
  assert.equal((await fetch(`${worker.base}/files/dir/sub`)).status, 404);
});

test("a wrong secret is refused by S3's signature check, and said so", async () => {
  assert.equal((await api(worker.base, "PUT", "fifos/wrong?from=s3")).status, 201);
  const vars = { S3_ENDPOINT: s3.url, S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: KEY, S3_SECRET_ACCESS_KEY: "not-the-secret" };
  for (const [k, v] of Object.entries(vars)) await api(worker.base, "PUT", `fifos/wrong/vars/${k}`, v);
  const file = await fetch(`${worker.base}/wrong/dir/a.json`);
  assert.equal(file.status, 403);
  assert.match(await file.text(), /SignatureDoesNotMatch/);
  const list = await fetch(`${worker.base}/wrong/dir/`, { headers: { Accept: "application/json" } });
  assert.equal(list.status, 502);
  const text = await list.text();
  assert.match(text, /SignatureDoesNotMatch/);
  assert.ok(!text.includes("not-the-secret"), "the secret is never shown");
});

test("in scripts, NAME:path is a file of the FIFO: cat, rcat, lsjson [-R]", async () => {
  assert.equal((await api(worker.base, "PUT", "fifos/script", 'To: -\n\neval "$(cat)"\n')).status, 201);
  const run = async (script) => {
    const r = await fetch(`${worker.base}/script/`, { method: "POST", body: script });
    return { status: r.status, text: await r.text() };
  };
  assert.deepEqual(await run("cat files:dir/a.json | jq -c .b"), { status: 200, text: '"x"\n' });
  assert.deepEqual(await run("cat 'files:dir/Ünï%+#.txt'"), { status: 200, text: "content of Ünï%+#.txt\n" });
  const missing = await run("cat files:dir/nope.txt; echo \"status $?\"");
  assert.equal(missing.text, "status 1\n"); // cat's message went to stderr
  assert.equal((await run("printf 'from rcat\\n' | rcat 'files:up/by rcat.txt' && echo done")).text, "done\n");
  assert.equal(rclone(conf, ["cat", `s3:${BUCKET}/up/by rcat.txt`]).toString(), "from rcat\n");
  for (const dir of ["dir", "many"]) {
    const ours = await run(`lsjson files:${dir}`);
    assert.equal(ours.text, lsjson([`s3:${BUCKET}/${dir}`]), `lsjson files:${dir}`);
  }
  const files = await run("lsjson --files-only files:dir/sub");
  assert.equal(files.text, lsjson(["--files-only", `s3:${BUCKET}/dir/sub`]));
  const dirs = await run("lsjson --dirs-only files:dir");
  assert.equal(dirs.text, lsjson(["--dirs-only", `s3:${BUCKET}/dir`]));
  const deep = await run("lsjson -R files:dir | jq -r '.[] | select(.IsDir | not) | .Path'");
  assert.equal(deep.text, JSON.parse(lsjson(["-R", `s3:${BUCKET}/dir`])).filter((e) => !e.IsDir).map((e) => `${e.Path}\n`).join(""));
});
