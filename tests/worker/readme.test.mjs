// The README's examples run: each ```envelope NAME block becomes FIFO NAME, and each
// ```console block's `$ curl ...` commands run with real curl against the Worker, their
// output compared with the lines the README shows under them.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { ROOT, TOKEN, api, putFifo, startWorker } from "./harness.mjs";

const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
const blocks = [...readme.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
  kind: m[1],
  info: m[2].trim(),
  text: m[3],
}));

let worker;
before(async () => (worker = await startWorker()));
after(() => worker.stop());

// Commands and the output shown under each; `\` continues a command line.
function commands(text) {
  const out = [];
  let current = null;
  let continuing = false;
  for (const line of text.split("\n")) {
    if (continuing) {
      current.cmd += "\n" + line;
      continuing = line.endsWith("\\");
    } else if (line.startsWith("$ ")) {
      current = { cmd: line.slice(2), expected: [] };
      out.push(current);
      continuing = line.endsWith("\\");
    } else if (current) {
      current.expected.push(line);
    }
  }
  for (const c of out) {
    while (c.expected.length && c.expected.at(-1) === "") c.expected.pop();
  }
  return out;
}

test("the README has examples", () => {
  assert.ok(blocks.filter((b) => b.kind === "envelope").length >= 4);
  assert.ok(blocks.filter((b) => b.kind === "console").length >= 4);
});

test("every example in the README runs as shown", async () => {
  let ran = 0;
  for (const block of blocks) {
    if (block.kind === "envelope") {
      const [name, ...vars] = block.info.split(/\s+/);
      await putFifo(worker.base, name, block.text);
      for (const v of vars) {
        const [k, value] = v.split("=");
        assert.equal((await api(worker.base, "PUT", `fifos/${name}/vars/${k}`, value)).status, 200);
      }
    } else if (block.kind === "console") {
      for (const { cmd, expected } of commands(block.text)) {
        const output = execFileSync("bash", ["-c", cmd], {
          env: { ...process.env, BASE: worker.base, TOKEN },
          encoding: "utf8",
        });
        assert.equal(output.replace(/\n$/, ""), expected.join("\n"), `$ ${cmd}`);
        ran++;
      }
    }
  }
  assert.ok(ran >= 4, `${ran} commands`);
});
