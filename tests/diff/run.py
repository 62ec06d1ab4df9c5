#!/usr/bin/env python3
"""Differential suite: every generated case runs under the reference tools and under
mkfifo-sh, and stdout bytes, stderr bytes and exit status must agree.

Generators are the modules tests/diff/gen_*.py. Each defines `cases(rng)`, yielding dicts:

    {"tool": "sed",                 # the builtin the case is about (the report's row)
     "script": "sed -n 's/a/b/p'",  # run by mkfifo-sh -c
     "stdin": b"...",               # bytes, optional
     "ref": "...",                  # optional: the reference script, when it is not `script`
     "env": {"TZ": "UTC"}}          # optional, for both sides

and may set STDERR = False when the reference's diagnostics cannot be the same (the shell:
bash names itself and its script line). The reference runs as
`bash -c` with LC_ALL=C, with bash's own echo, printf, test and [ disabled so that GNU
coreutils answer, and with the reference jq 1.7.1 and rclone first on PATH. mkfifo-sh
runs every case in one process (`--batch`).

Known differences are listed in tests/diff/known.txt, one per line:
    TOOL <TAB> REGEX (searched in the script) <TAB> reason
    TOOL stderr <TAB> REGEX (searched in the reference's stderr) <TAB> reason
                                 (only stderr differs; stdout and status agree)
They still count as failures; the report lists them with their reason.

Some references race with themselves: GNU xargs starts a command and goes on reading its
input, so a diagnostic of its own (an unmatched quote) and the command's output to the same
stderr come in either order, from run to run. A failing case of such a tool (RACING) is run
under the reference up to RERUNS more times, and passes if mkfifo-sh's answer is one the
reference gave, or if its stderr is the reference's with the tool's own lines ("xargs: ...")
placed elsewhere among (or inside) the commands' lines, which is the same race seen in another order (the
report's "reference varies" column counts them). The race depends on the machine: on a busy
one the other order can win every rerun.

The suite fails when a tool's pass rate is below its floor in tests/diff/floors.txt
(TOOL <TAB> RATE; every tool needs one; --raise-floors writes the rates reached, never
lowering one), when any case panics (status 70 with mkfifo-sh's panic message), and when
an option table in tests/diff/options/ is incomplete or lists an implemented option no
case uses alone and combined (options.py).

Usage: run.py [--only TOOL[,TOOL]] [--gen NAME] [--bin PATH] [--jobs N] [--report FILE] [--show N]
              [--raise-floors]
"""
import argparse
import base64
import concurrent.futures
import importlib.util
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import options

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SEED = 20261130
# On the script's first line, so that bash's "line N" is the script's; $0 is `sh`, the
# name mkfifo-sh gives itself, so that messages start alike.
PRELUDE = "enable -n echo printf test '['; "
REF_TIMEOUT = 20
RERUNS = 8
RACING = {"xargs"}


def load_generators(only_gen):
    gens = []
    for path in sorted(HERE.glob("gen_*.py")):
        name = path.stem[4:]
        if only_gen and name not in only_gen:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        gens.append((name, mod))
    return gens


def load_known():
    """(tool, stderr only, regex, reason) of each line of known.txt."""
    known = []
    path = HERE / "known.txt"
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            tool, pattern, reason = line.split("\t", 2)
            tool, _, kind = tool.partition(" ")
            known.append((tool, kind == "stderr", re.compile(pattern), reason))
    return known


FLOORS = HERE / "floors.txt"


def load_floors():
    floors = {}
    if FLOORS.exists():
        for line in FLOORS.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                tool, rate = line.split("\t")[:2]
                floors[tool] = float(rate.rstrip("%")) / 100
    return floors


def write_floors(floors):
    lines = ["# TOOL<TAB>the lowest pass rate the differential suite accepts (run.py --raise-floors)"]
    lines += [f"{tool}\t{rate * 100:.2f}%" for tool, rate in sorted(floors.items())]
    FLOORS.write_text("\n".join(lines) + "\n")


PANIC = b"mkfifo-sh: panic:"


def reference_env(extra):
    env = {
        "PATH": os.environ.get("MKFIFO_REF_PATH", "") + ":/usr/local/bin:/usr/bin:/bin",
        "LC_ALL": "C",
        "TZ": "UTC",
        "HOME": "/nonexistent",
    }
    env.update(extra or {})
    return env


