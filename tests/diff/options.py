"""The option tables of tests/diff/options/CMD.txt: every option the reference's manual
and `--help` list, with whether mkfifo implements it, and the checks the suite makes on
them.

A table is one line per option, fields separated by tabs:

    FORMS <TAB> STATUS <TAB> MORE...

FORMS are the option's spellings as `--help` writes them, comma-separated
(`-A NUM, --after-context=NUM`, `--color[=WHEN]`, `-NUM`). STATUS is

    yes    implemented: MORE are sample arguments (shell text) from the manual's
           description, and the suite fails unless generated cases use the option both
           alone and combined with another option;
    n/a    cannot apply here: MORE is the reason (no file system, no terminal, ...);
    no     not implemented yet: MORE is the reason; README says so.

Lines starting with `@` set how gen_manual.py calls the tool: `@operands` (shell text
after the options, one choice per field), `@input` (`text`, `gzip` or `json`: what stdin
holds), `@help` (the command that prints the option list, default `CMD --help`), `@tool`
(the report's row, default CMD), `@also` (other names the tool is called by).
"""
import re
import shlex
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TABLES = HERE / "options"
STATUSES = ("yes", "n/a", "no")


class Option:
    def __init__(self, forms, status, more, where):
        self.forms = forms
        self.status = status
        self.more = more
        self.where = where
        # name (e.g. "-A", "--after-context", "-NUM") -> "required" | "optional" | "none" | int
        self.names = {}
        for form in forms:
            name, arity = parse_form(form)
            self.names[name] = arity

    @property
    def key(self):
        return self.forms[0]

    def spellings(self):
        """(name, arity) of each form, for generators."""
        return list(self.names.items())


def parse_form(form):
    """`-A NUM` -> ("-A", "required"); `--color[=WHEN]` -> ("--color", "optional");
    `--arg name value` -> ("--arg", 2); `-NUM` -> ("-NUM", "none")."""
    form = form.strip()
    m = re.match(r"^(--?[A-Za-z0-9?][A-Za-z0-9_-]*|-NUM)(.*)$", form)
    if not m:
        raise ValueError(f"not an option form: {form!r}")
    name, rest = m.group(1), m.group(2)
    if re.match(r"^=[a-z-]+$", rest):
        # `--check=quiet`: one fixed value, a spelling of its own.
        return form, "none"
    if rest.startswith("[="):
        return name, "optional"
    if rest.startswith("=") or rest.startswith(" ") and len(rest.split()) == 1:
        return name, "required"
    if rest.startswith(" "):
        return name, len(rest.split())
    if rest.startswith("["):
        return name, "optional"
    return name, "none"


