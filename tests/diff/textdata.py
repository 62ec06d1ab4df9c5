"""Random inputs and arguments shared by the text-tool generators (gen_cut.py, gen_sort.py...)."""
import shlex

WORDS = ["a", "b", "abc", "foo", "Bar", "x y", "1", "10", "-2", "3.5", "", "zz", "A", "\xe9t\xe9",
         "tab\there", "mixed Case", "  lead", "trail  ", "k=v", "a:b", "1,2,3"]
SPECIAL = [b"\x00", b"\r", b"\xff", b"\x80", b"\xc3\xa9", b"\xe2\x82", b"\t", b" ", b"\x7f", b"\x1b"]


def quote(s):
    """A shell word for `s`, quoted only when needed."""
    return shlex.quote(s)


def rand_bytes_line(rng, alphabet=None, maxlen=12):
    alphabet = alphabet or [b"a", b"b", b"c", b"A", b"Z", b"0", b"9", b" ", b"\t", b":", b",", b"-", b"."]
    n = rng.randint(0, maxlen)
    parts = []
    for _ in range(n):
        if rng.random() < 0.08:
            parts.append(rng.choice(SPECIAL))
        else:
            parts.append(rng.choice(alphabet))
    return b"".join(parts)


def join_lines(rng, lines, eol=b"\n"):
    data = eol.join(lines)
    r = rng.random()
    if lines and r < 0.75:
        data += eol
    elif lines and r < 0.8:
        data = data.replace(b"\n", b"\r\n") + b"\r\n"
    return data


def text(rng, alphabet=None, maxlines=8, maxlen=12, eol=b"\n"):
    """Random lines: sometimes empty, sometimes without a final newline, CRLF, odd bytes."""
    r = rng.random()
    if r < 0.04:
        return b""
    if r < 0.07:
        return eol
    lines = [rand_bytes_line(rng, alphabet, maxlen) for _ in range(rng.randint(1, maxlines))]
    if rng.random() < 0.2 and lines:
        # many duplicates
        lines = [rng.choice(lines) for _ in range(rng.randint(1, maxlines * 2))]
    return join_lines(rng, lines, eol)


def number(rng):
    """A number of one of the shapes that sort -n/-g/-h and friends see."""
    kinds = [
        lambda: str(rng.randint(-1000, 1000)),
        lambda: str(rng.randint(0, 10**rng.randint(1, 25))),
        lambda: "%.*f" % (rng.randint(0, 4), rng.uniform(-1000, 1000)),
        lambda: rng.choice(["0", "-0", "+0", "00", "0.0", ".5", "-.5", "5.", "1e3", "1E-2", "-1e+2", "0x1A", "0x1p3",
                            "inf", "-inf", "nan", "NaN", "-nan", "infinity", "+5", "1,000", "1.2.3", "--1",
                            "1k", "2K", "3M", "1G", "5T", "2P", "1E", "7Z", "1Y", "1R", "1Q", "1.5k", "-2M", "0k",
                            "1Ki", "999", "1000", "0.001", "1e", "e5", ".", "-", "", " 12", "\t-3", "12 ", "٣"]),
        lambda: " " * rng.randint(0, 3) + str(rng.randint(-50, 50)) + rng.choice(["", "", "k", "M", "G", "x", ".5", "e2"]),
    ]
    return rng.choice(kinds)()


def version(rng):
    parts = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.6:
            parts.append(str(rng.randint(0, 20)))
        elif r < 0.8:
            parts.append(rng.choice(["a", "b", "rc", "alpha", "beta", "~", "~rc1", "-", "+", "0"]))
        else:
            parts.append("%02d" % rng.randint(0, 30))
    sep = rng.choice([".", ".", "-", "_", ""])
    pre = rng.choice(["", "", "v", "file-", "lib", ".", "a"])
    suf = rng.choice(["", "", "", ".tar.gz", "~", ".txt", "a", ".orig"])
    return pre + sep.join(parts) + suf


# The inputs every option meets (gen_manual.py): empty, one newline, no final newline,
# bytes above 127, invalid UTF-8, a NUL, CRLF line ends, a very long line, blank runs,
# repeated lines; a few words and digits so that patterns and fields have something to find.
EDGE_INPUTS = [
    b"",
    b"\n",
    b"a b\nabc\n10 x\n",
    b"abc\nb:a\n1,2",
    b"caf\xc3\xa9 a\n\xe9t\xe9 b\n\xff\x80a\n",
    b"a\xc3(b\n\xe2\x82a\n\xed\xa0\x80 c\n",
    b"a\x00b\nb\n\x00\n",
    b"a b\r\nb\r\n\r\nc a\r\n",
    b"a" * 70000 + b" b\n" + b"x:" * 5000 + b"\n",
    b"\n\n\na\n\n\nb\n\n",
    b"b\nb\na\na\na\nB\nb\n",
    b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\na 1\nb 2\n",
    b"\tx\ty\n  lead\ntrail  \n a:b:c\n1:2:3\n",
]
