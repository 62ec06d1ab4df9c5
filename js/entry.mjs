// mkfifo's Worker entry: routes each request, performs passthrough answers, hands inbound
// mail to the FIFO's object, and turns any failure into a 503 the client can retry.
//
//   /, /_/...     the Worker's Rust code (home page, sign-in, JSON API)
//   /bin/sh       the public shell, rate-limited per client address
//   /NAME/...     FIFO NAME: its Durable Object gets the Request
//   NAME@DOMAIN   inbound mail: FIFO NAME's object gets the raw message
//
// Static files (public/) are served by the platform before this code runs.

import * as wasm from "../build/index.js";

const PASSTHROUGH_START_MS = 10_000;
const MAX_BODY_BYTES = 100 * 1024 * 1024; // as MAX_STREAMED_BODY in src/worker/fifo/mod.rs (bodies held whole: MAX_BODY there); MKFIFO_MAX_BODY lowers it
const MAX_API_BODY_BYTES = 1024 * 1024;
const MAX_SHELL_BODY_BYTES = 16 * 1024 * 1024;
const WHOLE_BODY_BYTES = 64 * 1024; // a body up to this, of a told length, goes to the object whole
// A FIFO's log keeps each Request's headers: more than this, names and values together,
// is refused (431) before anything is stored.
const MAX_HEADER_BYTES = 32 * 1024;
const INTERNAL_PREFIX = "x-mkfifo-";
const ACCEL_HEADER_PREFIX = "x-accel-header-";
const ERRORS_TO_HEADER = "x-mkfifo-errors-to";
const REQUEST_ID_HEADER = "x-mkfifo-request-id";
const LENGTH_HEADER = "x-mkfifo-length";
const OBJECT_HEADER = "x-mkfifo-object";

// A Rust panic traps the wasm instance inside a microtask, so the promise of the call
// never settles. The panic hook calls __onRustPanic; every call in flight is rejected so
// that the client gets a 503 at once.
// The instance's memory may be left inconsistent by the panic, so the next call starts a
// fresh instance.
const inflight = new Set();
let resetPending = false;
globalThis.__onRustPanic = (message) => {
  const err = new Error(`internal error: ${message}`);
  for (const reject of inflight) reject(err);
  inflight.clear();
  resetPending = true;
};

function freshAfterPanic() {
  if (resetPending) {
    resetPending = false;
    wasm.__wbg_reset_state();
  }
}

function guarded(promise) {
  let reject;
  const trap = new Promise((_, r) => (reject = r));
  inflight.add(reject);
  return Promise.race([promise, trap]).finally(() => inflight.delete(reject));
}

function unavailable(err) {
  const cause = ((err && err.message) || String(err)).replace(/\s*\n\s*/g, " ");
  return plain(503, `Service Unavailable: ${cause}`, { "Retry-After": "1" });
}

// Answers of the entry module say their length, so that a HEAD tells it too.
function plain(status, message, headers = {}) {
  const body = new TextEncoder().encode(`${status} ${message}\n`);
  return new Response(body, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.byteLength), ...headers },
  });
}

// A Durable Object class of the wasm module, rebuilt when a trap has reset the instance.
function durableObject(Base) {
  return class {
    #args;
    #inner;
    #instance;
    constructor(...args) {
      this.#args = args;
      this.#build();
    }
    #build() {
      this.#inner = new Base(...this.#args);
      this.#instance = wasm.__worker_init_state().instanceId;
    }
    #call(name, args) {
      freshAfterPanic();
      if (this.#instance !== wasm.__worker_init_state().instanceId) this.#build();
      return guarded(Promise.resolve().then(() => this.#inner[name](...args)));
    }
    fetch(...a) {
      return this.#call("fetch", a).catch((err) => {
        const resp = unavailable(err);
        resp.headers.set(OBJECT_HEADER, "1"); // an answer of ours, passed on as it is
        return resp;
      });
    }
    alarm(...a) {
      return this.#call("alarm", a);
    }
    webSocketMessage(...a) {
      return this.#call("webSocketMessage", a);
    }
    webSocketClose(...a) {
      return this.#call("webSocketClose", a);
    }
    webSocketError(...a) {
      return this.#call("webSocketError", a);
    }
  };
}

export const Fifo = durableObject(wasm.Fifo);
export const Account = durableObject(wasm.Account);

// The size of the client's headers (names and values), and whether any of them is one
// that only the Worker itself may set.
function measureHeaders(request) {
  let bytes = 0;
  let internal = false;
  for (const [name, value] of request.headers) {
    bytes += name.length + value.length + 4;
    if (name.startsWith(INTERNAL_PREFIX)) internal = true;
  }
  return { bytes, internal };
}

