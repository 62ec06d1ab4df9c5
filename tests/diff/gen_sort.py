"""sort: random keys (-k with .c offsets and per-key flags), separators, every ordering
(-n -g -h -M -V, -f -d -i -b -r), -u -s -c -C -m -z, numbers and versions of all shapes,
and bad usage."""
from textdata import number, quote, version, rand_bytes_line, join_lines

MONTHS = ["jan", "FEB", "Mar", "apr", "MAY", "june", "JULY", "aug", "Sep", "oct", "nov", "DEC", "xyz", "", " feb",
          "\tmar", "ju", "decx"]
FLAGS = "bdfghiMnrV"


def field(rng, kind):
    if kind == "n" or kind == "g" or kind == "h":
        return number(rng)
    if kind == "V":
        return version(rng)
    if kind == "M":
        return rng.choice(MONTHS)
    return rng.choice(["a", "b", "B", "ab", "a b", "", "Z", "zz", "10", "9", "-1", "x.y", "é", "\x01c", "c,d", "_",
                       "  pad", "Tab\tx", "~", "A1", "a10", "a9"])


def make_lines(rng, kinds, sep):
    lines = []
    n = rng.randint(0, 12)
    for _ in range(n):
        nf = rng.randint(1, 4)
        fs = [field(rng, rng.choice(kinds)) for _ in range(nf)]
        if sep is None:
            joiner = rng.choice([" ", " ", "  ", "\t", " \t"])
        else:
            joiner = sep
        line = joiner.join(fs)
        if rng.random() < 0.1:
            line = rng.choice([" ", "  ", "\t"]) + line
        lines.append(line.encode("utf-8", "surrogateescape"))
    if rng.random() < 0.3 and lines:
        lines += [rng.choice(lines) for _ in range(rng.randint(1, 5))]
        rng.shuffle(lines)
    if rng.random() < 0.1:
        lines.append(rand_bytes_line(rng, maxlen=8))
    return lines


def keyspec(rng):
    f1 = rng.randint(1, 4)
    s = str(f1)
    if rng.random() < 0.25:
        s += ".%d" % rng.randint(1, 4)
    if rng.random() < 0.4:
        s += "".join(rng.sample(FLAGS, rng.choice([1, 1, 2])))
    if rng.random() < 0.6:
        f2 = rng.randint(f1, 5) if rng.random() < 0.9 else rng.randint(1, 5)
        s += ",%d" % f2
        if rng.random() < 0.25:
            s += ".%d" % rng.randint(0, 4)
        if rng.random() < 0.3:
            s += "".join(rng.sample(FLAGS, rng.choice([1, 1, 2])))
    if rng.random() < 0.02:
        s = rng.choice(["0", "1.0", "x", "1,x", "1.x", "1y", "2.,3", "1,0", "-1", "", "1n.1", "99999999999999999999"])
    return s


def cases(rng):
    for _ in range(3000):
        args = []
        kinds = [rng.choice(["t", "n", "g", "h", "V", "M"])]
        if rng.random() < 0.3:
            kinds.append(rng.choice(["t", "n", "g", "h", "V", "M"]))
        sep = None
        if rng.random() < 0.35:
            sep = rng.choice([":", ",", "\t", " ", "."])
            args.append("-t " + quote(sep))
        nkeys = rng.choice([0, 0, 1, 1, 1, 2, 3])
        for _ in range(nkeys):
            ks = keyspec(rng)
            args.append(rng.choice(["-k", "--key="]) + quote(ks) if rng.random() < 0.3 else "-k " + quote(ks))
        # global options, mostly one ordering kind
        g = rng.choice(["", "", "n", "g", "h", "V", "M", "f", "d", "i", "b", "bn", "fr", "nr", "dfi", "gr", "hr"])
        if rng.random() < 0.05:
            g += rng.choice(FLAGS)
        if g:
            args.append("-" + g)
        for flag, p in [("-r", 0.15), ("-s", 0.2), ("-u", 0.2), ("-b", 0.1), ("-f", 0.08), ("-z", 0.05),
                        ("-c", 0.04), ("-C", 0.03), ("-m", 0.04), ("-o /dev/stdout", 0.02),
                        ("--stable", 0.02), ("--unique", 0.02), ("--sort=numeric", 0.02), ("--sort=version", 0.01),
                        ("--sort=foo", 0.005), ("--check=quiet", 0.01), ("-S 1M", 0.01), ("--parallel=2", 0.01),
                        ("-T /tmp", 0.01)]:
            if rng.random() < p:
                args.append(flag)
        if rng.random() < 0.03:
            args.append(rng.choice(["-x", "--bogus", "-t ''", "-t ab", "-gn", "-k", "-S x", "-dM", "-cC",
                                    "--batch-size=1"]))
        if rng.random() < 0.04:
            # obsolete +POS1 -POS2
            args.append("+%d" % rng.randint(0, 3) + rng.choice(["", "", "n", "r", "b"]))
            if rng.random() < 0.5:
                args.append("-%d" % rng.randint(1, 4))
        rng.shuffle(args)
        ops = []
        if rng.random() < 0.08:
            ops = rng.choice([["-"], ["nofile"], ["-", "nofile"], ["-", "-"]])
        lines = make_lines(rng, kinds, sep)
        if "-c" in args or "-C" in args or "--check=quiet" in args:
            if rng.random() < 0.5:
                lines.sort()
        data = join_lines(rng, lines, b"\0" if "-z" in args and rng.random() < 0.8 else b"\n")
        yield {"tool": "sort", "script": " ".join(["sort"] + args + ops), "stdin": data}
    yield from debug_cases(rng)


