"""Differential cases for the shell language: quoting, parameter expansion, IFS field
splitting, arithmetic, case patterns, loops, functions, set -e, exit statuses,
subshells, command substitution, here-documents and read.

There are no files and so no globbing in mkfifo's shell: the reference runs with
`set -f` so that a pattern stays literal there too.
"""


VALUES = ["", "a", "abc", "a b", " a  b ", "a:b::c", "x*y", "a\tb", "-n", "-e", "1", "42", "0",
          "hello world", "a/b/c.txt", "..", "a.b.c", "'q'", '"d"', "\\", "$x", "a\\nb", "é", ":", "::a"]
WORDS = ["a", "b", "foo", "bar", "x1", "_y", "Z"]
IFSES = [None, "", " ", ":", " :", ":,", "\t", "ab", " \t\n"]


def q(s):
    """Single-quotes a value for the shell."""
    return "'" + s.replace("'", "'\\''") + "'"


def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def word_piece(rng):
    k = rng.randrange(9)
    v = pick(rng, VALUES)
    if k == 0:
        return q(v)
    if k == 1:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`") + '"'
    if k == 2:
        return pick(rng, ["$x", "${x}", '"$x"', "$y", '"$y"', "$u", '"$u"', "${#x}"])
    if k == 3:
        return pick(rng, ["\\ ", "\\'", '\\"', "\\\\", "\\$x", "\\a"])
    if k == 4:
        return "$(printf %s " + q(v) + ")"
    if k == 5:
        return '"$(echo ' + q(v) + ')"'
    if k == 6:
        return "`echo " + pick(rng, WORDS) + "`"
    if k == 7:
        return "$((" + str(rng.randrange(-5, 50)) + "+" + str(rng.randrange(5)) + "))"
    return pick(rng, WORDS)


def show_args():
    return "printf '<%s>' "


def setup(rng):
    parts = []
    for name in ["x", "y"]:
        if rng.random() < 0.85:
            parts.append(f"{name}={q(pick(rng, VALUES))}")
    if rng.random() < 0.3:
        ifs = pick(rng, IFSES)
        parts.append("unset IFS" if ifs is None else f"IFS={q(ifs)}")
    return "; ".join(parts) + ("; " if parts else "")


def quoting(rng):
    words = " ".join(word_piece(rng) + (word_piece(rng) if rng.random() < 0.4 else "") for _ in range(rng.randrange(1, 5)))
    return setup(rng) + show_args() + words + "; echo"


PARAM_OPS = [":-", "-", ":=", "=", ":+", "+", "#", "##", "%", "%%", "/", "//", "/#", "/%"]
PATS = ["a", "*", "?", "a*", "*b", "*.*", "[ab]", "[!a]*", "*/", "/*", "x", "\\*", "'*'", '"a"', "", "b*c", "[[:space:]]", "$y"]


def param(rng):
    op = pick(rng, PARAM_OPS)
    if op in ("#", "##", "%", "%%"):
        w = pick(rng, PATS)
    elif op.startswith("/"):
        w = pick(rng, PATS) + "/" + pick(rng, ["", "X", "<&>", "$y"])
    else:
        w = pick(rng, ["def", "a b", "", '"q w"', "$y", "'s q'", "${y:-in}", "$(echo c)"])
    var = pick(rng, ["x", "x", "x", "u", "y"])
    e = "${" + var + op + w + "}"
    form = rng.randrange(3)
    if form == 0:
        body = show_args() + e + "; echo"
    elif form == 1:
        body = show_args() + '"' + e + '"; echo'
    else:
        body = "v=" + e + "; " + show_args() + '"$v"; echo'
    extra = "; echo \"[$x][$u]\"" if op in (":=", "=") else ""
    return setup(rng) + body + extra


def param_more(rng):
    forms = ["${#x}", "${x:1}", "${x:0:2}", "${x: -2}", "${x:1:-1}", "${x^}", "${x^^}", "${x,,}", "${#u}",
             "${x:-$y}", "${x:+[$x]}", "${u-unset}", "${u:-${y:-deep}}", "${x#${y}}"]
    return setup(rng) + show_args() + '"' + pick(rng, forms) + '" ' + pick(rng, forms) + "; echo"


def splitting(rng):
    ifs = pick(rng, IFSES[1:])
    v = "".join(pick(rng, ["a", "b", " ", ":", ",", "\t", "\n", "  ", "::", "c d"]) for _ in range(rng.randrange(0, 8)))
    form = pick(rng, ["$x", "$x$y", "a${x}b", "$x \"$y\"", "\"$x\"$x", "$x${u}", "${x:-$y}"])
    return f"IFS={q(ifs)}; x={q(v)}; y={q(pick(rng, VALUES))}; set -- {form}; echo $#; printf '<%s>' \"$@\"; echo"


def positional(rng):
    args = " ".join(q(pick(rng, VALUES)) for _ in range(rng.randrange(0, 5)))
    tests = ['"$@"', "$@", '"$*"', "$*", '"$1"', "${2-none}", "$#", '"${@}"', '"a$@b"', "\"$@\"\"$@\"",
             "${1+\"$@\"}"]
    ifs = "" if rng.random() < 0.7 else f"IFS={q(pick(rng, IFSES[1:]))}; "
    body = show_args() + " ".join(pick(rng, tests) for _ in range(rng.randrange(1, 3)))
    shift = pick(rng, ["", "shift; ", "shift 2; ", "set -- x \"$@\"; "])
    return f"set -- {args}; {ifs}{shift}{body}; echo \" $?\""


def arith_expr(rng, depth=0):
    if depth > 3 or rng.random() < 0.3:
        return pick(rng, [str(rng.randrange(0, 20)), str(-rng.randrange(1, 9)), "x", "y", "0x1f", "010", "2#101", "n"])
    k = rng.randrange(7)
    a, b = arith_expr(rng, depth + 1), arith_expr(rng, depth + 1)
    if k == 0:
        return f"({a})"
    if k == 1:
        return f"{pick(rng, ['-', '!', '~', '+'])}{a}"
    if k == 2:
        return f"{a} ? {b} : {arith_expr(rng, depth + 1)}"
    if k == 3:
        return f"{pick(rng, ['x', 'y'])} {pick(rng, ['=', '+=', '-=', '*=', '|=', '<<='])} {a}"
    if k == 4:
        return f"{pick(rng, ['x++', '++x', 'y--', '--y'])} + {a}"
    op = pick(rng, ["+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^", "&&", "||", "**", ","])
    if op == "**":
        b = str(rng.randrange(0, 5))
    if op in ("<<", ">>"):
        b = str(rng.randrange(0, 10))
    return f"{a} {op} {b}"


def arithmetic(rng):
    e = arith_expr(rng)
    return f"x={rng.randrange(-3, 10)}; y={rng.randrange(1, 7)}; n='x + 1'; echo $(({e})); echo \"$x $y\""


CASE_PATS = ["a*", "*c", "?b?", "[a-c]*", "[!a]*", "*", "abc", "a|b", "x*|*y", "\\*", "'a*'", '"a"*', "[[:digit:]]*",
             "*.txt", "", "''", "[]a]*", "?", "??", "*[0-9]"]


def case_(rng):
    w = pick(rng, ["abc", "a", "", "b", "x.txt", "*", "a*", "1x", "]a", "zz9", "a b"])
    arms = []
    for _ in range(rng.randrange(1, 4)):
        p = pick(rng, CASE_PATS)
        if p == "":
            p = "''"
        arms.append(f"{p}) echo {q(p)};;")
    last = ";;" if rng.random() < 0.8 else ""
    return f"w={q(w)}; case $w in {' '.join(arms)} *) echo other{last} esac; echo $?"


LOOPS = [
    "for i in a b c; do echo $i; done",
    "for i in $x; do echo \"<$i>\"; done",
    "for i in \"$x\"; do echo \"<$i>\"; done",
    "set -- 1 2 3; for i; do echo $i; done",
    "for i in; do echo never; done; echo $?",
    "i=0; while [ $i -lt 4 ]; do i=$((i+1)); echo $i; done",
    "i=0; until [ $i -ge 3 ]; do i=$((i+1)); done; echo $i",
    "for i in 1 2 3 4 5; do if [ $i = 3 ]; then continue; fi; echo $i; done",
    "for i in 1 2 3 4 5; do [ $i = 4 ] && break; echo $i; done; echo end $?",
    "for i in 1 2; do for j in a b c; do [ $j = b ] && continue 2; echo $i$j; done; done",
    "for i in 1 2; do for j in a b c; do [ $j = b ] && break 2; echo $i$j; done; done; echo $i$j",
    "while true; do echo once; break; done",
    "i=5; while [ $i -gt 0 ]; do i=$((i-2)); done; echo $i",
    "for i in 1 2 3; do echo $i; done | while read l; do echo \"got $l\"; done",
    "for i in 1 2 3; do false; done; echo $?",
    "while false; do :; done; echo $?",
    "for i in a b; do :; done; echo $i",
    "n=0; for i in 1 2 3; do n=$((n+i)); done; echo $n",
    "i=0; while i=$((i+1)); [ $i -le 3 ]; do echo $i; done",
    "break; echo $?",
    "f() { for i in 1 2 3; do [ $i = 2 ] && return 7; echo $i; done; }; f; echo $?",
]

FUNCS = [
    "f() { echo \"$# $1 $2\"; }; f a b c; f; f 'x y'",
    "f() { return $1; }; f 3; echo $?; f 0; echo $?",
    "f() { x=in; }; x=out; f; echo $x",
    "f() { local x=in; echo $x; }; x=out; f; echo $x",
    "f() { local x; echo \"[${x-unset}]\"; x=2; }; x=1; f; echo $x",
    "g() { echo g$1; }; f() { g $1$1; }; f a",
    "f() { echo $1; shift; echo $1; }; f a b",
    "f() { set -- x y; echo $#; }; set -- 1 2 3; f; echo $#",
    "fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(($1-1))) )); fi; }; fact 6",
    "f() { echo out; echo err >&2; }; f 2>/dev/null; f >/dev/null 2>&1; echo done",
    "f() { echo $1; }; x='a b'; f $x; f \"$x\"",
    "f() { :; }; unset -f f; f; echo $?",
    "f() ( x=sub; echo $x ); x=main; f; echo $x",
    "f() { echo $?; }; false; f",
    "f() { return; }; false; f; echo $?",
    "a=1 f() { echo $a; }; f",
    "f() { echo \"[$v]\"; }; v=tmp f; echo \"[$v]\"",
    "f() { return 300; }; f; echo $?",
    "count() { echo $#; }; count \"$@\"; set -- a '' b; count \"$@\"; count $@; count \"$*\"",
    "function g { echo bashfunc; }; g",
]

SETE = [
    "set -e; echo a; false; echo b",
    "set -e; false || echo caught; echo after",
    "set -e; if false; then echo x; fi; echo after",
    "set -e; ! true; echo after",
    "set -e; false && echo x; echo after",
    "set -e; (false); echo after",
    "set -e; x=$(false); echo after",
    "set -e; f() { false; echo inf; }; f; echo after",
    "set -e; f() { false; echo inf; }; f || echo handled",
    "set -e; while false; do :; done; echo after",
    "set -e; true | false; echo after",
    "set -e; false | true; echo after",
    "set -e; { false; echo in; }; echo after",
    "set -e; set +e; false; echo after",
    "set -u; echo ${u-ok}; echo $u; echo after",
    "set -u; echo \"$@\"; echo ok",
    "set -eu; x=1; echo $x",
    "set -- a b; set -e; shift 3; echo after",
]

STATUS = [
    "exit 3", "exit 256", "exit -1", "(exit 4); echo $?", "false; echo $?", "! false; echo $?", "true; exit",
    "false; exit", "nosuch; echo $?", "x=$(exit 5); echo $?", "echo $(exit 5) $?", "exit 1 | true; echo $?",
    "f() { exit 7; }; f; echo no", "(f() { exit 7; }; f); echo $?", "return 2; echo $?", "exit foo",
    "echo ${u:?gone}; echo no", "(echo ${u:?}); echo $?", "x=1; readonly x; x=2; echo no",
    "readonly y=1; unset y; echo $? $y", "echo $((1/0)); echo no", "(echo $((2%0))); echo $?",
    "true && false || echo fb", "false || false; echo $?", "exit 2 && echo no",
]

SUBSHELL = [
    "x=1; (x=2; echo $x); echo $x",
    "x=1; { x=2; }; echo $x",
    "cd_() { :; }; (f() { echo f; }); f 2>/dev/null; echo $?",
    "echo $(echo a; echo b)",
    "echo \"$(echo a; echo b)\"",
    "x=$(printf 'a\\n\\n\\n'); echo \"[$x]\"",
    "echo $(echo $(echo nested))",
    "echo `echo \\`echo bq\\``",
    "x=$(exit 3); echo $?",
    "echo a | cat | cat",
    "echo x | read v; echo \"[$v]\"",
    "echo x | { read v; echo \"[$v]\"; }",
    "(echo a; echo b) | tac 2>/dev/null || (echo a; echo b) | cat",
    "echo $( (echo sub) )",
    "x=a; echo $(x=b; echo $x)$x",
    "echo $( case a in a) echo ca;; esac )",
    "echo \"$(echo 'q \"w\"')\"",
    "i=0; echo $(( $(echo 3) + 4 ))",
    "set -- a b; echo $(echo $#)",
    "{ echo a; echo b >&2; } 2>&1 | cat",
    "echo err >&2 | cat",
    "echo one; echo two >/dev/null; echo three 2>/dev/null",
]

HEREDOC = [
    "cat <<EOF\nplain $x\nEOF",
    "cat <<'EOF'\nraw $x `y`\nEOF",
    "cat <<\"EOF\"\nraw $x\nEOF",
    "cat <<-EOF\n\tindented $x\n\t\tmore\n\tEOF",
    "cat <<EOF\na\\$x \\\\ \\n $(echo sub) $((1+2))\nEOF",
    "cat <<EOF | cat\npiped\nEOF",
    "while read a b; do echo \"$b-$a\"; done <<EOF\n1 2\n3 4 5\nEOF",
    "cat <<A; cat <<B\nfirst\nA\nsecond\nB",
    "x=$(cat <<EOF\ninside\nEOF\n); echo \"$x\"",
    "cat <<EOF\nline \\\ncontinued\nEOF",
    "cat <<E\"O\"F\n$x\nEOF",
    "read v <<EOF\n  spaced  \nEOF\necho \"[$v]\"",
]

READS = ["a b c", "  lead  trail  ", "one", "", "a:b:c", "a\\ b c", "back\\\\slash", "x\\", "tab\there", "a  b  ", ":a:b:"]


def read_(rng):
    n = rng.randrange(0, 4)
    names = " ".join(["a", "b", "c"][:n])
    flags = pick(rng, ["", "-r "])
    ifs = "" if rng.random() < 0.5 else f"IFS={q(pick(rng, IFSES[1:]))} "
    lines = "\n".join(pick(rng, READS) for _ in range(rng.randrange(1, 3)))
    if rng.random() < 0.8:
        lines += "\n"
    shown = " ".join(f'"[${v}]"' for v in (["a", "b", "c"][:n] or ["REPLY"]))
    body = f"{ifs}read {flags}{names}; echo $? {shown}; read {flags}last; echo $? \"[$last]\""
    return body, lines.encode()


SYNTAX = [
    "echo a; if; then", "echo a\nif then fi", "echo 'unterminated", "echo \"open", "echo ok\n)", "for do done",
    "case x in a) echo;; esac esac", "f() {", "{ echo a", "echo a |", "echo a &&", "echo $(echo", "echo ${x",
    "echo a\necho b\nfi\necho c", "while true; do", "(echo a", "echo ok; ;", "&& echo", "echo `", "if true; then fi",
    "echo a\n\necho b; done", "x=1 (echo)", "echo ${x:?}", "for i in a b; echo; done",
]


def cases(rng):
    out = []

    def add(script, stdin=b""):
        out.append({"tool": "sh", "script": script, "ref": "set -f; " + script, "stdin": stdin})

    for _ in range(700):
        add(quoting(rng))
    for _ in range(900):
        add(param(rng))
    for _ in range(250):
        add(param_more(rng))
    for _ in range(500):
        add(splitting(rng))
    for _ in range(300):
        add(positional(rng))
    for _ in range(700):
        add(arithmetic(rng))
    for _ in range(500):
        add(case_(rng))
    for group in (LOOPS, FUNCS, SETE, STATUS, SUBSHELL, HEREDOC, SYNTAX):
        for s in group:
            add(s)
            add(setup(rng) + s)
    for _ in range(400):
        s, stdin = read_(rng)
        add(s, stdin)
    return out