// The names of the internal headers among `headers`.
function internalNames(headers) {
  const names = [];
  for (const name of headers.keys()) if (name.startsWith(INTERNAL_PREFIX)) names.push(name);
  return names;
}

// The client's headers minus any that only the Worker itself may set. Copied whole by the
// runtime, then the rare internal ones deleted: appending them one by one from here costs
// a Request measurably more.
function trustedHeaders(request) {
  const headers = new Headers(request.headers);
  for (const name of internalNames(headers)) headers.delete(name);
  return headers;
}

// The request's body as a stream of its own: when the object answers before reading all
// of it (a 404, a 413), the rest is dropped quietly instead of failing the Worker.
// With a Content-Length it is a FixedLengthStream: a client gone before the end then
// fails the object's read. (A plain stream's error reaches the object as its end, so a
// cut body would look whole.)
//
// A small body of a told length is read whole instead: a stream between the entry and
// the object costs more than the bytes (about half a millisecond of the isolate's time
// per Request, measured with bench/profile.mjs), and a client gone before the end fails
// the read here, before the object is asked.
async function detachedBody(request) {
  if (!request.body) return null;
  const length = request.headers.get("content-length");
  if (/^\d+$/.test(length || "") && Number(length) <= WHOLE_BODY_BYTES) return request.arrayBuffer();
  const { readable, writable } = /^\d+$/.test(length || "") ? new FixedLengthStream(Number(length)) : new TransformStream();
  request.body.pipeTo(writable).catch(() => {});
  return readable;
}

// What this isolate has worked out per FIFO name, kept for the names seen most lately:
// the object's id (a hash of the name) and what is wrong with the name, if anything.
const KNOWN_NAMES = 1000;
const knownIds = new Map();
const knownProblems = new Map();

function remembered(known, name, work) {
  let value = known.get(name);
  if (value === undefined) {
    if (known.size >= KNOWN_NAMES) known.clear();
    value = work(name);
    known.set(name, value);
  }
  return value;
}

function fifoStub(env, name) {
  return env.FIFO.get(remembered(knownIds, name, (n) => env.FIFO.idFromName(n)));
}

// What is wrong with a FIFO name ("" when nothing is): the Worker's own check, in Rust.
function fifoNameProblem(name) {
  return remembered(knownProblems, name, (n) => {
    freshAfterPanic();
    return wasm.fifoNameError(n) || "";
  });
}

// Every answer of the object's own code carries x-mkfifo-object; an answer without it
// comes from the platform (the object crashed or was reset) and becomes a 503. The
// answer goes on without its internal headers, but for a passthrough's Errors-To and
// Request id (whom to tell of its failure: they never reach the client).
async function callFifo(env, name, request) {
  const resp = await fifoStub(env, name).fetch(request);
  if (!resp.headers.has(OBJECT_HEADER)) {
    const text = await resp.text();
    throw new Error(`FIFO ${name} failed: ${resp.status} ${text.trim() || resp.statusText}`);
  }
  // The length a script told for its streamed answer: held to it (a body of another
  // length fails, as a lying Content-Length must), and shown on a HEAD.
  let body = resp.body;
  const told = resp.headers.get(LENGTH_HEADER);
  if (told !== null && body && request.method !== "HEAD") {
    const fixed = new FixedLengthStream(Number(told));
    body.pipeTo(fixed.writable).catch(() => {});
    body = fixed.readable;
  }
  const answer = new Response(body, resp);
  const passthrough = resp.headers.has("x-accel-redirect");
  for (const header of internalNames(answer.headers)) {
    if (!(passthrough && (header === ERRORS_TO_HEADER || header === REQUEST_ID_HEADER))) answer.headers.delete(header);
  }
  if (told !== null && request.method === "HEAD") answer.headers.set("content-length", told);
  return answer;
}

