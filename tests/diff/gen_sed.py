"""sed: random scripts (substitutions with GNU regexes, addresses, every command, options)
over random inputs, bad scripts and bad regexes too, compared with GNU sed 4.9."""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rxgen  # noqa: E402

N_RANDOM = 9000
N_GROUPS = 2500
N_DEBUG = 1200

ONE_LINERS = [
    "s/foo/bar/", "s/foo/bar/g", "s/o/0/2", "s/o/0/2g", "s/\\(a\\)\\(b\\)/\\2\\1/", "-n p", "-n $=",
    "$!N;P;D", "N;P;D", "1!G;h;$!d", "H;$!d;x;s/\\n/,/g", "-n '/a/,/b/p'", "G", "n;d", "$d", "1d",
    "-n l", "-n 'l 5'", "=", "y/abc/xyz/", "s/.*/\\U&/", "s/\\w\\+/\\u&/g", "-E s/(a|b)+/[&]/g",
    "s/^[ \\t]*//", "s/[ \\t]*$//", "-n '$p'", "2q", "2q5", "2Q", "-s -n '$p'", "-z s/a/b/",
    ":a;N;$!ba;s/\\n/ /g", "-n '/a/{p;p}'", "1~2d", "0~3d", "2,+1d", "2,~4d", "0,/a/d",
    "'$a end'", "'1i start'", "'2c changed'", "'a\\\nfoo\\\nbar'", "-n '/x/!p'", "s/a*/x/g",
    "s/x*/-/g", "s/b*/-/2g", "-E 's/(a|ab)(c|bcd)/[\\1,\\2]/'", "-n 's/a/b/w /dev/stdout'",
    "-E 's/(x|xy)(z|yz)?/[\\1][\\2]/'", "s/a/\\n/g", "'s/a/b/;T;s/b/c/'", "'s/a/b/;ta;s/$/!/;:a'",
    "F", "z", "-n 'x;p'", "'$!{h;d};x;G'", "-E 's/(.)(.)/\\2\\1/g'", "s/\\<./\\u&/g",
    "s/\\B/-/g", "s/\\b/|/g", "-n '/^$/='", "'/^$/d'", "s/[[:space:]]\\+/ /g", "s/[^[:alnum:]]//g",
    "-E s/[0-9]+/<&>/g", "s/./&&/3", "-n '2{p;q}'", "'$!d'", "-n '/a/I p'", "s/A/x/Ig",
    "N;s/a$/X/M", "N;s/^b/X/Mg", "-E 's/(a*)*/<\\1>/'", "-E 's/(a|)+b/<\\1>/'",
]

BAD = [
    "s/a/b", "s/\\(/x/", "-E s/(/x/", "s/a/\\1/", "k", "/x/", "/x", "y/ab/x/", "s/a/b/gg", "s/a/b/pp",
    "s/a/b/0", "s/a/b/z", "bfoo", "1,2q", "0p", "1,p", "1!!p", ":", "}", "{p", "p;}", "s/[/x/",
    "s/a\\{1/x/", "s/a\\{2,1\\}/x/", "-E s/a{1,2/x/", "s/[[:foo:]]/x/", "s/[z-a]/x/", "s/*\\{2\\}/x/",
    "-E s/*a/x/", "-E 's/a|*b/x/'", "s/a**/x/", "'s/a/b/w'", "y/abc/", "a", "-n", "--bogus", "-x p",
    "s/[:space:]/x/", "-E 's/a{1a}/x/'", "-E 's/(a)\\2/x/'", "'1,2{p'", "'v 9.0'",
]


