// Test support for the editor: its WebSocket (the `ws` package) with its messages queued
// for the test to take in order.
import WebSocket from "ws";

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
