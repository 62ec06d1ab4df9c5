// Workers side by side with the floor, alternating round by round: an echo FIFO's
// Requests/s and the CPU time that workerd spends on each, for variants of the Worker
// (each a wrangler.toml: an older build, a changed entry module or configuration).
//
//   node bench/alternate.mjs [--configs A.toml,B.toml] [--rounds 8] [--seconds 3] [--clients 1]
//   (after scripts/build.sh; the default is this checkout's wrangler.toml)
//
// Each round runs every Worker for the same time, in turn (in reverse order every other
// round), so that a slow moment of a shared machine falls on all of them alike. Per Worker:
// the median of its Requests/s, of its ratio to the floor in the same round, and of the
// CPU milliseconds per Request of its workerd processes (from /proc: user and system
// time, all their threads). The CPU figure wanders far less than Requests/s at one client, which
// also counts the waits between processes.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { ROOT, putFifo, startWorker } from "../tests/worker/harness.mjs";
import { request } from "../tests/stress/checks.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const ROUNDS = Number(opt("--rounds", "8"));
const SECONDS = Number(opt("--seconds", "3"));
const CLIENTS = Number(opt("--clients", "1"));
const CONFIGS = opt("--configs", "wrangler.toml").split(",");

// The process group of the `wrangler dev` that serves `base` (its listener's group).
function groupOf(base) {
  const port = new URL(base).port;
  const listening = execFileSync("ss", ["-ltnpH", `sport = :${port}`]).toString();
  const pid = Number(/pid=(\d+)/.exec(listening)[1]);
  return Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[2]);
}

// CPU milliseconds so far of the workerd processes of a group (user and system time, all
// their threads): wrangler dev runs the Worker, its objects and its local proxy in them.
function cpuMs(group) {
  let ticks = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      if (Number(fields[2]) !== group) continue;
      if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "workerd") continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return (ticks * 1000) / 100;
}

async function drive(base, seconds, clients) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  let done = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < end) {
        const answer = await request(agent, `${base}/load-echo/`, { method: "POST", body: "hello, world\n" });
        if (answer.status !== 200) throw new Error(`${base}: ${answer.status} ${answer.body}`);
        done++;
      }
    }),
  );
  agent.destroy();
  return done;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const workers = [{ name: "floor", config: path.join(ROOT, "bench/floor/wrangler.toml") }];
for (const config of CONFIGS) workers.push({ name: config, config: path.resolve(config) });
try {
  for (const w of workers) {
    w.worker = await startWorker({ config: w.config, vars: w.name === "floor" ? {} : { MKFIFO_STEPS: "100000000" } });
    if (w.name !== "floor") await putFifo(w.worker.base, "load-echo", "To: -\n");
    w.group = groupOf(w.worker.base);
    w.rps = [];
    w.cpu = [];
    await drive(w.worker.base, 1, 8); // warm: no figure counts an object's start
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const w of round % 2 ? [...workers].reverse() : workers) {
      const before = cpuMs(w.group);
      const done = await drive(w.worker.base, SECONDS, CLIENTS);
      w.rps.push(done / SECONDS);
      w.cpu.push((cpuMs(w.group) - before) / done);
    }
  }
  const floor = workers[0];
  console.log(`${ROUNDS} rounds of ${SECONDS} s, ${CLIENTS} client(s), an echo FIFO (To: -)\n`);
  console.log("| Worker | Requests/s | ratio to the floor | workerd CPU ms per Request |\n|---|---:|---:|---:|");
  for (const w of workers) {
    const ratio = median(w.rps.map((r, i) => r / floor.rps[i]));
    console.log(`| ${w.name} | ${median(w.rps).toFixed(0)} | ${ratio.toFixed(2)}x | ${median(w.cpu).toFixed(2)} |`);
  }
} finally {
  for (const w of workers) await w.worker?.stop();
}
