"""expand: tab stop lists (with /N and +N), -i, obsolete -N, backspaces, bad lists."""
from textdata import quote, text


def cases(rng):
    for _ in range(1200):
        args = []
        r = rng.random()
        if r < 0.4:
            args.append("-t " + str(rng.choice([1, 2, 3, 4, 8, 10])))
        elif r < 0.6:
            stops = sorted(rng.sample(range(1, 20), rng.randint(1, 4)))
            lst = ",".join(map(str, stops))
            if rng.random() < 0.4:
                lst += "," + rng.choice(["/", "+"]) + str(rng.randint(1, 6))
            args.append("-t " + quote(lst))
        elif r < 0.7:
            args.append("-%d" % rng.choice([1, 3, 4]))
        elif r < 0.75:
            args.append(rng.choice(["-t 0", "-t 5,3", "-t x", "-t '2 4'", "-t 3,3", "-t /0", "-t"]))
        if rng.random() < 0.3:
            args.append("-i")
        rng.shuffle(args)
        alphabet = [b"a", b"bc", b" ", b"\t", b"\t\t", b"\x08", b"\r", b"\xc3\xa9", b"xyz"]
        data = text(rng, alphabet=alphabet, maxlines=5, maxlen=12)
        yield {"tool": "expand", "script": " ".join(["expand"] + args), "stdin": data}