// The object answered with X-Accel-Redirect: make that request (its body is the object's
// answer's body) and stream the reply to the client unchanged (status, headers, body), so
// the bytes never enter WebAssembly.
//
// A failure (no answer, or a status of 400 or more) goes back to the object when the
// Request has Errors-To: it logs it and reports it there, after the client has its answer.
async function passthrough(resp, reportFailure) {
  const target = resp.headers.get("x-accel-redirect");
  const errorsTo = resp.headers.get(ERRORS_TO_HEADER);
  const failed = (error, status) => errorsTo && reportFailure(errorsTo, error, status);
  const method = resp.headers.get("x-accel-method") || "GET";
  const headers = new Headers();
  for (const [name, value] of resp.headers) {
    if (name.startsWith(ACCEL_HEADER_PREFIX)) headers.append(name.slice(ACCEL_HEADER_PREFIX.length), value);
  }
  const hasBody = method !== "GET" && method !== "HEAD";
  if (!hasBody && resp.body) await resp.body.cancel();
  // A body of a length told in X-Accel-Header-Content-Length goes with that length (S3
  // refuses a PUT without one); any other streams chunked.
  let body = hasBody ? resp.body : undefined;
  const length = headers.get("content-length");
  if (body && /^\d+$/.test(length || "")) {
    const fixed = new FixedLengthStream(Number(length));
    body.pipeTo(fixed.writable).catch(() => {});
    body = fixed.readable;
  }
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new Error(`no answer from ${new URL(target).host} within 10 s`)),
    PASSTHROUGH_START_MS,
  );
  try {
    const answer = await fetch(target, {
      method,
      headers,
      body,
      redirect: "manual",
      signal: abort.signal,
    });
    if (answer.status >= 400) failed(`${target} answered ${answer.status}`, answer.status);
    return answer;
  } catch (err) {
    failed(`${target}: ${(err && err.message) || err}`, null);
    throw err;
  } finally {
    clearTimeout(timer); // only the start of the reply is timed
  }
}

// The client's Request as the FIFO's object gets it. The object reads the FIFO's name
// from the path, and makes the Request's id itself. A Request without internal headers
// goes on without a body as it came, with one as a copy made by the runtime (a copy
// built here costs a FIFO's Request measurably more); any other is copied here without
// its internal headers. A body goes as detachedBody makes it: the object may answer
// before it reads the client's stream to its end, and the client's stream cannot be read
// once the answer has left.
async function forFifo(request, internal) {
  if (!internal && !request.body) return request;
  const body = await detachedBody(request);
  if (!internal) return new Request(request, { body });
  return new Request(request.url, { method: request.method, headers: trustedHeaders(request), body, redirect: "manual" });
}

async function toFifo(request, env, ctx, name) {
  const length = Number(request.headers.get("content-length") || 0);
  const limit = Math.min(Number(env.MKFIFO_MAX_BODY) || MAX_BODY_BYTES, MAX_BODY_BYTES);
  if (length > limit) return plain(413, `a Request body holds at most ${wasm.sizeText(limit)}`);
  const { bytes, internal } = measureHeaders(request);
  if (bytes > MAX_HEADER_BYTES) {
    return plain(431, `Request Header Fields Too Large: a Request's headers hold at most ${wasm.sizeText(MAX_HEADER_BYTES)}`);
  }
  const resp = await callFifo(env, name, await forFifo(request, internal));
  if (!resp.headers.has("x-accel-redirect")) return resp;
  const requestId = resp.headers.get(REQUEST_ID_HEADER);
  const reportFailure = (errorsTo, error, status) => {
    const send = async () => {
      const report = new Request("https://fifo.internal/passthrough-failed", {
        method: "POST",
        headers: {
          "x-mkfifo-op": JSON.stringify({ op: "passthrough-failed", name, request_id: requestId, by: "operator" }),
          "x-mkfifo-fifo": name,
        },
        body: JSON.stringify({ errors_to: JSON.parse(errorsTo), error, status }),
      });
      const r = await fifoStub(env, name).fetch(report);
      await r.body?.cancel();
    };
    ctx.waitUntil(send().catch((err) => console.error("passthrough failure report:", err)));
  };
  return passthrough(resp, reportFailure);
}

// Requests per client address per minute, by a [[ratelimits]] binding; null when allowed.
async function limited(limiter, request) {
  const client = request.headers.get("cf-connecting-ip") || "127.0.0.1";
  const { success } = await limiter.limit({ key: client });
  if (success) return null;
  return plain(429, "Too Many Requests: try again in a minute", { "Retry-After": "60" });
}

async function shell(request, env, ctx) {
  return (await limited(env.SHELL_LIMITER, request)) || toRust(request, env, ctx, MAX_SHELL_BODY_BYTES);
}

// The Rust handlers take small bodies (envelopes, variables, scripts). The body is read
// whole first: an answer sent while the client is still sending breaks the connection.
async function toRust(request, env, ctx, limit = MAX_API_BODY_BYTES) {
  const length = Number(request.headers.get("content-length") || 0);
  if (length > limit) return plain(413, `at most ${limit >> 10} KiB here`);
  const body = request.body ? await request.arrayBuffer() : null;
  if (body && body.byteLength > limit) return plain(413, `at most ${limit >> 10} KiB here`);
  const inner = new Request(request.url, { method: request.method, headers: trustedHeaders(request), body });
  freshAfterPanic();
  return guarded(wasm.fetch(inner, env, ctx));
}

