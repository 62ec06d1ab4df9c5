"""cut: random lists, modes, delimiters and inputs, plus bad usage."""
from textdata import quote, text

DELIMS = [":", ",", " ", "a", ".", "-", "x", "\\"]


def rand_list(rng):
    items = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        a, b = rng.randint(1, 6), rng.randint(1, 8)
        if r < 0.4:
            items.append(str(a))
        elif r < 0.6:
            items.append("%d-%d" % (min(a, b), max(a, b)))
        elif r < 0.75:
            items.append("%d-" % a)
        elif r < 0.9:
            items.append("-%d" % b)
        else:
            items.append(rng.choice(["0", "0-2", "3-1", "-", "a", "1-2-3", "--2", "1.5", "", "+1", "99999999999999999999",
                                     "18446744073709551614", "1-18446744073709551615", "2x", "4294967297"]))
    sep = rng.choice([",", ",", ",", " "])
    return sep.join(items)


def cases(rng):
    for _ in range(2400):
        args = []
        mode = rng.choice(["-b", "-c", "-f", "-f", "-f", "--fields=", "--bytes=", "--characters="])
        lst = rand_list(rng)
        if mode.endswith("="):
            args.append(quote(mode + lst))
        elif rng.random() < 0.5:
            args.append(mode + quote(lst) if lst and " " not in lst else mode + " " + quote(lst))
        else:
            args += [mode, quote(lst)]
        delim = None
        if rng.random() < 0.7:
            delim = rng.choice(DELIMS)
            args.append(rng.choice(["-d", "--delimiter="]) + quote(delim) if rng.random() < 0.5 else "-d " + quote(delim))
        for flag, p in [("-s", 0.3), ("--complement", 0.25), ("-z", 0.08), ("-n", 0.05), ("--only-delimited", 0.05)]:
            if rng.random() < p:
                args.append(flag)
        if rng.random() < 0.25:
            args.append("--output-delimiter=" + quote(rng.choice(["", "|", "::", " ", "-+-"])))
        r = rng.random()
        if r < 0.03:
            args.append(rng.choice(["-x", "--bogus", "-d", "-d ab", "-d ''", "-b1 -f2", "--output-delimiter"]))
        elif r < 0.05 and mode[:2] in ("-b", "-c", "--b", "--c"):
            args.append("-s")
        rng.shuffle(args)
        if rng.random() < 0.08:
            args = [a for a in args if not a.startswith(("-b", "-c", "-f", "--b", "--c", "--f"))]
        ops = []
        if rng.random() < 0.1:
            ops = rng.choice([["-"], ["-", "-"], ["nofile"], ["nofile", "-"], ["-", "--", "-"]])
        alphabet = [b"a", b"b", b"c", b"1", b"2", b" ", b"\t", b":", b",", b".", b"x", b"-"]
        data = text(rng, alphabet=[s for s in alphabet], maxlines=6, maxlen=14,
                    eol=b"\0" if "-z" in args and rng.random() < 0.7 else b"\n")
        yield {"tool": "cut", "script": " ".join(["cut"] + args + ops), "stdin": data}
