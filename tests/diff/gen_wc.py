"""wc: every column mix, stdin and several operands (GNU's column widths), odd bytes."""
from textdata import text


def cases(rng):
    for _ in range(1500):
        args = []
        for f in ["-c", "-l", "-w", "-m", "-L", "--lines", "--words", "--bytes", "--chars", "--max-line-length"]:
            if rng.random() < 0.12:
                args.append(f)
        if rng.random() < 0.3 and args:
            letters = "".join(a[1] for a in args if len(a) == 2)
            if letters:
                args = ["-" + letters] + [a for a in args if len(a) > 2]
        rng.shuffle(args)
        if rng.random() < 0.03:
            args.append(rng.choice(["-x", "--bogus", "--total=always", "--files0-from=-", "--files0-from=nofile"]))
        if rng.random() < 0.3:
            args += rng.choice([["-"], ["-", "-"], ["nofile"], ["nofile", "-"], ["-", "nofile"], ["nofile", "nofile2"],
                                ["--", "-"]])
        if rng.random() < 0.1:
            data = b"".join(b"%d\n" % k for k in range(rng.choice([100, 2000, 200000])))
        else:
            alphabet = [b"a", b"b", b"  ", b" ", b"\t", b"\n", b"\n", b"\r", b"\x0b", b"\x0c", b"\x01", b"\x80", b"\xff",
                        b"\xc3\xa9", b"xyz", b"\x00", b"1234567"]
            data = text(rng, alphabet=alphabet, maxlines=8, maxlen=30)
        if "--files0-from=-" in args:
            data = rng.choice([b"nofile\0-\0", b"", b"a\0\0b", b"x"])
        yield {"tool": "wc", "script": " ".join(["wc"] + args), "stdin": data}