async function route(request, env, ctx) {
  const url = new URL(request.url);
  let first;
  try {
    first = decodeURIComponent(url.pathname.split("/")[1] || "");
  } catch {
    return plain(400, "a FIFO name is letters, digits and '-' (this one is not valid percent-encoded UTF-8)");
  }
  if (url.pathname.startsWith("/_/fault/fifo/") && env.MKFIFO_FAULTS === "1") {
    // Tests only: crash FIFO NAME's object the way a bug would.
    const name = url.pathname.slice("/_/fault/fifo/".length);
    const headers = { "x-mkfifo-op": JSON.stringify({ op: "fault", name, by: "operator" }), "x-mkfifo-fifo": name };
    return callFifo(env, name, new Request("https://fifo.internal/fault", { headers }));
  }
  if (url.pathname === "/_/test/mail" && request.method === "POST" && env.MKFIFO_FAULTS === "1") {
    return testMail(request, env);
  }
  if (url.pathname === "/_/signin" && request.method === "POST") {
    // Sign-in links per client address; the Account object limits them per address too.
    return (await limited(env.SIGNIN_LIMITER, request)) || toRust(request, env, ctx);
  }
  if (first === "_" || url.pathname === "/") return toRust(request, env, ctx);
  if (url.pathname === "/bin/sh") return shell(request, env, ctx);
  if (first === "") return plain(404, "not found");
  const problem = fifoNameProblem(first);
  if (problem) return plain(problem.includes("reserved") ? 404 : 400, problem);
  return toFifo(request, env, ctx, first);
}

export default {
  async fetch(request, env, ctx) {
    const started = Date.now();
    let resp;
    try {
      resp = await route(request, env, ctx);
    } catch (err) {
      console.error("503:", (err && err.stack) || err);
      resp = unavailable(err);
    }
    if (resp.status >= 400) {
      // One line per failed request, without the query string or a sign-in link's token.
      const path = new URL(request.url).pathname.replace(/^\/_\/signin\/.+/, "/_/signin/...");
      console.log(`${request.method} ${path} ${resp.status} ${Date.now() - started}ms`);
    }
    return resp;
  },

  // Inbound mail: NAME@DOMAIN (or NAME+tag@DOMAIN) is a Request to FIFO NAME. A refusal
  // is awaited: locally it crosses to wrangler's process, and must land before the answer.
  async email(message, env) {
    const refusal = await deliverMail(env, message.raw, message.rawSize, message.from, message.to);
    if (refusal) await message.setReject(refusal);
  },
};

// Hands a raw message to the object of the FIFO it is addressed to; the reason to refuse
// it, or null when it was taken.
async function deliverMail(env, raw, rawSize, from, to, repeat = "1") {
  const name = to.split("@")[0].toLowerCase().split("+")[0];
  const problem = fifoNameProblem(name);
  if (problem) return `no such FIFO: ${problem}`;
  let resp;
  try {
    resp = await callFifo(env, name, mailRequest(name, raw, rawSize, from, to, repeat));
  } catch (err) {
    return `temporarily unavailable: ${(err && err.message) || err}`;
  }
  const text = await resp.text();
  // The reason without the status in front: a sender reads it in the bounce.
  return resp.ok ? null : `${name}: ${text.trim().replace(/^\d{3} /, "")}`;
}

function mailRequest(name, raw, rawSize, from, to, repeat) {
  return new Request(`https://fifo.internal/${name}/`, {
    method: "POST",
    body: raw,
    headers: {
      "Content-Length": String(rawSize),
      "Content-Type": "message/rfc822",
      "x-mkfifo-fifo": name,
      "x-mkfifo-source": "email",
      "x-mkfifo-mail-from": from,
      "x-mkfifo-mail-to": to,
      "x-mkfifo-bench-repeat": repeat,
    },
  });
}

// Tests and benchmarks only (MKFIFO_FAULTS=1): POST /_/test/mail?from=..&to=.. takes the
// path of inbound mail without the local trigger's limits (it refuses messages over 1 MiB
// and those it cannot parse itself). Answers 200, or 400 with the reason of the refusal.
// With &repeat=N the object reads the message N times (the benchmark of its reading).
async function testMail(request, env) {
  const url = new URL(request.url);
  const raw = new Uint8Array(await request.arrayBuffer());
  const from = url.searchParams.get("from") || "";
  const to = url.searchParams.get("to") || "";
  const repeat = url.searchParams.get("repeat") || "1";
  const refusal = await deliverMail(env, raw, raw.byteLength, from, to, repeat);
  return refusal ? plain(400, refusal) : plain(200, "taken");
}
