"""test and [: random word sequences (operators in odd places, parentheses, !, -a/-o, -l)
and random well-formed expressions, with integers of every shape; file tests name files
that do not exist (there is no file system)."""
import shlex


STRINGS = ["", "a", "b", "abc", "x y", "0", "1", "-1", "+1", " 2", "2 ", "\t3\t", "10",
           "007", "-0", "99999999999999999999", "-99999999999999999999", "1.0", "0x1",
           "1e3", "-", "--", "-x", "=", "!", "(", ")", "-a", "-o", "-n", "-z", "-l", "]",
           "\u00e9", "A", "a\nb"]
INTS = ["0", "1", "2", "-1", "+5", " 3", "3 ", "\t4", "10", "007", "-0", "+0",
        "99999999999999999999", "-99999999999999999999", "18446744073709551616", "x", "",
        "1.5", "0x10", "1 1", "+-1", "- 1", "\n1"]
UNARY = ["-n", "-z", "-e", "-f", "-d", "-r", "-w", "-x", "-s", "-L", "-h", "-b", "-c",
         "-p", "-S", "-g", "-u", "-k", "-G", "-O", "-N", "-t"]
STRBIN = ["=", "==", "!="]
INTBIN = ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]
FILEBIN = ["-ef", "-nt", "-ot"]
WORDS = STRINGS + UNARY + STRBIN + INTBIN + ["!", "(", ")", "-a", "-o", "-l", "<", ">",
                                             "-v", "-R", "-E", "-(", "-ef"]
NOFILES = ["nofile", "/nonexistent/x", "no such", "q"]


def primary(rng, depth):
    r = rng.random()
    if r < 0.2:
        return [rng.choice(STRINGS)]
    if r < 0.4:
        op = rng.choice(UNARY)
        if op in ("-n", "-z"):
            return [op, rng.choice(STRINGS)]
        if op == "-t":
            return [op, rng.choice(["0", "1", "2", "x", "99", " 1"])]
        return [op, rng.choice(NOFILES + ["a", ""])]
    if r < 0.6:
        return [rng.choice(STRINGS), rng.choice(STRBIN), rng.choice(STRINGS)]
    if r < 0.8:
        left = ["-l", rng.choice(STRINGS)] if rng.random() < 0.1 else [rng.choice(INTS)]
        right = ["-l", rng.choice(STRINGS)] if rng.random() < 0.1 else [rng.choice(INTS)]
        return left + [rng.choice(INTBIN)] + right
    if r < 0.85:
        return [rng.choice(NOFILES), rng.choice(FILEBIN), rng.choice(NOFILES)]
    if depth < 3:
        return ["("] + expression(rng, depth + 1) + [")"]
    return [rng.choice(STRINGS)]


def expression(rng, depth=0):
    words = []
    for i in range(rng.choice([1, 1, 1, 2, 2, 3])):
        if i:
            words.append(rng.choice(["-a", "-o"]))
        if rng.random() < 0.15:
            words.append("!")
        words += primary(rng, depth)
    return words


def case(argv):
    return {"tool": "test", "script": " ".join(shlex.quote(a) for a in argv), "argv": argv}


def cases(rng):
    for _ in range(1800):
        n = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 6, 7])
        words = [rng.choice(WORDS) for _ in range(n)]
        if rng.random() < 0.5:
            yield case(["test"] + words)
        else:
            yield case(["["] + words + (["]"] if rng.random() < 0.9 else []))
    for _ in range(1500):
        words = expression(rng)
        if rng.random() < 0.05 and words:
            words.pop(rng.randrange(len(words)))
        if rng.random() < 0.5:
            yield case(["test"] + words)
        else:
            yield case(["["] + words + (["]"] if rng.random() < 0.95 else []))
