// `Schedule: CRON`: a bad schedule is refused at its line and column; a saved one keeps
// its next run, and the object's alarm is set to that instant; `* * * * *` runs the
// envelope within the minute, as a Request of its own (REQUEST_METHOD=SCHEDULE, no body);
// runs missed while workerd was down run once, late, noted in the log. The two waits on the
// clock run side by side.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { api, getLog, putFifo, startServer, startWorker, tempDir, until } from "./harness.mjs";

let worker;
before(async () => (worker = await startWorker({ vars: { MKFIFO_STATS: "1" } })));
after(() => worker.stop());

const MINUTE = 60_000;
const fifo = async (name) => (await api(worker.base, "GET", `fifos/${name}`)).json();
const alarm = async (name) => (await (await fetch(`${worker.base}/_/stats/fifo/${name}`, { headers: { Authorization: "Bearer test-operator-token" } })).json()).alarm_at;

test("a bad Schedule: is refused at its line and column", async () => {
  const cases = [
    ["Schedule: 61 * * * *\nTo: -\n\necho\n", 1, 11, /the minute field is 0 to 59, not 61/],
    ["To: -\nSchedule:  */0 * * * *\n\necho\n", 2, 14, /a step of the minute field is 1 to 59/],
    ["To: -\nSchedule: * * * *\n\necho\n", 2, 18, /five fields/],
    ["Schedule: @fortnightly\n\necho\n", 1, 11, /unknown shorthand @fortnightly/],
    ["Schedule: 0 0 30 2 *\n\necho\n", 1, 11, /never runs/],
    ["Schedule: 0 0 * * mon-fry\n\necho\n", 1, 23, /day of the week field takes a number or a name/],
    ["Schedule: CRON_TZ=Mars/Olympus 0 9 * * *\n\necho\n", 1, 19, /unknown time zone "Mars\/Olympus"/],
    ["Schedule: CRON_TZ=Europe/Berlin 0 25 * * *\n\necho\n", 1, 35, /the hour field is 0 to 23, not 25/],
  ];
  for (const [envelope, line, column, message] of cases) {
    const r = await api(worker.base, "PUT", "fifos/sched-bad", envelope);
    const body = await r.json();
    assert.equal(r.status, 400, envelope);
    assert.deepEqual([body.line, body.column], [line, column], `${envelope}: ${body.error}`);
    assert.match(body.error, /^envelope: .*Schedule: /);
    assert.match(body.error, message);
  }
  assert.equal((await api(worker.base, "GET", "fifos/sched-bad")).status, 404, "nothing was saved");
});

test("a saved schedule keeps its next run, and the alarm is set to it", async () => {
  const before = Date.now();
  await putFifo(worker.base, "sched-five", "Schedule: */5 * * * *\nTo: -\n\necho\n");
  const saved = Date.now();
  const next = (await fifo("sched-five")).next_run;
  const fiveMinutes = 5 * MINUTE;
  const expected = [before, saved].map((t) => (Math.floor(t / fiveMinutes) + 1) * fiveMinutes);
  assert.ok(expected.includes(next), `${new Date(next).toISOString()} after ${new Date(before).toISOString()}`);
  assert.equal(await alarm("sched-five"), next);
  assert.equal((await (await api(worker.base, "GET", "fifos/sched-five/log")).json()).next_run, next);

  await putFifo(worker.base, "sched-five", "Schedule: @daily\nTo: -\n\necho\n");
  const midnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000;
  assert.equal((await fifo("sched-five")).next_run, midnight);
  assert.equal(await alarm("sched-five"), midnight);

  // On another zone's clock: 09:30 in Kolkata (UTC+05:30 all year) is 04:00 UTC.
  await putFifo(worker.base, "sched-five", "Schedule: CRON_TZ=Asia/Kolkata 30 9 * * *\nTo: -\n\necho\n");
  const day = 86_400_000;
  const fourUtc = Math.floor((Date.now() - 4 * 3_600_000) / day) * day + day + 4 * 3_600_000;
  assert.equal((await fifo("sched-five")).next_run, fourUtc);
  assert.equal(await alarm("sched-five"), fourUtc);

  // Without Schedule: no next run.
  await putFifo(worker.base, "sched-five", "To: -\n\necho\n");
  assert.equal((await fifo("sched-five")).next_run, null);
});

