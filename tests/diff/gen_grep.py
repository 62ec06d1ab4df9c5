"""grep, egrep, fgrep: random GNU regexes (BRE, ERE, fixed strings) and option sets over
random inputs (empty lines, bytes above 127, invalid UTF-8, NUL bytes, no final newline),
bad patterns and bad options too, compared with GNU grep 3.8."""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rxgen  # noqa: E402

N_RANDOM = 9000
N_PERL = 1200

FIXED = [
    "foo", "-v foo", "-c a", "-n a", "-o 'a\\+'", "-E 'a|b'", "-F a.b", "-w a", "-x abc", "-i A",
    "-l a", "-L a", "-q a", "-m1 a", "-A1 a", "-B1 a", "-C1 a", "-2 a", "-b a", "-ob b", "-H a",
    "-h a - -", "-e a -e b", "''", "-w ''", "-x ''", "-c ''", "-o ''", "-E '(a)\\1'", "'\\(a\\)\\1'",
    "-Z -l a", "-z a", "-a a", "--label=foo -H a", "-s a nosuch", "a nosuch", "-q a nosuch",
    "-E", "", "-X", "--bogus", "-A x a", "-m x a", "-E -F a", "-P 'a\\d+'", "-P '\\bfoo\\b'",
    "-E 'a{1'", "'a\\{1'", "'[[:alpha:]'", "'[:space:]'", "'\\(a'", "-E 'a)'", "'a\\)'",
    "-E '*a'", "-E '+a'", "'*a'", "'\\{1\\}a'", "-E 'a**'", "-e '[z-a]'", "-i '[A-b]'",
    "-w 'foo\\w*'", "-ow 'ab*'", "-ow 'a*'", "-o -e b -e bc", "-F -e b -e bc -o", "-Fx a.c",
    "-Fw a.c", "-Fi A.C", "-c -v a", "-n -C1 -e 3 -e 7", "-vn -A1 '[2-8]'", "-m2 -A1 '[2-8]'",
    "--colour=never a", "-y A", "-i --no-ignore-case A", "--binary-files=without-match a",
    "--binary-files=text a", "-U a", "-I a", "-T -n a", "-c -m2 a", "-ob 'a\\|b'",
    # -P: back-references, look-around, atomic groups, possessive quantifiers, \K, and
    # PCRE2's messages for bad patterns.
    "-oP '(a)\\1'", "-P '(\\w)\\1'", "-oP 'a(?=b)'", "-oP '(?<=a)b'", "-oP '(?<!a)b'",
    "-oP 'a(?!b)'", "-oP '(?>a+)b'", "-oP 'a++b'", "-oP 'a\\Kb'", "-oP '(?<n>.)\\k<n>'",
    "-P '('", "-P 'a)'", "-P '\\'", "-P '[a'", "-P 'a{2,1}'", "-P '*a'", "-P '(?<=a+)b'",
    "-P '\\2(a)'", "-P '(?z)'", "-P '[z-a]'", "-P '(a)\\2'", "-oP '\\xe9'",
    "-oP '[\\x80-\\xff]+'", "-oP '\\h\\H'", "-oP '\\Qa.b\\E'", "-iP '(A)\\1'",
    "-xP '(.+) \\1'", "-wP '(b)\\1'",
]


def q(s):
    return shlex.quote(s)


def case(argv, stdin):
    return {"tool": "grep", "script": " ".join(q(a) for a in argv), "stdin": stdin, "argv": argv}


def data(rng):
    d = rxgen.lines(rng, 8)
    r = rng.random()
    if r < 0.06:
        # A NUL: a binary file for grep.
        i = rng.randint(0, len(d))
        d = d[:i] + b"\0" + d[i:]
    elif r < 0.1:
        d = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
    return d


PERL_ATOMS = ["a", "b", "x", "A", ".", "\\w", "\\d", "\\s", "[ab]", "[^a ]", "\\xe9", "\\b", " "]


def perl_piece(rng, groups, depth):
    """A random piece of a Perl pattern that needs a backtracker now and then."""
    r = rng.random()
    if r < 0.12 and groups[0]:
        return "\\" + str(rng.randint(1, groups[0]))
    if r < 0.22 and depth < 2:
        groups[0] += 1
        return "(" + perl_seq(rng, groups, depth + 1) + ")"
    if r < 0.34 and depth < 2:
        kind = rng.choice(["?=", "?!", "?<=", "?<!", "?>", "?:"])
        if kind in ("?<=", "?<!"):
            # PCRE2 wants a fixed length behind.
            body = "".join(rng.choice(PERL_ATOMS[:6]) for _ in range(rng.randint(1, 2)))
        else:
            body = perl_seq(rng, groups, depth + 1)
        return "(" + kind + body + ")"
    atom = rng.choice(PERL_ATOMS)
    if rng.random() < 0.35 and atom != "\\b":
        atom += rng.choice(["*", "+", "?", "{1,2}", "*?", "+?", "++", "*+", "?+"])
    return atom


