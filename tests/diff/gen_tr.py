"""tr: random sets (ranges, classes, equivalences, repeats, escapes), option mixes, bad usage."""
from textdata import quote, text

CLASSES = ["alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper",
           "xdigit"]
CHARS = "abcxyzABCXYZ019 -.,:!*[]=\\"


def piece(rng, second):
    r = rng.random()
    if r < 0.35:
        return rng.choice("abcdexyzABCXYZ0123456789 .,!-")
    if r < 0.5:
        a, b = sorted(rng.sample("abcdefxyzABCXYZ0189", 2))
        if rng.random() < 0.05:
            a, b = b, a
        return a + "-" + b
    if r < 0.62:
        if rng.random() < 0.7:
            return "[:%s:]" % rng.choice(["upper", "lower"] if second and rng.random() < 0.7 else CLASSES)
        return rng.choice(["[:foo:]", "[::]", "[:alpha:", "[:]"])
    if r < 0.67:
        return rng.choice(["[=a=]", "[=x=]", "[=[=]", "[==]", "[=ab=]", "[=]"])
    if r < 0.77:
        c = rng.choice("abxyz*]\\-")
        if c == "\\":
            c = "\\\\"
        n = rng.choice(["", "", "0", "2", "3", "5", "010", "08", "x", " 2", "12"])
        if not second and n in ("", "0") and rng.random() < 0.7:
            n = "2"
        return "[%s*%s]" % (c, n)
    if r < 0.9:
        return rng.choice(["\\n", "\\t", "\\\\", "\\-", "\\[", "\\]", "\\0", "\\001", "\\177", "\\200", "\\377",
                           "\\400", "\\18", "\\q", "\\a", "\\v", "\\r", "\\012", "\\x"])
    return rng.choice(["[", "]", "-", "*", ":", "="])


def rand_set(rng, second=False):
    n = rng.choice([0, 1, 1, 2, 2, 3, 4])
    s = "".join(piece(rng, second) for _ in range(n))
    if rng.random() < 0.03:
        s += "\\"
    return s


def cases(rng):
    for _ in range(3000):
        flags = []
        for f, p in [("c", 0.2), ("d", 0.25), ("s", 0.25), ("t", 0.1)]:
            if rng.random() < p:
                flags.append(f)
        args = []
        if flags:
            if rng.random() < 0.6:
                args.append("-" + "".join(flags).replace("c", rng.choice("cC")))
            else:
                longs = {"c": "--complement", "d": "--delete", "s": "--squeeze-repeats", "t": "--truncate-set1"}
                args += [longs[f] if rng.random() < 0.5 else "-" + f for f in flags]
        translating = "d" not in flags
        nsets = 2 if translating and ("s" not in flags or rng.random() < 0.5) else (2 if "d" in flags and "s" in flags else 1)
        if rng.random() < 0.05:
            nsets = rng.choice([0, 1, 2, 3])
        sets = [rand_set(rng, second=(i == 1)) for i in range(nsets)]
        if sets and sets[0].startswith("-"):
            sets[0] = "a" + sets[0]
        args += [quote(s) for s in sets]
        if rng.random() < 0.02:
            args.insert(0, rng.choice(["-x", "--bogus", "--"]))
        data = text(rng, maxlines=5, maxlen=20,
                    alphabet=[bytes([c]) for c in b"abcxyzABCXYZ019 \t-.,:!*[]=\\"] + [b"aa", b"  ", b"zz"])
        yield {"tool": "tr", "script": " ".join(["tr"] + args), "stdin": data}
