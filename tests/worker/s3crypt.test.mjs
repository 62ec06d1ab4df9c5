// The s3 envelope in crypt mode (CRYPT_PASSWORD or CRYPT_KEYS): a FIFO that serves the
// plaintext of an rclone crypt remote kept in a bucket of a real local S3 (`rclone serve
// s3`, which checks every signature). Real rclone writes the encrypted files through its
// crypt backend on an s3 remote; the FIFO must give back what rclone's crypt remote gives
// (bytes, names, sizes), over plain HTTP and to rclone's webdav backend, and what is
// written through the FIFO must be what rclone's crypt remote reads.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { api, getLog, runRclone, startRcloneS3, startWorker, tempDir, TOKEN } from "./harness.mjs";

const KEY = "AKIDMKFIFOCRYPT";
const SECRET = "crypt/s3cr3t";
const BUCKET = "bkt";
const PASSWORD = "a crypt password";
const [PASSWORD2, SALT] = ["second password", "the salt, password2"];
// rclone's salt when password2 is empty.
const DEFAULT_SALT = Buffer.from("a80df43a8fbd0308a7cab83e581f86b1", "hex");
const MiB = 1 << 20;
const files = {
  "notes/ünï %+#.txt": Buffer.from("secret text\n"),
  "notes/a&b.json": Buffer.from('{"a": 1}\n'),
  "empty.txt": Buffer.alloc(0),
  "deep/er/x.md": Buffer.from("# deep\n"),
  "big.bin": crypto.randomBytes((1 << 20) + 70_000),
  "block.bin": crypto.randomBytes(65_536),
};
let data, s3, worker, confFile, base;
const rclone = (args, options) => runRclone(confFile, args, options);
// What a listing says that the two sides both know: S3 gives its upload time where rclone
// reads the mtime it stored in the object's metadata, so times are left out.
const comparable = (json) =>
  JSON.parse(json)
    .map(({ Path, Name, Size, MimeType, IsDir }) => (IsDir ? { Path, Name, IsDir } : { Path, Name, Size, MimeType, IsDir }))
    .sort((a, b) => (a.Path < b.Path ? -1 : a.Path > b.Path ? 1 : 0));
const urlPath = (p) => p.split("/").map(encodeURIComponent).join("/");
// The keys of the bucket under a prefix, as the S3 remote lists them.
const bucketKeys = async (prefix) =>
  JSON.parse((await rclone(["lsjson", "-R", "--files-only", `s3:${BUCKET}/${prefix}`])).stdout).map((e) => e.Path);

async function crypticFifo(name, vars) {
  assert.equal((await api(base, "PUT", `fifos/${name}?from=s3`)).status, 201);
  const all = { S3_ENDPOINT: s3.url, S3_BUCKET: BUCKET, S3_ACCESS_KEY_ID: KEY, S3_SECRET_ACCESS_KEY: SECRET, ...vars };
  for (const [k, v] of Object.entries(all)) assert.equal((await api(base, "PUT", `fifos/${name}/vars/${k}`, v)).status, 200, k);
}

before(async () => {
  data = tempDir("mkfifo-s3crypt-");
  fs.mkdirSync(path.join(data, BUCKET));
  const plain = path.join(data, "plain");
  for (const [name, bytes] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(plain, name)), { recursive: true });
    fs.writeFileSync(path.join(plain, name), bytes);
  }
  // MKFIFO_STATS for the WebAssembly memory; steps for a 100 MiB file.
  [s3, worker] = await Promise.all([
    startRcloneS3(data, KEY, SECRET),
    startWorker({ vars: { MKFIFO_STATS: "1", MKFIFO_STEPS: "100000000" } }),
  ]);
  base = worker.base;
  confFile = path.join(data, "rclone.conf");
  fs.writeFileSync(confFile, `[s3]\ntype = s3\nprovider = Rclone\nendpoint = ${s3.url}\naccess_key_id = ${KEY}\nsecret_access_key = ${SECRET}\n`);
  const obscure = async (pw) => (await rclone(["obscure", pw])).stdout.trim();
  fs.appendFileSync(confFile,
    `[vault]\ntype = crypt\nremote = s3:${BUCKET}/vault\npassword = ${await obscure(PASSWORD)}\n` +
    `[vault2]\ntype = crypt\nremote = s3:${BUCKET}/vault2\npassword = ${await obscure(PASSWORD2)}\npassword2 = ${await obscure(SALT)}\n` +
    "filename_encoding = base64\ndirectory_name_encryption = false\n" +
    `[dav]\ntype = webdav\nurl = ${base}/plain/\nvendor = other\n` +
    `[dav2]\ntype = webdav\nurl = ${base}/plain2/\nvendor = other\n`);
  await rclone(["copy", plain, "vault:"]);
  await rclone(["copy", plain, "vault2:"]);
  await crypticFifo("plain", { S3_PREFIX: "vault/", CRYPT_PASSWORD: PASSWORD });
  // The keys as Node's own scrypt derives them: what rclone derives, by its parameters.
  const keys = crypto.scryptSync(PASSWORD2, SALT, 80, { N: 16384, r: 8, p: 1, maxmem: 64 << 20 }).toString("hex");
  await crypticFifo("plain2", { S3_PREFIX: "vault2/", CRYPT_KEYS: keys, CRYPT_FILENAME_ENCODING: "base64", CRYPT_DIRECTORY_NAME_ENCRYPTION: "false" });
});
after(async () => {
  await worker?.stop();
  await s3?.stop();
  if (data) fs.rmSync(data, { recursive: true, force: true });
});