const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const iso = (ms) => new Date(ms).toISOString().replace(".000Z", "Z");

describe("on the clock", { concurrency: true }, () => {
test("'* * * * *' runs the envelope within the minute, as a Request of its own", { timeout: 150_000 }, async () => {
  const dest = await startServer((req, res) => {
    res.writeHead(200);
    res.end("ok");
  });
  try {
    const saved = Date.now();
    await putFifo(
      worker.base,
      "sched-tick",
      `Schedule: * * * * *\nTo: ${dest.url}/tick\nX-Method: $REQUEST_METHOD\nX-Source: $REQUEST_SOURCE\n\nprintf 'tick %s bytes in' "$(wc -c)"\n`,
    );
    const due = (await fifo("sched-tick")).next_run;
    assert.equal(due, (Math.floor(saved / MINUTE) + 1) * MINUTE);
    await until(() => dest.requests.length > 0, "the scheduled run to arrive", 75_000);
    const [tick] = dest.requests;
    assert.equal(tick.headers["x-method"], "SCHEDULE");
    assert.equal(tick.headers["x-source"], "schedule");
    assert.equal(tick.body.toString(), "tick 0 bytes in");
    const [entry] = await until(async () => {
      const log = await getLog(worker.base, "sched-tick");
      return log.length && log[0].delivery === "delivered" && log;
    }, "the run to be logged as delivered");
    assert.equal(entry.method, "SCHEDULE");
    assert.equal(entry.source, "schedule");
    assert.equal(entry.path, "/sched-tick");
    assert.ok(entry.at >= due, `ran at ${entry.at}, due ${due}`);
    assert.equal(tick.headers["idempotency-key"], `${entry.request_id}-0`);
    // The next run is the following minute, and the alarm is set for it.
    const next = (await fifo("sched-tick")).next_run;
    assert.equal(next, (Math.floor(entry.at / MINUTE) + 1) * MINUTE);
    assert.equal(await alarm("sched-tick"), next);
    await putFifo(worker.base, "sched-tick", "To: -\n\necho\n");
  } finally {
    await dest.close();
  }
});

test("runs missed while workerd was down run once, late, and the log says so", { timeout: 240_000 }, async () => {
  const dest = await startServer((req, res) => {
    res.writeHead(200);
    res.end("ok");
  });
  const persist = tempDir();
  let late = await startWorker({ persist });
  try {
    // Saved well before a minute ends, so that workerd is down before the run is due.
    const intoMinute = Date.now() % MINUTE;
    if (intoMinute > 45_000) await sleep(MINUTE - intoMinute + 500);
    await putFifo(late.base, "sched-late", `Schedule: * * * * *\nTo: ${dest.url}/late\n\necho late\n`);
    const due = (await (await api(late.base, "GET", "fifos/sched-late")).json()).next_run;
    await late.stop();
    assert.ok(Date.now() < due, "stopped before the run was due");
    // Down through the run that was due and the one after it.
    await sleep(due + MINUTE + 2_000 - Date.now());
    late = await startWorker({ persist });
    await until(() => dest.requests.length > 0, "the late run", 60_000);
    const log = await until(async () => {
      const l = await getLog(late.base, "sched-late");
      return l.length && l[0].delivery === "delivered" && l;
    }, "the late run to be logged as delivered");
    assert.equal(log.length, 1, "two missed runs ran as one");
    assert.equal(dest.requests.length, 1);
    const [entry] = log;
    assert.equal(entry.method, "SCHEDULE");
    assert.match(entry.note, new RegExp(`^a late run: due at ${iso(due)}, run \\d+ s later; 1 run\\(s\\) missed meanwhile ran as this one$`));
    const fifo = await (await api(late.base, "GET", "fifos/sched-late")).json();
    assert.equal(fifo.next_run, (Math.floor(entry.at / MINUTE) + 1) * MINUTE);
  } finally {
    await late.stop();
    await dest.close();
  }
});
});