def default_signals():
    """A job started in the background (or by nohup) has SIGINT and SIGQUIT (SIGHUP)
    ignored, and bash's `trap` would list them: the reference starts with the dispositions
    of a command run at a prompt. Set here, in the suite's own process, because an ignored
    signal is inherited through exec and a caught one is not; a `preexec_fn` would do the
    same per case but makes Python fork its whole memory for every one of the ~80,000
    references instead of spawning them cheaply."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def run_reference(case):
    script = case.get("ref", case["script"])
    try:
        p = subprocess.run(
            ["bash", "-c", PRELUDE + script, "sh"],
            input=case.get("stdin", b""),
            capture_output=True,
            env=reference_env(case.get("env")),
            timeout=REF_TIMEOUT,
        )
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, b"", b"timeout"


def matches(case, mine, ref):
    """(same status and stdout, stderr differs where stderr is compared)"""
    same = ref[0] is not None and mine[0] == ref[0] and mine[1] == ref[1]
    return same, same and case["stderr"] and mine[2] != ref[2]


def agrees(case, mine, ref):
    same, stderr_only = matches(case, mine, ref)
    return same and not stderr_only


def own_lines_moved(case, mine, ref):
    """Same status and stdout, and the same stderr but for where the tool's own messages
    are: each of mkfifo-sh's lines that start with the tool's name may sit anywhere in the
    reference's stderr, even inside a command's line (GNU printf writes "printf: " and the
    rest of its message apart)."""
    if ref[0] is None or mine[:2] != ref[:2]:
        return False
    own = (case["tool"] + ": ").encode()
    theirs = ref[2]
    rest = []
    for line in mine[2].splitlines(keepends=True):
        if not line.startswith(own):
            rest.append(line)
            continue
        at = theirs.find(line)
        if at < 0:
            return False
        theirs = theirs[:at] + theirs[at + len(line):]
    return b"".join(rest) == theirs


def reference_varies_to(case, mine, ref):
    """True when the reference's answer is mkfifo-sh's raced in another order, or when the
    reference, run again, once gives mkfifo-sh's answer."""
    return own_lines_moved(case, mine, ref) or any(
        agrees(case, mine, run_reference(case)) for _ in range(RERUNS))


def b64(data):
    return base64.b64encode(data).decode()


def run_ours(binary, cases):
    lines = []
    for case in cases:
        req = {"script": b64(case["script"].encode()), "stdin": b64(case.get("stdin", b""))}
        if case.get("env"):
            req["env"] = {k: b64(v.encode()) for k, v in case["env"].items()}
        lines.append(json.dumps(req))
    p = subprocess.run(
        [binary, "--batch"], input=("\n".join(lines) + "\n").encode(), capture_output=True
    )
    if p.returncode != 0:
        sys.exit(f"mkfifo-sh --batch failed ({p.returncode}):\n{p.stderr.decode(errors='replace')}")
    out = []
    for line in p.stdout.decode().splitlines():
        r = json.loads(line)
        out.append((r["status"], base64.b64decode(r["stdout"]), base64.b64decode(r["stderr"])))
    if len(out) != len(cases):
        sys.exit(f"mkfifo-sh --batch answered {len(out)} of {len(cases)} cases")
    return out


