"""uniq: counts, repeated/unique selections, field/char skipping, -w, -i, groups, bad usage."""
from textdata import text


def cases(rng):
    for _ in range(1500):
        args = []
        for f, p in [("-c", 0.25), ("-d", 0.2), ("-D", 0.1), ("-u", 0.2), ("-i", 0.2), ("-z", 0.05)]:
            if rng.random() < p:
                args.append(f)
        if rng.random() < 0.25:
            args.append("-f %d" % rng.randint(0, 3))
        if rng.random() < 0.2:
            args.append("-s %d" % rng.randint(0, 3))
        if rng.random() < 0.15:
            args.append("-w %d" % rng.randint(0, 4))
        if rng.random() < 0.08:
            args.append(rng.choice(["--all-repeated", "--all-repeated=none", "--all-repeated=prepend",
                                    "--all-repeated=separate", "--all-repeated=sep", "--all-repeated=x"]))
        if rng.random() < 0.1:
            args = [rng.choice(["--group", "--group=prepend", "--group=append", "--group=both",
                                "--group=separate", "--group=x"])] + ([] if rng.random() < 0.8 else args)
        if rng.random() < 0.04:
            args.append(rng.choice(["-f x", "-s -1", "-w x", "-x", "-2", "+1", "-1 +2", "--skip-fields=1",
                                    "--check-chars=2", "--count", "--repeated", "--unique", "--ignore-case"]))
        rng.shuffle(args)
        ops = []
        if rng.random() < 0.08:
            ops = rng.choice([["-"], ["nofile"], ["-", "-"], ["-", "-", "x"]])
        alphabet = [b"a", b"A", b"b", b"B", b" ", b"  ", b"\t", b"x", b"1", b"\xc3\xa9", b"\xff"]
        data = text(rng, alphabet=alphabet, maxlines=12, maxlen=6,
                    eol=b"\0" if "-z" in args and rng.random() < 0.7 else b"\n")
        yield {"tool": "uniq", "script": " ".join(["uniq"] + args + ops), "stdin": data}
