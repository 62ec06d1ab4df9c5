"""Random GNU regular expressions and inputs for the sed and grep generators.

`regex(rng, ere)` builds a pattern from a small grammar (literals, brackets with classes
and ranges, anchors, GNU escapes, groups, alternation, repetition, back-references),
sometimes broken on purpose; `lines(rng)` builds input text over an alphabet that the
patterns use, with empty lines, bytes above 127, invalid UTF-8 and a missing final
newline now and then.
"""

ALPHA = "abcxyAB01 _-."
WORDS = ["foo", "bar", "baz", "abc", "aab", "xyz", "a b", "hello", "world", "x1", "a.b", "A", ""]


def bracket(rng):
    items = []
    neg = rng.random() < 0.25
    if rng.random() < 0.1:
        items.append("]")
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.35:
            items.append(rng.choice("abcxyzAB019_. -"))
        elif r < 0.6:
            lo = rng.choice("abx0A")
            hi = rng.choice("cz9Zb")
            items.append(f"{lo}-{hi}")
        elif r < 0.85:
            items.append("[:" + rng.choice(["alpha", "digit", "space", "upper", "lower", "alnum",
                                            "punct", "blank", "xdigit", "print", "graph", "cntrl"]) + ":]")
        elif r < 0.9:
            items.append("[=a=]")
        elif r < 0.95:
            items.append("[.-.]")
        else:
            items.append(rng.choice(["[:foo:]", "z-a", "[.ab.]", "a-[:alpha:]"]))  # invalid
    if rng.random() < 0.1:
        items.append("-")
    return "[" + ("^" if neg else "") + "".join(items) + "]"


def atom(rng, ere, depth, groups):
    r = rng.random()
    if r < 0.35:
        c = rng.choice("abcxyAB0 ")
        return c, False
    if r < 0.45:
        return ".", False
    if r < 0.58:
        return bracket(rng), False
    if r < 0.66:
        return rng.choice(["\\w", "\\W", "\\s", "\\S", "\\b", "\\B", "\\<", "\\>", "\\.", "\\*",
                           "\\[", "\\]", "\\\\", "\\/", "\\`", "\\'", "\\{" if ere else "{", "}", "\\$", "\\^"]), False
    if r < 0.82 and depth < 3:
        inner = alternation(rng, ere, depth + 1, groups)
        groups[0] += 1
        return ("(" + inner + ")") if ere else ("\\(" + inner + "\\)"), False
    if r < 0.9 and groups[0] > 0:
        return "\\" + str(rng.randint(1, min(groups[0], 9))), False
    if r < 0.95:
        return rng.choice(["^", "$"]), True
    return rng.choice("abc"), False


def quant(rng, ere):
    r = rng.random()
    if r < 0.4:
        return "*"
    ops = ["+", "?"] if ere else ["\\+", "\\?"]
    if r < 0.65:
        return rng.choice(ops)
    lo = rng.randint(0, 3)
    hi = lo + rng.randint(0, 2)
    body = rng.choice([f"{lo}", f"{lo},", f"{lo},{hi}", f",{hi}", f"{hi},{lo}" if rng.random() < 0.1 else f"{lo}"])
    return ("{" + body + "}") if ere else ("\\{" + body + "\\}")


def branch(rng, ere, depth, groups):
    out = []
    for _ in range(rng.randint(1, 4)):
        a, anchor = atom(rng, ere, depth, groups)
        out.append(a)
        if not anchor and rng.random() < 0.3:
            out.append(quant(rng, ere))
            if rng.random() < 0.05:
                out.append(quant(rng, ere))
    return "".join(out)


def alternation(rng, ere, depth, groups):
    parts = [branch(rng, ere, depth, groups)]
    while rng.random() < 0.2:
        parts.append(branch(rng, ere, depth, groups))
    return ("|" if ere else "\\|").join(parts)


def regex(rng, ere):
    groups = [0]
    r = alternation(rng, ere, 0, groups)
    if rng.random() < 0.1:
        r = "^" + r
    if rng.random() < 0.1:
        r = r + "$"
    if rng.random() < 0.04:
        # Broken on purpose.
        r = rng.choice([r + ("(" if ere else "\\("), r + "\\", "[" + r, r + ("\\)" if not ere else ")"),
                        r + ("\\{1" if not ere else "{1"), "*" + r, r + "[[:alpha:]"])
    return r, groups[0]


def line(rng):
    r = rng.random()
    if r < 0.1:
        return b""
    if r < 0.5:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))).encode()
    if r < 0.9:
        return "".join(rng.choice(ALPHA) for _ in range(rng.randint(1, 12))).encode()
    if r < 0.95:
        return bytes(rng.choice([0x61, 0x62, 0xe9, 0xff, 0xc3, 0xa9, 0x80, 0x20, 0x09]) for _ in range(rng.randint(1, 6)))
    return b"\tA_b9 \x0b" + bytes([rng.randint(1, 255)])


def lines(rng, nmax=6):
    ls = [line(rng) for _ in range(rng.randint(0, nmax))]
    data = b"\n".join(ls)
    if ls and rng.random() < 0.85:
        data += b"\n"
    return data