test("the bucket holds rclone's encrypted names; GET of a plain name is the decrypted file", async () => {
  const stored = await bucketKeys("vault");
  assert.equal(stored.length, Object.keys(files).length);
  for (const name of Object.keys(files)) assert.ok(!stored.some((k) => k.includes(name.split("/").pop())), name);
  for (const fifo of ["plain", "plain2"]) {
    for (const [name, bytes] of Object.entries(files)) {
      // Not compressed on the way (the local proxy compresses text and drops the length).
      const r = await fetch(`${base}/${fifo}/${urlPath(name)}`, { headers: { "Accept-Encoding": "identity" } });
      assert.equal(r.status, 200, `${fifo}/${name}`);
      assert.deepEqual(Buffer.from(await r.arrayBuffer()), bytes, `${fifo}/${name}`);
      assert.equal(r.headers.get("content-length"), String(bytes.length), name);
      assert.match(r.headers.get("last-modified"), /^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
    }
  }
  const txt = await fetch(`${base}/plain/${urlPath("notes/ünï %+#.txt")}`);
  assert.equal(txt.headers.get("content-type"), "text/plain; charset=utf-8");
  await txt.arrayBuffer();
});

test("HEAD, If-None-Match and a missing name", async () => {
  const url = `${base}/plain/notes/a%26b.json`;
  const head = await fetch(url, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), String(files["notes/a&b.json"].length));
  assert.equal(head.headers.get("content-type"), "application/json");
  const etag = head.headers.get("etag");
  assert.match(etag, /^"[0-9a-f]{32}"$/);
  const again = await fetch(url, { headers: { "If-None-Match": etag } });
  assert.equal(again.status, 304);
  const missing = await fetch(`${base}/plain/notes/nope.txt`);
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /no file \/notes\/nope.txt/);
});

test("the JSON listing is rclone lsjson of the crypt remote, plain and recursive", async () => {
  for (const [fifo, remote] of [["plain", "vault"], ["plain2", "vault2"]]) {
    for (const dir of ["", "notes", "deep"]) {
      const r = await fetch(`${base}/${fifo}/${dir ? urlPath(dir) + "/" : ""}`, { headers: { Accept: "application/json" } });
      assert.equal(r.status, 200);
      const ours = await r.text();
      const theirs = (await rclone(["lsjson", `${remote}:${dir}`])).stdout;
      assert.deepEqual(comparable(ours), comparable(theirs), `${fifo} ${dir || "root"}`);
      // Entries by name, as rclone orders them.
      assert.deepEqual(JSON.parse(ours).map((e) => e.Name), JSON.parse(theirs).map((e) => e.Name), `${fifo} ${dir} order`);
    }
    const all = await (await fetch(`${base}/${fifo}/?recursive=1`, { headers: { Accept: "application/json" } })).text();
    assert.deepEqual(comparable(all), comparable((await rclone(["lsjson", "-R", `${remote}:`])).stdout), `${fifo} -R`);
  }
});

test("rclone's webdav backend on the FIFO sees the crypt remote's plaintext", async () => {
  const plain = path.join(data, "plain");
  for (const [dav, remote] of [["dav", "vault"], ["dav2", "vault2"]]) {
    assert.deepEqual(
      comparable((await rclone(["lsjson", "-R", `${dav}:`])).stdout),
      comparable((await rclone(["lsjson", "-R", `${remote}:`])).stdout),
      dav,
    );
    const check = await rclone(["check", "--download", plain, `${dav}:`]);
    assert.match(check.stderr, /0 differences found/, dav);
    assert.match(check.stderr, new RegExp(`${Object.keys(files).length} matching files`), dav);
  }
});

