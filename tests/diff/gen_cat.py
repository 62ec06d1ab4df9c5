"""cat: every option and cluster of them over inputs with blank runs, tabs, control bytes,
bytes above 127, CRLF, no final newline; `-` twice; operands that do not exist."""
import shlex


OPTS = ["-A", "-b", "-e", "-E", "-n", "-s", "-t", "-T", "-u", "-v", "-bn", "-sn", "-vET",
        "-nA", "--number", "--number-nonblank", "--show-all", "--show-ends",
        "--show-nonprinting", "--show-tabs", "--squeeze-blank", "--squeeze", "--num",
        "--show", "-x", "--bogus"]
LINES = [b"", b"a", b"hello world", b"\t", b"a\tb", b" ", b"\x00\x01\x1b\x7f", b"\x80\xff\xe9",
         b"caf\xc3\xa9", b"x\r", b"  lead", b"trail  ", b"\x9b\xa0"]


def rand_input(rng):
    n = rng.choice([0, 1, 2, 3, 5, 8])
    lines = []
    for _ in range(n):
        if rng.random() < 0.3:
            lines += [b""] * rng.randint(1, 4)
        else:
            lines.append(rng.choice(LINES))
    data = b"\n".join(lines)
    if lines and rng.random() < 0.7:
        data += b"\n"
    return data


def case(argv, stdin):
    return {"tool": "cat", "script": " ".join(shlex.quote(a) for a in argv), "argv": argv,
            "stdin": stdin}


def cases(rng):
    for _ in range(1500):
        argv = ["cat"] + [rng.choice(OPTS) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
        r = rng.random()
        if r < 0.15:
            argv += ["-"]
        elif r < 0.22:
            argv += ["-", "-"]
        elif r < 0.3:
            argv += [rng.choice(["nonexist", "no/such", "-", "missing file"]), "-"]
        yield case(argv, rand_input(rng))
