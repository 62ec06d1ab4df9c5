"""Differential cases for the POSIX parts of the shell language that scripts use less:
file descriptors 3-9 (`exec N>&M`, per-command duplication, closing), getopts with
OPTIND/OPTARG, set -o/+o, trap EXIT, umask, tilde expansion, the `${#...}` forms,
declaration utilities' assignments, `set -e` with compound commands. Only what bash
(the reference, outside its POSIX mode) and POSIX agree on; docs/shell.md lists where
they differ (`${#-}` differs only by the reference's `set -f`; bash alone names signals
`SIGINT` in `trap`'s list). stderr is not compared: bash names itself and its line in diagnostics.
"""

STDERR = False

FDS = [3, 4, 5, 9]
SINKS = ["&1", "&2", "/dev/null"]
OPTSTRINGS = ["ab:c", ":ab:c", "x", ":x:", "hv:o:"]
ARGS = ["-a", "-b", "val", "-c", "-ac", "-bval", "--", "-x", "-xfoo", "-h", "-v", "1", "-o", "out", "rest", "-z"]
VALUES = ["", "a", "a b", " a  b ", "x:y", "-n", "~", "~/d", "a~b"]


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def fds(rng):
    """A few exec/duplication steps and writes through them."""
    steps = []
    opened = []
    for _ in range(rng.randrange(1, 5)):
        k = rng.randrange(6)
        fd = pick(rng, FDS)
        if k == 0 or not opened:
            steps.append(f"exec {fd}>{pick(rng, SINKS)}")
            opened.append(fd)
        elif k == 1:
            steps.append(f"echo to{fd} >&{pick(rng, opened)}; echo s=$?")
        elif k == 2:
            steps.append(f"{{ echo a; echo b >&2; }} {fd}>&1 1>&2 2>&{fd} 2>/dev/null")
        elif k == 3:
            steps.append(f"exec {pick(rng, opened)}>&-; echo closed >&{fd} 2>/dev/null; echo s=$?")
        elif k == 4:
            steps.append(f"(exec {fd}>&1; echo sub >&{fd}); echo s=$?")
        else:
            steps.append(f"x=$(echo inner >&{pick(rng, opened)}; echo out); echo \"[$x]\"")
    return "; ".join(steps)


def getopts(rng):
    spec = pick(rng, OPTSTRINGS)
    args = " ".join(pick(rng, ARGS) for _ in range(rng.randrange(0, 6)))
    return (f"set -- {args}; while getopts {q(spec)} o; do echo \"$o:${{OPTARG-unset}}:$OPTIND\"; done; "
            f"echo \"end:$OPTIND\"; shift $((OPTIND - 1)); echo \"rest:$*\"")


def params(rng):
    n = rng.randrange(0, 14)
    forms = ["${#}", "${##}", "${###}", "${####}", "${##1}", "${###1}", "${#%1}", "${#?}", "$#"]
    return f"set -- $(seq {n}); echo " + " ".join(pick(rng, forms) for _ in range(3))


def tilde(rng):
    v = pick(rng, ["/h", "/h/", "a b", ""])
    # Not `~:` or `x=~` as arguments: bash expands those outside its POSIX mode.
    words = " ".join(pick(rng, ["~", "~/x", "\"~\"", "'~'", "\\~", "a~"]) for _ in range(3))
    assign = pick(rng, ["p=~/a:~/b", "p=a:~", "p=~x", "p=\"~\"", "p=~"])
    return f"HOME={q(v)}; printf '<%s>' {words}; {assign}; printf '[%s]' \"$p\"; echo"


def declaration(rng):
    v = pick(rng, VALUES)
    cmd = pick(rng, ["export", "readonly"])
    return f"v={q(v)}; {cmd} e=$v; printf '<%s>' \"$e\"; f() {{ local l=$v; printf '[%s]' \"$l\"; }}; f; echo"


MISC = [
    "trap 'echo bye $?' EXIT; echo body",
    "trap 'echo bye $?' EXIT; false",
    "trap 'echo bye' EXIT; exit 3",
    "trap 'echo bye' 0; trap - EXIT; echo body",
    "(trap 'echo sub' EXIT; echo in); echo out",
    "trap 'echo a' EXIT; trap 'echo b' EXIT; echo body",
    "trap 'echo x' EXIT; trap",
    "umask; umask 077; umask; umask -S",
    "umask 022; umask -S; umask u=rwx,g=rx,o=; umask",
    "umask 0; umask; umask a-w; umask",
    "set -o errexit; set -o | grep -E '^(errexit|nounset|xtrace) '",
    "set -u; set +o | grep -E 'errexit|nounset'",
    "set -e; { false && true; }; echo survived",
    "set -e; if false; then :; fi; while false; do :; done; echo survived",
    "set -e; (false); echo not",
    "set -e; false || { false && true; }; echo survived",
    "echo 1; set -n; echo 2",
    "echo $LINENO; echo $LINENO",
    "f() { echo $LINENO; }\nf\necho $LINENO",
    "x=$(printf 'a\\0b'); echo ${#x} 2>/dev/null",
    "set -- a b c; set +; echo $#",
    "set - x y; echo $# $1",
    "echo $\\\n?",
    "exec 3>&1 4>&2; echo a >&3; echo b >&4 2>/dev/null",
    "f() { echo in-f >&5; }; exec 5>&1; f; exec 5>&-",
    ": 7>&7; echo s=$?",
    "read v <<EOF\nfrom-here\nEOF\necho $v; exec 3<<EOF\nfd3\nEOF\nread w <&3; echo $w",
    "exec 6</dev/null; read x <&6; echo s=$?",
    "echo one 1<&2 2>/dev/null; echo s=$?",
    "exec 2>/dev/null; echo err >&2; echo out",
    "exec 3>&1; exec 1>/dev/null; echo hidden; echo shown >&3; exec 1>&3; echo back",
]


def cases(rng):
    out = []

    def add(script):
        out.append({"tool": "sh", "script": script, "ref": "set -f; " + script})

    for _ in range(200):
        add(fds(rng))
    for _ in range(200):
        add(getopts(rng))
    for _ in range(60):
        add(params(rng))
    for _ in range(60):
        add(tilde(rng))
    for _ in range(40):
        add(declaration(rng))
    for s in MISC:
        add(s)
    return out