# `--debug`: the program listing (every command, address and flag written back) and the
# trace (pattern and hold space after each command, registers, end of cycle).
DEBUG_SCRIPTS = [
    "p", "s/a/X/g;p", "2p;/b/!p", "p;x;G;H", "1{h;x};$!d;2,/x/I{y/ab/cd/;=}",
    "s/\\(b\\)\\(c\\)\\|\\(q\\)/[&]/g", "s/\\(x\\)*\\(b\\)/Y/;s/b*/Z/2", "s/b/B/;s//Q/",
    "n;d", "N;P;D", "$!N;P;D", "D", "$!N;=;l;F;z", "s/1/X/;ta;s/$/-/;:a;T;s/^/>/;b;p",
    "2q", "2q5", "2Q", "2,3c\\\nC", "2{s/2/Z/;x;}", "1!G;h;$!d", "a X\nn", "a X\nq", "a X\n$!N",
    "a X\nD", "a X\nN;D", "a X\nx;D", "a\\", "$a\\", "i\\\nI\na A", "$!{p;w /dev/stdout\n}",
    "s/a/b/w /dev/stderr", "s/x/\\n/", "s/a/\\U&\\E\\l\\u\\L/", "s/\\(a\\)/x\\Uy\\1z/",
    "s/a/\\u&\\l&/", "s/a/\\U\\l&x/", "s/a/\\u\\U&/", "1~0p;0~3p;2~1p;$!N",
    "1,+0p;1,~0p;2,5~3p;0,/x/p;$,3p", "y/abc/\\n\\t\\\\/", "y,a\\,b,xyz,", "b a;b  b;t a;Tb;: a;:b",
    "/x/{;p;};{{p}}", "l 0;l 1;l0;q0", "s/[\\t]/x/;s/[\\.]/x/;s.a\\.b.x.;s/a/b/1", "s/[\\n\\t\\/]/x/",
    "#n\np", "#c\np", "v 4.2\np", "1r foo\n2R bar\nw /dev/stdout\n3W /dev/stdout",
    "s/./\\x41\\d065\\o101\\cA/", "1 ! p", "s|a/b|c/d|;s/a\\/b/c\\/d/", "s/a/b/pgI3w /dev/stdout",
    "N;N;s/^b/X/Mg;s/a$/Y/mg", "$!{N};P;D", "/a/I,/b/M{/c/!d}", "\\%a%IMp", "=;h;G;x;g",
]
DEBUG_INPUTS = [b"", b"a\n", b"abcabc\nxyz\n", b"1\n2\n3\n", b"a\nb", b"a\nb\nc\nab\nba\n",
                b"a\\b\tc\rd\x01e\xfff\x7fg\x00h\n", b"x\r\ny\r\n", b"\xe9t\xe9\n\xff/\n"]


def q(s):
    return shlex.quote(s)


def repl(rng, groups, delim):
    out = []
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if r < 0.35:
            out.append(rng.choice("xyzAB-_ ") * rng.randint(1, 2))
        elif r < 0.5:
            out.append("&")
        elif r < 0.65 and groups:
            out.append("\\" + str(rng.randint(1, min(groups, 9))))
        elif r < 0.72:
            out.append(rng.choice(["\\n", "\\t", "\\&", "\\\\", "\\" + delim]))
        elif r < 0.85:
            out.append(rng.choice(["\\U", "\\L", "\\u", "\\l", "\\E"]))
        else:
            out.append("[&]")
    return "".join(out)


def regex_for(rng, ere, delim):
    r, groups = rxgen.regex(rng, ere)
    if delim != "/":
        r = r.replace(delim, "\\" + delim)
    else:
        r = r.replace("/", "\\/")
    return r, groups


def subst(rng, ere):
    delim = rng.choice("/////|,#")
    r, groups = regex_for(rng, ere, delim)
    flags = ""
    if rng.random() < 0.5:
        flags += "g"
    if rng.random() < 0.15:
        flags += str(rng.randint(1, 3))
    if rng.random() < 0.15:
        flags += "p"
    if rng.random() < 0.08:
        flags += rng.choice("IM")
    return f"s{delim}{r}{delim}{repl(rng, groups, delim)}{delim}{flags}"


def address(rng, ere):
    r = rng.random()
    if r < 0.25:
        return str(rng.randint(1, 5))
    if r < 0.35:
        return "$"
    if r < 0.6:
        a, _ = regex_for(rng, ere, "/")
        return "/" + a + "/" + rng.choice(["", "", "", "I"])
    if r < 0.7:
        return f"{rng.randint(0, 3)}~{rng.randint(1, 3)}"
    a1 = address(rng, ere) if rng.random() < 0.8 else "0"
    if a1 == "0":
        a, _ = regex_for(rng, ere, "/")
        return "0,/" + a + "/"
    a2 = rng.choice([str(rng.randint(1, 6)), "$", f"+{rng.randint(0, 3)}", f"~{rng.randint(0, 4)}",
                     "/" + regex_for(rng, ere, "/")[0] + "/"])
    return a1 + "," + a2


def command(rng, ere, depth=0):
    r = rng.random()
    addr = ""
    if rng.random() < 0.45:
        addr = address(rng, ere)
        if rng.random() < 0.15:
            addr += "!"
    if r < 0.5:
        return addr + subst(rng, ere)
    if r < 0.6:
        # No `D`: with a substitution that adds newlines it can loop forever.
        return addr + rng.choice("pdP=lhHgGxnNz")
    if r < 0.65 and depth < 2:
        body = ";".join(command(rng, ere, depth + 1) for _ in range(rng.randint(1, 2)))
        return addr + "{" + body + "}"
    if r < 0.7:
        return addr + "y/" + "".join(rng.sample("abcxy", 3)) + "/" + "".join(rng.sample("XYZ12", 3)) + "/"
    if r < 0.8:
        c = rng.choice("aic")
        return addr + c + " " + rng.choice(["text", "two words", "x\\ty", "a\\nb"]) + "\n"
    if r < 0.85:
        return (addr if "," not in addr else "") + rng.choice(["q", "Q", "q3", "Q2"])
    if r < 0.9:
        return addr + "l " + str(rng.randint(0, 8))
    return addr + rng.choice(["ta", "Ta", "ba", "b"])