def perl_seq(rng, groups, depth=0):
    parts = [perl_piece(rng, groups, depth) for _ in range(rng.randint(1, 3))]
    seq = "".join(parts)
    if depth == 0 and rng.random() < 0.1:
        seq += "|" + perl_piece(rng, groups, depth)
    return seq


def perl_pattern(rng):
    groups = [0]
    p = perl_seq(rng, groups)
    r = rng.random()
    if r < 0.08:
        p = "^" + p
    elif r < 0.16:
        p = p + "$"
    elif r < 0.22:
        p = p + "\\K" + rng.choice(PERL_ATOMS[:5])
    return p


def perl_cases(rng, inputs):
    for _ in range(N_PERL):
        opts = ["-P"]
        for flag, p in [("-o", 0.35), ("-c", 0.12), ("-v", 0.15), ("-w", 0.15), ("-x", 0.1),
                        ("-i", 0.2), ("-n", 0.25), ("-b", 0.04), ("-z", 0.03)]:
            if rng.random() < p:
                opts.append(flag)
        argv = ["grep"] + opts + [perl_pattern(rng)]
        stdin = rng.choice(inputs) if rng.random() < 0.5 else data(rng)
        if "-z" in opts:
            stdin = stdin.replace(b"\n", b"\0")
        yield case(argv, stdin)


def cases(rng):
    inputs = [data(rng) for _ in range(40)]
    for s in FIXED:
        for stdin in rng.sample(inputs, 3) + [b"a\nb\nabc\na.b\nab a\nx\n"]:
            yield case(["grep"] + shlex.split(s), stdin)
    for _ in range(N_RANDOM):
        tool = rng.choice(["grep"] * 8 + ["egrep", "fgrep"])
        r = rng.random()
        mode = "G"
        opts = []
        if tool == "grep":
            if r < 0.4:
                mode = "E"
                opts.append(rng.choice(["-E", "--extended-regexp"]))
            elif r < 0.5:
                mode = "F"
                opts.append("-F")
            elif r < 0.52:
                mode = "P"
                opts.append("-P")
        else:
            mode = "E" if tool == "egrep" else "F"
        for flag, p in [("-i", 0.15), ("-v", 0.15), ("-w", 0.12), ("-x", 0.08), ("-c", 0.1),
                        ("-o", 0.2), ("-n", 0.2), ("-b", 0.06), ("-H", 0.05), ("-h", 0.03),
                        ("-l", 0.04), ("-L", 0.03), ("-q", 0.04), ("-s", 0.02), ("-z", 0.03),
                        ("-Z", 0.02), ("-a", 0.05)]:
            if rng.random() < p:
                opts.append(flag)
        if rng.random() < 0.1:
            opts += ["-m", str(rng.randint(0, 3))]
        if rng.random() < 0.12:
            opts.append(rng.choice(["-A", "-B", "-C"]) + str(rng.randint(0, 2)))
        if rng.random() < 0.03:
            opts.append("-" + str(rng.randint(1, 3)))
        pats = []
        for _ in range(1 if rng.random() < 0.8 else rng.randint(2, 3)):
            if mode == "F":
                pats.append(rng.choice(["a", "ab", "a.b", "foo", "", "x", "A", "b a", "[a]", "\\"]))
            elif mode == "P":
                pats.append(rng.choice(["a+", "\\d", "[ab]{2}", "foo|bar", "\\bx", "(a|ab)c", "a.*?b", "(?i)A"]))
            else:
                pats.append(rxgen.regex(rng, mode == "E")[0])
        if len(pats) == 1 and rng.random() < 0.7:
            argv = [tool] + opts + [pats[0]]
        else:
            argv = [tool] + opts
            for p in pats:
                argv += ["-e", p]
        if rng.random() < 0.05:
            argv.append(rng.choice(["-", "nosuch"]))
        stdin = rng.choice(inputs) if rng.random() < 0.5 else data(rng)
        if "-z" in opts:
            stdin = stdin.replace(b"\n", b"\0")
        yield case(argv, stdin)
    yield from perl_cases(rng, inputs)