test("written through the FIFO, read by rclone crypt: copy, moveto, purge", async () => {
  const src = path.join(data, "src");
  fs.mkdirSync(path.join(src, "a b"), { recursive: true });
  fs.writeFileSync(path.join(src, "a b/ü+#%.txt"), "written through the FIFO\n");
  fs.writeFileSync(path.join(src, "3m.bin"), crypto.randomBytes(3 << 20));
  fs.writeFileSync(path.join(src, "empty"), "");
  await rclone(["copy", src, "dav:up"]);
  const check = await rclone(["check", "--download", src, "vault:up"]);
  assert.match(check.stderr, /0 differences found/);
  assert.match(check.stderr, /3 matching files/);
  // A PUT of its own, read back by rclone.
  const put = await fetch(`${base}/plain/up/${urlPath("new é.txt")}`, { method: "PUT", body: "by curl\n" });
  assert.equal(put.status, 200, await put.text());
  assert.equal((await rclone(["cat", "vault:up/new é.txt"])).stdout, "by curl\n");
  assert.ok(!(await bucketKeys("vault/")).some((k) => k.includes("new") || k.includes("3m")), "names are stored encrypted");
  await rclone(["moveto", "dav:up/a b/ü+#%.txt", "dav:up/moved.txt"]);
  assert.equal((await rclone(["cat", "vault:up/moved.txt"])).stdout, "written through the FIFO\n");
  assert.equal((await rclone(["lsjson", "vault:up/a b"])).stdout, "[\n]\n");
  await rclone(["purge", "dav:up"]);
  assert.equal((await rclone(["lsjson", "vault:up"])).stdout, "[\n]\n");
  assert.equal((await bucketKeys("vault/")).length, Object.keys(files).length);
});

test("a Range of a decrypted file opens only the blocks that hold it", async () => {
  const url = `${base}/plain/big.bin`;
  const bytes = files["big.bin"];
  const size = bytes.length;
  const etag = (await fetch(url, { method: "HEAD" })).headers.get("etag");
  const spans = [
    ["bytes=0-0", 0, 0],
    ["bytes=65530-65545", 65530, 65545], // across the end of block 0
    ["bytes=131072-196607", 131072, 196607], // block 2, whole
    ["bytes=-100", size - 100, size - 1],
    [`bytes=-${size + 5}`, 0, size - 1],
    ["bytes=1048576-", 1048576, size - 1],
    [`bytes=1000-${size + 999}`, 1000, size - 1],
  ];
  for (const [range, start, end] of spans) {
    const r = await fetch(url, { headers: { Range: range, "Accept-Encoding": "identity" } });
    assert.equal(r.status, 206, range);
    assert.equal(r.headers.get("content-range"), `bytes ${start}-${end}/${size}`, range);
    assert.equal(r.headers.get("content-length"), String(end - start + 1), range);
    assert.deepEqual(Buffer.from(await r.arrayBuffer()), bytes.subarray(start, end + 1), range);
  }
  // Past the end: 416 with the size; malformed, several spans, or an If-Range of another
  // version: the whole file.
  const past = await fetch(url, { headers: { Range: `bytes=${size}-` } });
  assert.equal(past.status, 416);
  assert.equal(past.headers.get("content-range"), `bytes */${size}`);
  await past.arrayBuffer();
  for (const headers of [{ Range: "bytes=5-4" }, { Range: "bytes=0-1,5-6" }, { Range: "bytes=7" }, { Range: "bytes=0-9", "If-Range": '"other"' }]) {
    const r = await fetch(url, { headers: { ...headers, "Accept-Encoding": "identity" } });
    assert.equal(r.status, 200, JSON.stringify(headers));
    assert.equal(r.headers.get("accept-ranges"), "bytes");
    assert.deepEqual(Buffer.from(await r.arrayBuffer()), bytes, JSON.stringify(headers));
  }
  const same = await fetch(url, { headers: { Range: "bytes=0-9", "If-Range": etag } });
  assert.equal(same.status, 206);
  assert.deepEqual(Buffer.from(await same.arrayBuffer()), bytes.subarray(0, 10));
  // The work of a span near the end is that of its block, not of the file before it
  // (secretbox spends a step per 64 bytes it reads): a FIFO of its own, given its keys
  // (scrypt would count too), logs the steps of both.
  const keys = crypto.scryptSync(PASSWORD, DEFAULT_SALT, 80, { N: 16384, r: 8, p: 1, maxmem: 64 << 20 }).toString("hex");
  await crypticFifo("seek", { S3_PREFIX: "vault/", CRYPT_KEYS: keys });
  await (await fetch(`${base}/seek/big.bin`)).arrayBuffer();
  await (await fetch(`${base}/seek/big.bin`, { headers: { Range: "bytes=-1" } })).arrayBuffer();
  const [ranged, whole] = await getLog(base, "seek");
  assert.equal(whole.status, 200);
  assert.equal(ranged.status, 206);
  assert.ok(ranged.steps * 4 < whole.steps, `steps: ${ranged.steps} for the last byte, ${whole.steps} for the file`);
});

