"""fold: widths, -b, -s, tabs, backspaces and carriage returns, bad widths."""
from textdata import text


def cases(rng):
    for _ in range(1200):
        args = []
        r = rng.random()
        if r < 0.6:
            args.append(rng.choice(["-w ", "-w", "--width="]) + str(rng.choice([1, 2, 3, 5, 8, 10, 20, 80])))
        elif r < 0.7:
            args.append("-%d" % rng.choice([1, 3, 7, 12]))
        elif r < 0.75:
            args.append(rng.choice(["-w 0", "-w x", "-w 99999999999999999999", "-w ' 4'", "-w +4", "-w"]))
        for f, p in [("-b", 0.25), ("-s", 0.35)]:
            if rng.random() < p:
                args.append(f)
        rng.shuffle(args)
        if rng.random() < 0.05:
            args.append(rng.choice(["-", "nofile", "- -"]))
        alphabet = [b"a", b"bc", b"defgh", b" ", b"  ", b"\t", b"\x08", b"\r", b"\xc3\xa9", b"\xff", b"xyz"]
        data = text(rng, alphabet=alphabet, maxlines=5, maxlen=25)
        yield {"tool": "fold", "script": " ".join(["fold"] + args), "stdin": data}
