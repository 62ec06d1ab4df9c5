"""seq: random operands (integers, decimals, exponents, negative steps, hexadecimal, huge
values past 2^64, invalid ones), with -w, -s and -f formats, kept to short outputs."""
import shlex


BAD = ["x", "", " ", "1e", "1x", "1 ", "nan", "-nan", "1..2", "--", "0x", "+", "-", "1,5",
       "abc", "1e+", ".", "e5", "1e5000", "-1e5000", "1e-5000", "0x1p99999"]
FORMATS = ["%g", "%f", "%e", "%.2f", "%05.1f", "%-8.3fx", "%+g", "% g", "%#g", "%a", "%A",
           "%E", "%G", "%F", "%Lf", "%.0f", "%10.4e", "x%gy", "%%%g%%", "%'g", "%.3Lg",
           "%d", "%s", "x", "%", "%5", "%-", "%g%", "%f%f", "%lf", "%*g", "%.*g", "%5%",
           "%Ig", "%hhg", "%q", "a%gb\\n", "%.20g", "%.25f", "%010.3f", "%#.0f", "%#x"]
SEPS = [",", "", " ", ":", "--", "\\n", "ab", "\t", "%"]


def rand_num(rng, small=True):
    r = rng.random()
    if r < 0.3:
        return str(rng.randint(-20, 30))
    if r < 0.45:
        d = rng.randint(1, 4)
        return "%.*f" % (d, rng.uniform(-10, 10))
    if r < 0.55:
        return "%de%d" % (rng.randint(-30, 30), rng.randint(-3, 2))
    if r < 0.62:
        return "%d.%de%d" % (rng.randint(0, 30), rng.randint(0, 99), rng.randint(-3, 2))
    if r < 0.68:
        return rng.choice([".5", "-.5", "5.", "0.1", "0.25", "1.50", "01", "007", "+3", "-0",
                           "-0.0", " 2", "0x10", "0x1.8p1", "0X3", "1E1", "1.e1", ".5e1",
                           "15e-1", "150e-2", "0.15e1", "0.015e2", "100e-1", "5.e-1"])
    return str(rng.randint(0, 12))


HUGE = ["18446744073709551615", "18446744073709551616", "18446744073709551617",
        "9223372036854775807", "99999999999999999999", "100000000000000000000",
        "18446744073709551615e0", "1e19", "1e20", "36893488147419103230",
        "1844674407370955161.5e1", "18446744073709551614.0"]


def huge_case(rng):
    first = rng.choice(HUGE)
    base = int(float(first)) if "e" in first or "." in first else int(first)
    last = str(base + rng.randint(-2, 12))
    if rng.random() < 0.3:
        last += rng.choice([".0", "e0", "0e-1"])
    argv = ["seq"] + rng.choice([[], [], ["-w"], ["-s", ","], ["-f", "%g"], ["-f", "%.0f"]])
    if rng.random() < 0.4:
        argv += [first, rng.choice(["1", "2", "3", "1e0", "1.0", "2.0"]), last]
    else:
        argv += [first, last]
    if rng.random() < 0.2:
        argv[-2:] = ["-" + argv[-1], "-" + argv[-2]] if argv[-2][0] != "-" else argv[-2:]
    return argv


def rand_step(rng):
    r = rng.random()
    if r < 0.4:
        return str(rng.choice([1, 1, 2, 3, 5, -1, -2, -3]))
    if r < 0.7:
        return rng.choice(["0.1", "0.2", "0.25", "0.5", "1.5", "-0.1", "-0.5", "-1.5", "0.3",
                           "0.01", "1e-1", "1e-2", "2e0", "0.05", ".5", "0x.8p0", "0x2",
                           "0.000001", "-0.25", "0.7", "1.1", "0.15"])
    if r < 0.75:
        return rng.choice(["0", "-0", "0.0", "0e5"])
    return "%.*f" % (rng.randint(1, 3), rng.choice([1, -1]) * rng.uniform(0.05, 4))


