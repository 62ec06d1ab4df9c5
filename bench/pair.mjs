// Two Workers side by side in workerd, alternating round by round: this checkout's and an
// older build's (bench/run.sh --against REV builds it under target/against/).
//
//   node bench/pair.mjs OLDER_WRANGLER_TOML BODY_BYTES N 'OP' ['OP'...]
//
// For each OP: a FIFO whose `To: -` script runs OP N times (and once) with the body in
// $x; (time of N - time of 1) / (N - 1) is one OP (N of 1,000 for an op of microseconds,
// 21 for one of milliseconds), the median of 11 Requests a script and of
// 5 rounds; printed for both Workers with the ratio.
import { putFifo, startWorker } from "../tests/worker/harness.mjs";

const [config, bytes, count, ...ops] = process.argv.slice(2);
const N = Number(count);
const ROUNDS = Number(process.env.ROUNDS || 5);
const body = Buffer.from("foo bar,baz alpha,beta the quick,brown x1 y22\n".repeat(Math.ceil(Number(bytes) / 46))).subarray(0, Number(bytes));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const vars = { MKFIFO_STEPS: "1000000000000" };
const older = await startWorker({ config, vars });
const current = await startWorker({ vars });

async function scriptTime(base, op, n) {
  const lines = ["x=$(cat)", ...Array.from({ length: n }, () => `${op} >/dev/null`)];
  await putFifo(base, "pair-case", `To: -\n\n${lines.join("\n")}\n`);
  const times = [];
  for (let k = 0; k < 12; k++) {
    const t0 = process.hrtime.bigint();
    const r = await fetch(`${base}/pair-case/`, { method: "POST", body });
    await r.text();
    if (r.status !== 200) throw new Error(`${op}: ${r.status}`);
    if (k > 0) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

try {
  for (const op of ops) {
    const per = { current: [], older: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, w] of [["current", current], ["older", older]]) {
        per[name].push(((await scriptTime(w.base, op, N)) - (await scriptTime(w.base, op, 1))) / (N - 1));
      }
    }
    const [c, o] = [median(per.current), median(per.older)];
    console.log(`${op}: this ${(c * 1000).toFixed(1)} µs, older ${(o * 1000).toFixed(1)} µs, this / older ${(c / o).toFixed(2)}`);
  }
} finally {
  await current.stop();
  await older.stop();
}
