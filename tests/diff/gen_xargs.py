"""xargs: random inputs (quotes, backslashes, blank runs, empty lines, trailing blanks,
NULs) under -0 -d -n -L -l -I -i -r -s -x -E -e -t -P, running builtins (echo, printf,
true, false, test) and a missing command."""
import shlex


WORDS = ["a", "b", "c", "hello", "x y", "'q w'", '"d e"', "f\\ g", "\\'", '\\"', "''", '""',
         "it\\'s", "-n", "-e", "%s", "\\\\", "1", "22", "333", "\u00e9", "{}", "x{}y"]


def rand_input(rng):
    parts = []
    for _ in range(rng.randint(0, 12)):
        parts.append(rng.choice(WORDS))
        parts.append(rng.choice([" ", " ", "  ", "\t", "\n", "\n", " \n", "\n\n"]))
    if rng.random() < 0.05:
        parts.append(rng.choice(["'unterminated", '"open\nx', "trail\\"]))
    return "".join(parts).encode()


def rand_delimited(rng, sep):
    items = [rng.choice(["a", "b c", "", "d\ne", "'q'", "x"]) for _ in range(rng.randint(0, 6))]
    data = sep.join(items)
    if items and rng.random() < 0.6:
        data += sep
    return data.encode()


COMMANDS = [[], [], ["echo"], ["echo", "X"], ["printf", "[%s]\\n"], ["printf", "%s,"],
            ["true"], ["false"], ["test", "a", "="], ["nonexist"], ["echo", "-n"],
            ["printf", "%d\\n"]]


def case(argv, stdin):
    return {"tool": "xargs", "script": " ".join(shlex.quote(a) for a in argv), "argv": argv,
            "stdin": stdin}


def cases(rng):
    for _ in range(1800):
        argv = ["xargs"]
        r = rng.random()
        stdin = None
        if r < 0.12:
            argv.append("-0")
            stdin = rand_delimited(rng, "\0")
        elif r < 0.2:
            d = rng.choice([",", ":", "\\n", "\\t", "\\x2c", "\\054", "ab", ""])
            argv += ["-d", d]
            sep = {"\\n": "\n", "\\t": "\t", "\\x2c": ",", "\\054": ","}.get(d, d[:1] or ",")
            stdin = rand_delimited(rng, sep)
        for _ in range(rng.choice([0, 1, 1, 2])):
            o = rng.random()
            if o < 0.25:
                argv += ["-n", rng.choice(["1", "2", "3", "0", "x", "10"])]
            elif o < 0.4:
                argv += [rng.choice(["-L", "-l"]) + rng.choice(["1", "2", "3"])]
            elif o < 0.5:
                argv += rng.choice([["-I", "{}"], ["-I{}"], ["-i"], ["-IXX"]])
            elif o < 0.6:
                argv.append("-r")
            elif o < 0.7:
                argv += ["-s", rng.choice(["5", "8", "10", "12", "20", "100", "0"])]
            elif o < 0.75:
                argv.append("-x")
            elif o < 0.82:
                argv += rng.choice([["-E", "b"], ["-E", "hello"], ["-e"], ["-ec"]])
            elif o < 0.9:
                argv.append("-t")
            elif o < 0.95:
                argv += ["-P", "1"]
            else:
                argv.append(rng.choice(["-z", "--bogus", "--max-args=2", "--null",
                                        "--no-run-if-empty", "--verbose"]))
        cmd = rng.choice(COMMANDS)
        if any(a.startswith("-I") or a == "-i" for a in argv) and rng.random() < 0.8:
            rep = "XX" if "-IXX" in argv else "{}"
            cmd = rng.choice([["echo", "[" + rep + "]"], ["printf", "%s|%s\\n", rep, "x" + rep]])
        argv += cmd
        if stdin is None:
            stdin = rand_input(rng)
        yield case(argv, stdin)
