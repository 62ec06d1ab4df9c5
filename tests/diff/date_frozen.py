#!/usr/bin/env python3
"""Checks clock-relative `date -d` strings (`tomorrow`, `next monday`, `3pm`, `2 weeks
ago`), which the differential suite cannot hold still: GNU date runs with its clock frozen
by libfaketime (Debian package `faketime`), ours through examples/date_probe.rs with the
same fixed clock. Cases come from gen_date.argv_cases(anchored=False).

Usage: cargo build --example date_probe && tests/diff/date_frozen.py [--seed S] [-n N]
"""
import argparse
import concurrent.futures
import functools
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import gen_date  # noqa: E402

NOW = 1796005500  # 2026-11-30 02:25:00 UTC
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"


@functools.lru_cache(None)
def local_now(tz):
    env = {"LC_ALL": "C"}
    if tz is not None:
        env["TZ"] = tz
    p = subprocess.run(["date", "-d", f"@{NOW}", "+%Y-%m-%d %H:%M:%S"], env=env,
                       capture_output=True)
    return p.stdout.decode().strip()


def gnu(case):
    tz, args, stdin = case
    # An absolute FAKETIME (no @) freezes the clock; it is read in local time.
    env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin", "LD_PRELOAD": FAKETIME_LIB,
           "FAKETIME": local_now(tz), "DONT_FAKE_MONOTONIC": "1"}
    if tz is not None:
        env["TZ"] = tz
    assert not any(a.startswith(("-s", "--s")) for a in args[1:]), "never set the clock"
    p = subprocess.run(["date"] + args[1:], env=env, capture_output=True, input=stdin)
    return p.returncode, p.stdout.decode("latin1")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", default="frozen")
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    cases = gen_date.argv_cases(random.Random(a.seed), anchored=False, n=a.n)
    # libfaketime does not follow -u's change of TZ: leave those to the suite.
    cases = [c for c in cases if not any(x in ("-u", "--utc", "--universal") for x in c[1])]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        refs = list(pool.map(gnu, cases))
    lines = "".join(json.dumps([tz, NOW, stdin.decode("latin1")] + args) + "\n"
                    for tz, args, stdin in cases)
    p = subprocess.run([str(ROOT / "target/debug/examples/date_probe")], input=lines.encode(),
                       capture_output=True, check=True)
    ours = [json.loads(l) for l in p.stdout.decode().splitlines()]
    bad = 0
    for case, ref, mine in zip(cases, refs, ours):
        if ref != (mine["status"], mine["stdout"]):
            bad += 1
            if bad <= a.show:
                print(f"TZ={case[0]} {case[1][1:]!r} {case[2]!r}\n  gnu:  {ref}\n  ours: "
                      f"{(mine['status'], mine['stdout'])}")
    print(f"{len(cases) - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