class Table:
    def __init__(self, cmd):
        self.cmd = cmd
        self.path = TABLES / f"{cmd}.txt"
        self.options = []
        self.directives = {}
        for n, line in enumerate(self.path.read_text().splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            where = f"{self.path.name}:{n}"
            if line.startswith("@"):
                self.directives[fields[0][1:]] = fields[1:]
                continue
            if len(fields) < 2 or fields[1] not in STATUSES:
                raise SystemExit(f"{where}: FORMS<TAB>yes|n/a|no<TAB>... expected: {line!r}")
            if fields[1] != "yes" and not "".join(fields[2:]).strip():
                raise SystemExit(f"{where}: status {fields[1]} needs a reason")
            forms = [f.strip() for f in fields[0].split(", ")]
            self.options.append(Option(forms, fields[1], fields[2:], where))
        self.by_name = {}
        for opt in self.options:
            for name in opt.names:
                self.by_name[name] = opt

    @property
    def tool(self):
        return self.directives.get("tool", [self.cmd])[0]

    @property
    def names(self):
        return [self.cmd] + self.directives.get("also", [])

    def lookup_long(self, name):
        """GNU getopt_long: an exact name, or an unambiguous prefix."""
        if name in self.by_name:
            return self.by_name[name]
        hits = {o for n, o in self.by_name.items() if n.startswith("--") and n.startswith(name)}
        return hits.pop() if len(hits) == 1 else None

    def uses(self, words):
        """The options one invocation's words (after the command name) use, as GNU's
        getopt would read them."""
        found = []
        i = 0
        while i < len(words):
            w = words[i]
            i += 1
            if w == "--":
                break
            if w.startswith("--") and len(w) > 2:
                name = w if w in self.by_name else w.split("=", 1)[0]
                opt = self.lookup_long(name)
                if opt is None:
                    continue
                found.append(opt)
                arity = next((a for n, a in opt.names.items() if n.startswith(name)), "none")
                if "=" not in w:
                    if arity == "required":
                        i += 1
                    elif isinstance(arity, int):
                        i += arity
                continue
            if w.startswith("-") and len(w) > 1:
                j = 1
                while j < len(w):
                    c = w[j]
                    if c.isdigit() and "-NUM" in self.by_name:
                        found.append(self.by_name["-NUM"])
                        while j < len(w) and w[j].isdigit():
                            j += 1
                        continue
                    opt = self.by_name.get("-" + c)
                    if opt is None:
                        break
                    found.append(opt)
                    arity = opt.names["-" + c]
                    if arity in ("required", "optional") or isinstance(arity, int):
                        if j + 1 == len(w) and arity == "required":
                            i += 1
                        elif j + 1 == len(w) and isinstance(arity, int):
                            i += arity
                        break
                    j += 1
        return found


def load_tables():
    return [Table(p.stem) for p in sorted(TABLES.glob("*.txt"))]


def invocations(script, names):
    """The word lists following each of `names` used as a command in a shell script."""
    try:
        lex = shlex.shlex(script, posix=True, punctuation_chars=";&|()<>")
        lex.whitespace_split = True
        lex.commenters = ""
        words = list(lex)
    except ValueError:
        words = script.split()
    out = []
    start = True
    for k, w in enumerate(words):
        if w and set(w) <= set(";&|()<>"):
            start = True
            continue
        if start and w in names:
            rest = []
            for v in words[k + 1:]:
                if v and set(v) <= set(";&|()<>"):
                    break
                rest.append(v)
            out.append(rest)
        start = w in ("xargs", "then", "do", "else", "!", "{", "time") or "=" in w and start
    return out


def help_options(table, env):
    """The option names the reference's own `--help` lists."""
    cmd = table.directives.get("help", [f"{table.cmd} --help"])[0]
    p = subprocess.run(["bash", "-c", "enable -n echo printf test '['\n" + cmd],
                       capture_output=True, env=env, timeout=20)
    names = set()
    for line in (p.stdout + p.stderr).decode(errors="replace").splitlines():
        s = line.strip()
        if not s.startswith("-") or not line.startswith(" "):
            continue
        head = re.split(r"\s{2,}|\t", s, maxsplit=1)[0]
        for item in head.split(", "):
            m = re.match(r"^(--?[A-Za-z0-9?][A-Za-z0-9_-]*)", item.strip())
            if m:
                names.add(m.group(1))
    return names


def check(tables, cases, env):
    """Problems: an option of `--help` with no line in its table, an implemented option no
    case uses alone or combined. Returns (problems, coverage rows)."""
    problems, rows = [], []
    for t in tables:
        listed = set(t.by_name)
        for name in sorted(help_options(t, env) - listed):
            if name.startswith("--") and t.lookup_long(name):
                continue
            problems.append(f"{t.cmd}: `{name}` is in the reference's --help but not in {t.path.name}")
        alone = {id(o): 0 for o in t.options}
        combined = dict(alone)
        # Options the tool cannot go without (cut's -f, basenc's --base64) come with the
        # operands: next to one of them, an option is still alone.
        base = {id(o) for operand in t.directives.get("operands", [])
                for o in t.uses(operand.split())}
        for case in cases:
            for words in invocations(case["script"], t.names):
                used = t.uses(words)
                distinct = {id(o) for o in used}
                for o in used:
                    if len(distinct) == 1 or len(distinct - base - {id(o)}) == 0:
                        alone[id(o)] += 1
                    else:
                        combined[id(o)] += 1
        counts = {s: 0 for s in STATUSES}
        for o in t.options:
            counts[o.status] += 1
            if o.status != "yes":
                continue
            if not alone[id(o)]:
                problems.append(f"{t.cmd}: no case uses `{o.key}` alone ({o.where})")
            if not combined[id(o)] and sum(x.status == "yes" for x in t.options) > 1:
                problems.append(f"{t.cmd}: no case uses `{o.key}` with another option ({o.where})")
        rows.append((t.cmd, counts["yes"], counts["n/a"], counts["no"]))
    return problems, rows