def debug_lines(rng, kinds, sep):
    """Lines for --debug: the usual fields plus what its underlines must measure (tabs,
    control bytes, bytes >127, CR before the newline, long lines)."""
    lines = make_lines(rng, kinds, sep)
    for _ in range(rng.choice([0, 0, 1, 2])):
        lines.append(rng.choice([b"", b" ", b"\t", b"a\tb\tc", b"\x01x 2", b"1\r", b"x y\r", b"\xc3\xa9 3",
                                 b"\x80\xff 1K", b" \x7f 4", b"a" * 300 + b" 9", b"\x1b[1m 5", b"-", b".5",
                                 b"1.", b"-0", b"+2", b" 0x1F", b"1e3", b"inf", b"nan", b"Jan 3", b"\tfeb",
                                 rand_bytes_line(rng)]))
    rng.shuffle(lines)
    return lines


def debug_cases(rng):
    """--debug: its warnings about keys and options and each line's underlines, over every
    kind of key and the options it combines with."""
    for _ in range(900):
        args = ["--debug"]
        kinds = [rng.choice(["t", "n", "g", "h", "V", "M"]) for _ in range(rng.choice([1, 1, 2]))]
        sep = None
        if rng.random() < 0.3:
            sep = rng.choice([":", ",", "\t", " ", ".", "-"])
            args.append("-t " + quote(sep))
        for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
            ks = keyspec(rng)
            if rng.random() < 0.1:
                ks = "%d,%d" % (rng.randint(2, 4), rng.randint(1, 2))
            args.append(rng.choice(["-k ", "-k", "--key="]) + quote(ks))
        g = rng.choice(["", "", "", "n", "g", "h", "V", "M", "f", "d", "i", "b", "bn", "fr", "nr", "dfi", "gr", "hr",
                        "r", "bdf", "fM", "R"])
        if g:
            args.append("-" + g)
        for flag, p in [("-r", 0.15), ("-s", 0.2), ("-u", 0.2), ("-b", 0.1), ("-f", 0.08), ("-z", 0.08),
                        ("-m", 0.04), ("-c", 0.02), ("-C", 0.02), ("-o /dev/stdout", 0.02), ("--sort=numeric", 0.02),
                        ("-S 1M", 0.01)]:
            if rng.random() < p:
                args.append(flag)
        if rng.random() < 0.08:
            args.append("+%d" % rng.randint(0, 3) + rng.choice(["", "", ".1", "n", "r", "b", "bn"]))
            if rng.random() < 0.6:
                args.append("-%d" % rng.randint(0, 4) + rng.choice(["", "", ".2", "b"]))
        rng.shuffle(args)
        if "-R" in args:
            continue
        lines = debug_lines(rng, kinds, sep)
        data = join_lines(rng, lines, b"\0" if "-z" in args and rng.random() < 0.8 else b"\n")
        yield {"tool": "sort", "script": " ".join(["sort"] + args), "stdin": data}