def show(data):
    return repr(data[:400]) + ("..." if len(data) > 400 else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="comma-separated tools to report")
    ap.add_argument("--gen", help="comma-separated generators to run (gen_NAME.py)")
    ap.add_argument("--bin", default=str(ROOT / "target/native/mkfifo-sh"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--report", help="write the table as Markdown to this file")
    ap.add_argument("--show", type=int, default=3, help="failures to print per tool")
    ap.add_argument("--raise-floors", action="store_true",
                    help="store each tool's rate as its floor when it is higher")
    args = ap.parse_args()
    default_signals()
    only = set(args.only.split(",")) if args.only else None
    only_gen = set(args.gen.split(",")) if args.gen else None

    cases = []
    for name, mod in load_generators(only_gen):
        rng = random.Random(f"{SEED}-{name}")
        for case in mod.cases(rng):
            if only and case["tool"] not in only:
                continue
            case["gen"] = name
            case["stderr"] = getattr(mod, "STDERR", True)
            cases.append(case)
    if not cases:
        sys.exit("no cases")
    known = load_known()
    floors = load_floors()
    problems = []
    if not only and not only_gen:
        problems, coverage = options.check(options.load_tables(), cases, reference_env({}))

    t0 = time.time()
    ours = run_ours(args.bin, cases)
    t1 = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        refs = list(pool.map(run_reference, cases, chunksize=16))
        failing = [i for i, (case, mine, ref) in enumerate(zip(cases, ours, refs))
                   if case["tool"] in RACING and not agrees(case, mine, ref)]
        varies = {i for i, v in zip(failing, pool.map(
            lambda i: reference_varies_to(cases[i], ours[i], refs[i]), failing)) if v}
    t2 = time.time()

    fail_dir = ROOT / "target/diff"
    fail_dir.mkdir(parents=True, exist_ok=True)
    stats = {}
    failures = {}
    panics = []
    for i, (case, mine, ref) in enumerate(zip(cases, ours, refs)):
        tool = case["tool"]
        s = stats.setdefault(tool, {"cases": 0, "pass": 0, "known": 0, "stderr": 0, "varies": 0})
        s["cases"] += 1
        if mine[0] == 70 and PANIC in mine[2]:
            panics.append((i, case, mine))
        same, stderr_only = matches(case, mine, ref)
        if (same and not stderr_only) or i in varies:
            s["pass"] += 1
            s["varies"] += i in varies
            continue
        if stderr_only:
            s["stderr"] += 1
        where = ref[2].decode(errors="replace") if stderr_only else case["script"]
        reason = next((r for t, err, pat, r in known
                       if t == tool and err == stderr_only and pat.search(where)), None)
        if reason:
            s["known"] += 1
        failures.setdefault(tool, []).append((i, case, mine, ref, reason))

    for tool, fails in failures.items():
        with open(fail_dir / f"{tool}.failed", "w") as f:
            for i, case, mine, ref, reason in fails:
                f.write(f"### case {i} ({case['gen']}){' KNOWN: ' + reason if reason else ''}\n")
                f.write(f"script: {case['script']!r}\n")
                if "ref" in case:
                    f.write(f"ref:    {case['ref']!r}\n")
                f.write(f"stdin:  {show(case.get('stdin', b''))}\n")
                f.write(f"ours:   status {mine[0]} stdout {show(mine[1])} stderr {show(mine[2])}\n")
                f.write(f"ref:    status {ref[0]} stdout {show(ref[1])} stderr {show(ref[2])}\n\n")

    rows = ["| tool | cases | pass | of which reference varies | known differences | other failures "
            "| of which stderr only | pass rate | floor |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ok = True
    total = passed = 0
    rates = {}
    for tool in sorted(stats):
        s = stats[tool]
        rate = rates[tool] = s["pass"] / s["cases"]
        other = s["cases"] - s["pass"] - s["known"]
        total += s["cases"]
        passed += s["pass"]
        floor = floors.get(tool)
        mark = ""
        if floor is None:
            mark = " (no floor)"
        elif rate + 1e-9 < floor:
            mark = " (below floor)"
        if mark and not args.raise_floors:
            ok = False
        shown = "-" if floor is None else f"{floor:.2%}"
        rows.append(f"| {tool} | {s['cases']} | {s['pass']} | {s['varies']} | {s['known']} | {other} | {s['stderr']} "
                    f"| {rate:.2%}{mark} | {shown} |")
    rows.append(f"| **all** | {total} | {passed} | | | | | {passed / total:.2%} | |")
    table = "\n".join(rows)
    print(table)
    if args.raise_floors:
        for tool, rate in rates.items():
            floors[tool] = max(floors.get(tool, 0), int(rate * 10000) / 10000)
        write_floors(floors)
    if not only and not only_gen:
        table += "\n\n| options of | implemented | not applicable | not yet |\n|---|---:|---:|---:|\n"
        table += "\n".join(f"| {c} | {y} | {na} | {no} |" for c, y, na, no in coverage)
        for p in problems:
            print(f"OPTIONS: {p}")
        if problems:
            ok = False
    for i, case, mine in panics[:20]:
        print(f"\nPANIC {case['tool']} case {i}: {case['script']!r}: {show(mine[2])}")
    if panics:
        ok = False
    print(f"\nmkfifo-sh: {t1 - t0:.1f} s for {len(cases)} cases; reference: {t2 - t1:.1f} s")
    for tool, fails in sorted(failures.items()):
        unexplained = [f for f in fails if not f[4]]
        for i, case, mine, ref, _ in unexplained[: args.show]:
            print(f"\nFAIL {tool} case {i}: {case['script']!r} stdin={show(case.get('stdin', b''))}")
            print(f"  ours: {mine[0]} {show(mine[1])} {show(mine[2])}")
            print(f"  ref:  {ref[0]} {show(ref[1])} {show(ref[2])}")
    if failures:
        print(f"\nall failures: {fail_dir}/TOOL.failed")
    if args.report:
        Path(args.report).write_text(table + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
