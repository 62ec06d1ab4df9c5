// Test support for the editor: signing in by the mailed link, and the editor's WebSocket
// (the `ws` package) with its messages queued for the test to take in order.
import { execFileSync } from "node:child_process";
import path from "node:path";
import WebSocket from "ws";
import { ROOT, until } from "./harness.mjs";

// The .eml files local send_email wrote so far, in order (wrangler logs each path).
export function sentMail(worker) {
  const re = /send_email binding called with the following message:\s*(\S+\.eml)/g;
  return [...worker.log().matchAll(re)].map((m) => m[1]);
}

// The sign-in link in the next message to `email`, once `ask()` has asked for one.
export async function mailedLink(worker, email, ask) {
  const seen = sentMail(worker).length;
  await ask();
  const file = await until(() => sentMail(worker)[seen], `the sign-in mail to ${email}`);
  const message = JSON.parse(execFileSync("python3", [path.join(ROOT, "tests/mail/read_eml.py"), file], { encoding: "utf8" }));
  return message.text.match(/https?:\/\/\S+\/_\/signin\/\S+/)[0];
}

// Signs `email` in as a plain HTTP client; the session cookie (`NAME=VALUE`).
export async function signIn(worker, email) {
  const link = await mailedLink(worker, email, async () => {
    const r = await fetch(`${worker.base}/_/signin`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: worker.base },
      body: new URLSearchParams({ email }).toString(),
    });
    if (r.status !== 200) throw new Error(`sign-in of ${email}: ${r.status} ${await r.text()}`);
  });
  const done = await fetch(link, { method: "POST", headers: { Origin: worker.base }, redirect: "manual" });
  const cookie = done.headers.get("set-cookie");
  if (done.status !== 303 || !cookie) throw new Error(`signing in by ${link}: ${done.status}`);
  return cookie.split(";")[0];
}

// Opens FIFO `name`'s live log. Resolves to the socket, with `next(check, ms)` that takes
// the next message (parsed) for which `check` is true; rejects with the HTTP status of a
// refused upgrade.
export function openLive(worker, name, headers) {
  const url = `${worker.base.replace(/^http/, "ws")}/_/api/fifos/${name}/live`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const queue = [];
    const waiting = [];
    ws.on("message", (data) => {
      queue.push(JSON.parse(String(data)));
      for (const w of waiting.splice(0)) w();
    });
    ws.next = async (check = () => true, ms = 5000) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const at = queue.findIndex(check);
        if (at >= 0) return queue.splice(at, 1)[0];
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no such message within ${ms} ms; had ${JSON.stringify(queue)}`);
        await new Promise((r) => {
          waiting.push(r);
          setTimeout(r, left);
        });
      }
    };
    ws.closed = new Promise((r) => ws.on("close", (code, reason) => r({ code, reason: String(reason) })));
    ws.once("open", () => resolve(ws));
    ws.once("unexpected-response", (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    ws.once("error", reject);
  });
}
