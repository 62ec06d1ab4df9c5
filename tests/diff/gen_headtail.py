"""head and tail: counts of all shapes (signs, suffixes, obsolete -N/+N forms), headers,
several operands, NUL-terminated lines, bad counts and options."""
from textdata import text


def count(rng, tail):
    r = rng.random()
    n = rng.choice([0, 1, 2, 3, 5, 10, 20, 100])
    if r < 0.5:
        s = str(n)
    elif r < 0.65:
        s = "-" + str(n)
    elif r < 0.8:
        s = "+" + str(n)
    elif r < 0.92:
        s = str(rng.randint(0, 3)) + rng.choice(["b", "k", "K", "kB", "KB", "KiB", "M", "MB", "G", "T", "E", "m", "mB",
                                                 "Z", "Y", "R", "Q", "B", "g", "Ki", "x", "e3"])
    else:
        s = rng.choice(["", "x", "1x", " 2", "+-2", "--2", "-+2", "0x2", "010", "99999999999999999999",
                        "-99999999999999999999", "18446744073709551615", "-9223372036854775808", "-9223372036854775807",
                        "16E", "15E", "-15E", "1e3", "+ 1", "- 1", "-"])
    return s


def obsolete(rng, tail):
    sign = "+" if tail and rng.random() < 0.4 else "-"
    digits = rng.choice(["", "0", "1", "2", "3", "5", "12", "03", "99999999999999999999"])
    if not tail and not digits:
        digits = "2"
    letters = "bkmclqvz" if not tail else "bcl"
    suf = "".join(rng.choice(letters) for _ in range(rng.choice([0, 0, 1, 1, 2])))
    if tail and rng.random() < 0.2:
        suf += "f"
    if rng.random() < 0.05:
        suf += rng.choice("xKMf")
    return sign + digits + suf


def cases(rng):
    for i in range(2400):
        tool = "tail" if i % 2 else "head"
        tail = tool == "tail"
        args = []
        if rng.random() < 0.25:
            args.append(obsolete(rng, tail))
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            opt = rng.choice(["-n", "-c", "--lines=", "--bytes=", "-n", "-n"])
            c = count(rng, tail)
            if opt.endswith("="):
                args.append("'%s%s'" % (opt, c))
            elif c and rng.random() < 0.5 and not c.startswith(" "):
                args.append("'%s%s'" % (opt, c))
            else:
                args += [opt, "'%s'" % c]
        for flag, p in [("-q", 0.1), ("-v", 0.15), ("-z", 0.1), ("--quiet", 0.03), ("--verbose", 0.03),
                        ("--silent", 0.02)]:
            if rng.random() < p:
                args.insert(rng.randint(0, len(args)), flag)
        if tail:
            for flag, p in [("-f", 0.05), ("--retry", 0.02), ("-s 1", 0.02), ("-s x", 0.01),
                            ("--pid=1", 0.01), ("--follow=name", 0.01), ("--follow=descriptor", 0.01),
                            ("--follow=foo", 0.01), ("--max-unchanged-stats=5", 0.01)]:
                if rng.random() < p:
                    args.insert(rng.randint(0, len(args)), flag)
        if rng.random() < 0.03:
            args.append(rng.choice(["-x", "--bogus", "-3", "-n"]))
        r = rng.random()
        if tail and r < 0.03 and not args:
            # following by name: stdin cannot be; never with operands, which GNU would wait for
            args = ["-F"] + rng.choice([[], ["-n1"], ["-f"]])
        elif r < 0.15:
            args += rng.choice([["-"], ["-", "-"], ["nofile"], ["nofile", "-"], ["-", "nofile"], ["--", "-"]])
        if rng.random() < 0.2:
            data = "".join("%d\n" % k for k in range(1, rng.choice([30, 300, 1500]))).encode()
        else:
            data = text(rng, maxlines=25, maxlen=10,
                        eol=b"\0" if ("-z" in args or "z" in "".join(args[:1])) and rng.random() < 0.7 else b"\n")
        yield {"tool": tool, "script": " ".join([tool] + args), "stdin": data}
