"""tac (separators, -b, -r), rev, paste (-d lists with escapes, -s, several '-')."""
from textdata import quote, text


def tac_case(rng):
    args = []
    if rng.random() < 0.3:
        args.append("-b")
    sep = None
    if rng.random() < 0.4:
        if rng.random() < 0.3:
            args.append("-r")
            sep = rng.choice(["[0-9]+", "x", "a\\|b", "\\(ab\\)", "[[:space:]]", ":+", "(", "b$", "^a", "[ab]"])
        else:
            sep = rng.choice([":", "::", "ab", "", "\n", "x", "aa"])
        args.append("-s " + quote(sep))
    if rng.random() < 0.03:
        args.append(rng.choice(["-x", "--bogus", "-s"]))
    ops = []
    if rng.random() < 0.1:
        ops = rng.choice([["-"], ["-", "-"], ["nofile"], ["nofile", "-"]])
    alphabet = [b"a", b"b", b"x", b":", b"1", b"22", b"\n", b" ", b"aa", b"\x00", b"\xff"]
    data = text(rng, alphabet=alphabet, maxlines=6, maxlen=10)
    return {"tool": "tac", "script": " ".join(["tac"] + args + ops), "stdin": data}


def rev_case(rng):
    args = []
    if rng.random() < 0.05:
        args.append(rng.choice(["-x", "-", "nofile", "-V", "--help"]))
    hi = rng.random() < 0.15
    alphabet = [b"a", b"b", b"c", b" ", b"\t", b"12", b"\r"] + ([b"\xc3\xa9", b"\xff"] if hi else [])
    if rng.random() < 0.1:
        alphabet.append(b"\x00")
    data = text(rng, alphabet=alphabet, maxlines=6, maxlen=12)
    return {"tool": "rev", "script": " ".join(["rev"] + args), "stdin": data}


def paste_case(rng):
    args = []
    if rng.random() < 0.4:
        d = "".join(rng.choice([":", ",", "\\t", "\\n", "\\0", "\\\\", "x", " ", "\\b", "\\q"])
                    for _ in range(rng.randint(0, 3)))
        if rng.random() < 0.03:
            d += "\\"
        args.append(rng.choice(["-d ", "--delimiters="]) + quote(d))
    if rng.random() < 0.3:
        args.append(rng.choice(["-s", "--serial"]))
    if rng.random() < 0.05:
        args.append("-z")
    if rng.random() < 0.02:
        args.append(rng.choice(["-x", "--bogus"]))
    ops = rng.choice([[], ["-"], ["-", "-"], ["-", "-", "-"], ["-", "-", "-", "-"], ["nofile"], ["-", "nofile"]])
    data = text(rng, alphabet=[b"a", b"b", b"1", b" ", b"\t", b"xyz"], maxlines=9, maxlen=5,
                eol=b"\0" if "-z" in args and rng.random() < 0.7 else b"\n")
    return {"tool": "paste", "script": " ".join(["paste"] + args + ops), "stdin": data}


def cases(rng):
    for i in range(3600):
        yield [tac_case, rev_case, paste_case][i % 3](rng)