def script(rng, ere):
    cmds = [command(rng, ere) for _ in range(rng.randint(1, 3))]
    if any(c.endswith(("ta", "Ta", "ba")) for c in cmds):
        # Labels after the jumps only: a loop could run forever under GNU sed.
        cmds.append(":a")
    out = ""
    for c in cmds:
        if out and not out.endswith("\n"):
            out += rng.choice([";", "\n", " ; "])
        out += c
    return out.rstrip("\n") if rng.random() < 0.7 else out


def group_regex(rng, depth, groups):
    """An ERE over `ab` made of groups, alternation and repetition: it exercises GNU's
    choice of subexpression positions."""

    def atom():
        r = rng.random()
        if r < 0.4:
            return rng.choice("ab")
        if r < 0.5:
            return "."
        if r < 0.8 and depth < 3:
            groups[0] += 1
            return "(" + group_regex(rng, depth + 1, groups) + ")"
        return rng.choice(["a", "b", ""])

    def quant():
        r = rng.random()
        if r < 0.3:
            return "*"
        if r < 0.45:
            return "+"
        if r < 0.6:
            return "?"
        lo = rng.randint(0, 2)
        hi = lo + rng.randint(0, 2)
        return rng.choice(["{%d}" % lo, "{%d,}" % lo, "{%d,%d}" % (lo, hi)])

    def branch():
        s = ""
        for _ in range(rng.randint(1, 3)):
            s += atom()
            if rng.random() < 0.45:
                s += quant()
        return s

    s = branch()
    while rng.random() < 0.25:
        s += "|" + branch()
    return s


def sed_argv(rng, opts, ere):
    """sed with OPTS and a random script: one argument, or some -e pieces."""
    if rng.random() < 0.15:
        pieces = []
        for _ in range(rng.randint(1, 3)):
            pieces += ["-e", command(rng, ere)]
        if any(p.endswith(("ta", "Ta", "ba")) for p in pieces):
            pieces += ["-e", ":a"]
        return ["sed"] + opts + pieces
    return ["sed"] + opts + [script(rng, ere)]


def case(argv, stdin):
    return {"tool": "sed", "script": " ".join(q(a) if not a.startswith("'") else a for a in argv),
            "stdin": stdin, "argv": argv}


def cases(rng):
    inputs = [rxgen.lines(rng) for _ in range(40)]
    for s in ONE_LINERS + BAD:
        for stdin in rng.sample(inputs, 3):
            argv = ["sed"] + shlex.split(s)
            yield case(argv, stdin)
    for _ in range(N_GROUPS):
        groups = [0]
        r = group_regex(rng, 0, groups)
        if not r:
            continue
        refs = "".join("[\\%d]" % i for i in range(1, min(groups[0], 9) + 1))
        stdin = ("".join(rng.choice("ab") for _ in range(rng.randint(0, 6))) + "\n").encode()
        yield case(["sed", "-E", "s/%s/<&>%s/" % (r, refs)], stdin)
    for _ in range(N_RANDOM):
        ere = rng.random() < 0.5
        opts = []
        if ere:
            opts.append(rng.choice(["-E", "-r", "--regexp-extended"]))
        if rng.random() < 0.25:
            opts.append("-n")
        if rng.random() < 0.05:
            opts.append("-s")
        if rng.random() < 0.03:
            opts.append("-z")
        if rng.random() < 0.01:
            opts.append("--posix")
        argv = sed_argv(rng, opts, ere)
        stdin = rng.choice(inputs) if rng.random() < 0.5 else rxgen.lines(rng)
        if "-z" in opts:
            stdin = stdin.replace(b"\n", b"\0") if rng.random() < 0.7 else stdin
        yield case(argv, stdin)
    for s in DEBUG_SCRIPTS:
        for stdin in rng.sample(DEBUG_INPUTS, 3):
            yield case(["sed", "--debug", s], stdin)
    for _ in range(N_DEBUG):
        ere = rng.random() < 0.5
        opts = ["--debug"]
        if ere:
            opts.append(rng.choice(["-E", "-r"]))
        for opt, p in (("-n", 0.25), ("-s", 0.1), ("-z", 0.08), ("-u", 0.05), ("--posix", 0.05),
                       ("-l 7", 0.05)):
            if rng.random() < p:
                opts += opt.split()
        argv = sed_argv(rng, opts, ere)
        r = rng.random()
        stdin = rng.choice(inputs) if r < 0.4 else rng.choice(DEBUG_INPUTS) if r < 0.6 else rxgen.lines(rng)
        if "-s" in opts and rng.random() < 0.5:
            argv += ["-", "-"]
        if "-z" in opts:
            stdin = stdin.replace(b"\n", b"\0") if rng.random() < 0.7 else stdin
        yield case(argv, stdin)