def bounded(rng, first, step):
    """A LAST that keeps the output short (at most ~60 numbers)."""
    try:
        f = float.fromhex(first) if "x" in first.lower() else float(first)
        s = float.fromhex(step) if "x" in step.lower() else float(step)
    except ValueError:
        return rand_num(rng)
    if s == 0:
        return str(rng.randint(1, 5))
    n = rng.randint(-2, 40)
    last = f + s * n + rng.choice([0, 0, 0, s / 2, s * 1e-9, -s * 1e-9])
    if abs(last) > 1e15:
        return rand_num(rng)
    r = rng.random()
    if r < 0.5:
        return repr(round(last, rng.randint(0, 4)))
    if r < 0.7 or abs(s) < 0.5:
        return "%g" % last
    return str(int(last))


def case(argv):
    return {"tool": "seq", "script": " ".join(shlex.quote(a) for a in argv), "argv": argv}


FIXED = [
    ["seq"], ["seq", "1", "2", "3", "4"], ["seq", "-w", "-f", "%g", "1", "2"],
    ["seq", "1", "-w", "3"], ["seq", "-1", "-w", "1"], ["seq", "-s:", "-w", "1", "10"],
    ["seq", "--", "1", "2"], ["seq", "-s", ",", "-s", ":", "1", "3"],
    ["seq", "--separator=:", "1", "3"], ["seq", "--sep", ":", "1", "3"],
    ["seq", "--equal-width", "8", "10"], ["seq", "--format=%f", "1", "1"],
    ["seq", "-f", "%g", "-f", "%f", "1"], ["seq", "-x", "1"], ["seq", "-f"],
    ["seq", "--foo", "1"], ["seq", "0", "0.000001", "0.000003"],
    ["seq", "1", "1e-25", "1"], ["seq", "1.000000000000000000001", "1"],
    ["seq", "1e1000", "1e1000"], ["seq", "1", "inf", "3"], ["seq", "1", "1", "-inf"],
    ["seq", "-w", "1e5", "1", "100001"],
    ["seq", "18446744073709551615e0", "18446744073709551617"],
    ["seq", "18446744073709551615", "1e0", "18446744073709551617"],
    ["seq", "-99999999999999999999", "-99999999999999999998"],
    ["seq", "99999999999999999999", "2", "100000000000000000003"],
    ["seq", "-s,", "18446744073709551615", "18446744073709551617"],
    ["seq", "-w", "18446744073709551615", "18446744073709551617"],
    ["seq", "-f", "%g", "18446744073709551615", "18446744073709551617"],
    ["seq", "+18446744073709551615", "18446744073709551617"],
    ["seq", "1", "10000000000000000000000", "1"], ["seq", "-0", "1"], ["seq", "-w", "-0", "1"],
    ["seq", "-w", "-0.0", "1"], ["seq", "-w", "0x1", "1", "10"], ["seq", "-w", "1", "1", "0x10"],
    ["seq", "-w", "0x10", "100"], ["seq", "0x1", "0.5", "2"], ["seq", "1", "0.5", "0x2"],
    ["seq", "1", "1", "0x2.8"], ["seq", "0x1.8", "3"], ["seq", "-w", "0x1.0", "10"],
]


def cases(rng):
    for argv in FIXED:
        yield case(argv)
    for bad in BAD:
        yield case(["seq", bad])
        yield case(["seq", "1", bad])
        yield case(["seq", "1", bad, "3"])
    for _ in range(150):
        yield case(huge_case(rng))
    for _ in range(2400):
        argv = ["seq"]
        if rng.random() < 0.2:
            argv.append("-w")
        if rng.random() < 0.2:
            argv += ["-s", rng.choice(SEPS)]
        if rng.random() < 0.15 and "-w" not in argv:
            argv += ["-f", rng.choice(FORMATS)]
        r = rng.random()
        if r < 0.15:
            argv.append(str(rng.randint(-3, 40)))
        elif r < 0.35:
            first = rand_num(rng)
            argv += [first, bounded(rng, first, "1")]
        else:
            first = rand_num(rng)
            step = rand_step(rng)
            argv += [first, step, bounded(rng, first, step)]
        ops = [a for a in argv[1:] if a not in ("-w",)]
        if any(a.startswith("-") and len(a) > 1 and not (a[1].isdigit() or a[1] == ".")
               for a in argv[len(argv) - len(ops):]):
            continue
        yield case(argv)