test("with the wrong password nothing decrypts: the listing is empty and files are 404", async () => {
  await crypticFifo("wrong", { S3_PREFIX: "vault/", CRYPT_PASSWORD: "not the password" });
  const r = await fetch(`${base}/wrong/`, { headers: { Accept: "application/json" } });
  assert.equal(await r.text(), "[\n]\n");
  assert.equal((await fetch(`${base}/wrong/empty.txt`)).status, 404);
  // Without CRYPT_PASSWORD2 rclone's own salt is used, as Node derives with it here.
  const keys = crypto.scryptSync(PASSWORD, DEFAULT_SALT, 80, { N: 16384, r: 8, p: 1, maxmem: 64 << 20 }).toString("hex");
  await crypticFifo("bykeys", { S3_PREFIX: "vault/", CRYPT_KEYS: keys });
  const ok = await fetch(`${base}/bykeys/notes/a%26b.json`);
  assert.deepEqual(Buffer.from(await ok.arrayBuffer()), files["notes/a&b.json"]);
  await crypticFifo("badkeys", { S3_PREFIX: "vault/", CRYPT_KEYS: "abc" });
  const bad = await fetch(`${base}/badkeys/`);
  assert.equal(bad.status, 500);
  assert.match(await bad.text(), /CRYPT_KEYS is what scrypt prints/);
});

test("a 100 MiB encrypted file streams out decrypted in bounded memory", async () => {
  const dir = path.join(data, "huge");
  fs.mkdirSync(dir);
  const bytes = crypto.randomBytes(100 * MiB);
  fs.writeFileSync(path.join(dir, "100m.bin"), bytes);
  await rclone(["copy", dir, "vault:huge"]);
  // The memory never shrinks, and scrypt (16 MiB) may have run before: what counts is how
  // much the download adds, through a FIFO given its keys (no scrypt in this Request).
  // Held whole, the file alone would add 100 MiB.
  const keys = crypto.scryptSync(PASSWORD, DEFAULT_SALT, 80, { N: 16384, r: 8, p: 1, maxmem: 64 << 20 }).toString("hex");
  await crypticFifo("hugekeys", { S3_PREFIX: "vault/", CRYPT_KEYS: keys });
  const memory = async () =>
    (await (await fetch(`${base}/_/stats`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()).wasm_memory_bytes;
  const before = await memory();
  const r = await fetch(`${base}/hugekeys/huge/100m.bin`, { headers: { "Accept-Encoding": "identity" } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-length"), String(100 * MiB));
  const hash = crypto.createHash("sha256");
  let got = 0;
  for await (const chunk of r.body) {
    hash.update(chunk);
    got += chunk.length;
  }
  assert.equal(got, 100 * MiB);
  assert.equal(hash.digest("hex"), crypto.createHash("sha256").update(bytes).digest("hex"));
  const after = await memory();
  assert.ok(after - before < 8 * MiB, `WebAssembly memory ${before} -> ${after} bytes over a 100 MiB file`);
  assert.ok(after < 64 * MiB, `WebAssembly memory ${after} bytes`);
  // The same file written back through the FIFO: sealed as it streams, its sealed length
  // told to S3 ahead, and read back by rclone's crypt remote.
  const put = await fetch(`${base}/hugekeys/huge/back.bin`, { method: "PUT", body: bytes });
  assert.equal(put.status, 200, await put.text());
  const written = await memory();
  assert.ok(written - after < 8 * MiB, `WebAssembly memory ${after} -> ${written} bytes over a 100 MiB upload`);
  const back = await rclone(["hashsum", "sha256", "--download", "vault:huge/back.bin"]);
  assert.equal(back.stdout.split(" ")[0], crypto.createHash("sha256").update(bytes).digest("hex"));
  await rclone(["purge", "vault:huge"]);
});
