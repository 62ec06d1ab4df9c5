// The editors' live log under many open editors: WebSocket clients (the `ws` package) on
// one FIFO's object in local workerd. For 100 and for 1,000 editors: the isolate's
// WebAssembly memory (as /_/stats/fifo/NAME reports it) beyond the idle object, and the
// time from sending a Request to its entry at every editor (p50, p99, max).
//
//   node bench/editors.mjs [--quick]      (after scripts/build.sh)
import WebSocket from "ws";
import { TOKEN, putFifo, startWorker } from "../tests/worker/harness.mjs";

const QUICK = process.argv.includes("--quick");
const COUNTS = QUICK ? [10, 100] : [100, 1000];
const REQUESTS = QUICK ? 5 : 20;
const FIFO = "bench-editors";
const MiB = 1024 * 1024;

const worker = await startWorker({ vars: { MKFIFO_STATS: "1" } });
const auth = { Authorization: `Bearer ${TOKEN}` };

async function wasmMemory() {
  const r = await fetch(`${worker.base}/_/stats/fifo/${FIFO}`, { headers: auth });
  if (r.status !== 200) throw new Error(`stats: ${r.status} ${await r.text()}`);
  return (await r.json()).wasm_memory_bytes;
}

// An editor: says hello, then records when each entry (by path) arrives.
function openEditor(arrivals) {
  const url = `${worker.base.replace(/^http/, "ws")}/_/api/fifos/${FIFO}/live`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: auth });
    ws.on("message", (data) => {
      const m = JSON.parse(String(data));
      if (m.type === "entries") resolve(ws);
      if (m.type === "entry") arrivals.get(m.entry.path)?.push(performance.now());
    });
    ws.once("open", () => ws.send('{"type":"hello"}'));
    ws.once("error", reject);
    ws.once("unexpected-response", (_q, res) => reject(new Error(`upgrade: ${res.statusCode}`)));
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

try {
  await putFifo(worker.base, FIFO, "To: -\n\ncat\n");
  await (await fetch(`${worker.base}/${FIFO}/warm`, { method: "POST", body: "x" })).text();
  const idle = await wasmMemory();
  const rows = [];
  const arrivals = new Map();
  let editors = [];
  for (const count of COUNTS) {
    while (editors.length < count) {
      const batch = Math.min(50, count - editors.length);
      editors.push(...(await Promise.all(Array.from({ length: batch }, () => openEditor(arrivals)))));
    }
    const open = await wasmMemory();
    const delays = [];
    for (let i = 0; i < REQUESTS; i++) {
      const p = `/${FIFO}/n${count}-${i}`;
      const seen = [];
      arrivals.set(p, seen);
      const sent = performance.now();
      await (await fetch(`${worker.base}${p}`, { method: "POST", body: "x" })).text();
      const deadline = Date.now() + 10_000;
      while (seen.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      if (seen.length < count) throw new Error(`${p}: ${seen.length} of ${count} editors saw it`);
      delays.push(...seen.map((t) => t - sent));
      arrivals.delete(p);
    }
    const after = await wasmMemory();
    delays.sort((a, b) => a - b);
    rows.push({ count, open, after, p50: quantile(delays, 0.5), p99: quantile(delays, 0.99), max: delays.at(-1) });
  }
  for (const ws of editors) ws.close();
  console.log(`idle object: WebAssembly memory ${(idle / MiB).toFixed(1)} MiB; ${REQUESTS} Requests per row\n`);
  console.log("| editors open | WebAssembly memory beyond idle (open / after the Requests) | Request to every editor: p50 / p99 / max |");
  console.log("|---:|---:|---:|");
  for (const r of rows) {
    const mem = `${((r.open - idle) / MiB).toFixed(1)} / ${((r.after - idle) / MiB).toFixed(1)} MiB`;
    console.log(`| ${r.count} | ${mem} | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} / ${r.max.toFixed(1)} ms |`);
  }
} finally {
  await worker.stop();
}
