"""basename and dirname: names of every shape of slashes, suffixes, -a -s -z, bad usage."""
from textdata import quote


def name(rng):
    parts = [rng.choice(["", "a", "b.c", ".", "..", "x.tar.gz", ".hidden", "d-1", "é"]) for _ in range(rng.randint(0, 4))]
    s = ""
    for p in parts:
        s += "/" * rng.choice([0, 1, 1, 1, 2, 3]) + p
    if rng.random() < 0.3:
        s += "/" * rng.randint(1, 3)
    return s


def cases(rng):
    for i in range(1200):
        tool = "basename" if i % 2 else "dirname"
        args = []
        if tool == "basename":
            r = rng.random()
            if r < 0.2:
                args.append("-a")
            elif r < 0.35:
                args.append("-s " + quote(rng.choice([".c", ".gz", "a", "/", "", ".tar.gz", "b.c"])))
            n = rng.choice([1, 1, 2, 2, 3]) if args else rng.choice([0, 1, 1, 2, 2, 3])
        else:
            n = rng.choice([0, 1, 1, 1, 2, 3])
        if rng.random() < 0.1:
            args.append(rng.choice(["-z", "--zero"]))
        if rng.random() < 0.03:
            args.append(rng.choice(["-x", "--bogus"]))
        names = [quote(name(rng)) for _ in range(n)]
        if tool == "basename" and n == 2 and not args and rng.random() < 0.5:
            names[1] = quote(rng.choice([".c", "c", "b.c", "a", ".gz", ""]))
        yield {"tool": tool, "script": " ".join([tool] + args + ["--"] * (rng.random() < 0.2) + names)}
