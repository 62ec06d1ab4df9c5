"""Differential cases for `date`: generated -d strings of every form GNU date reads (and
broken ones), +FORMATs with every conversion, flag and width, TZ values, -u, -I, -R,
--rfc-3339 and -f -.

Every case names a full date (or an @EPOCH), so the answer never depends on the clock:
`argv_cases(rng, anchored=False)` also makes clock-relative strings, for a checker that
freezes the reference's clock. No case may set the clock: the reference runs as root.
"""
import shlex


# Zones that both the system's tzdata and the bundled database hold, with DST or not.
ZONES = [
    "UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Asia/Kolkata",
    "Australia/Sydney", "America/Los_Angeles", "Europe/London", "Pacific/Auckland",
    "Asia/Kathmandu", "America/Sao_Paulo", "Africa/Cairo", "Europe/Moscow",
    "America/St_Johns", "Australia/Lord_Howe", "Pacific/Chatham", "America/Chicago",
    "Europe/Paris", "Asia/Shanghai", "Etc/GMT+5", "Etc/GMT-14",
]
POSIX = ["UTC0", "EST5EDT", "EST5EDT,M3.2.0,M11.1.0", "JST-9", "<+03>-3", "CET-1CEST,M3.5.0,M10.5.0/3",
         "NZST-12NZDT,M9.5.0,M4.1.0/3", "IST-5:30", "XYZ", "Foo/Bar", "ab", ":Europe/Berlin",
         "GMT+3", "ABC+3", "ABC-3:30", ""]

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
ZONE_WORDS = ["UTC", "GMT", "UT", "Z", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT",
              "CET", "CEST", "BST", "IST", "JST", "AKST", "NZDT", "MSK", "EET", "WET", "HST",
              "A", "B", "K", "M", "N", "Y", "J", "SGT", "NST", "ADT", "EAT"]
UNITS = ["year", "years", "month", "months", "fortnight", "week", "weeks", "day", "days",
         "hour", "hours", "minute", "minutes", "min", "mins", "second", "seconds", "sec",
         "secs"]
ORDINALS = ["last", "this", "next", "first", "third", "fourth", "fifth", "twelfth"]
JUNK = ["foo", "2026-11-31", "2026-02-30", "25:00", "12:60", "13pm", "0am", "nov 31",
        "2026-13-01", "@", "@x", "1 2 3", "- 2026-01-01", "12:00 13:00",
        "2026-01-01 2026-01-02", "Z Z", "1.5 days", "::", "2026--01-01", "ago",
        "\u00e9t\u00e9", "next", "12:00:00:00", "2026-11-30T", "2026-11-30 T 12", "//",
        "hence", "1/2/3/4", "99999999999999999999", "@99999999999999999999",
        "2147485547-01-01", "@67767976233316800"]


def case_word(rng, w):
    r = rng.random()
    if r < 0.6:
        return w
    if r < 0.8:
        return w.upper()
    if r < 0.9:
        return w.lower()
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in w)


def month_word(rng, m):
    name = MONTHS[m - 1]
    r = rng.random()
    if r < 0.5:
        name = name[:3]
    elif r < 0.55 and m == 9:
        name = "Sept"
    elif r < 0.6:
        name = name[:3] + "."
    return case_word(rng, name)


def day_word(rng, d):
    name = DAYS[d]
    r = rng.random()
    if r < 0.5:
        name = name[:3]
    elif r < 0.6:
        name = name[:3] + "."
    elif r < 0.65 and d == 2:
        name = "Tues"
    elif r < 0.7 and d == 4:
        name = rng.choice(["Thur", "Thurs"])
    elif r < 0.72 and d == 3:
        name = "Wednes"
    return case_word(rng, name)


def rand_year(rng):
    r = rng.random()
    if r < 0.6:
        return rng.randint(1990, 2040)
    if r < 0.75:
        return rng.randint(1900, 2100)
    if r < 0.85:
        return rng.randint(0, 99)
    if r < 0.95:
        return rng.randint(1000, 9999)
    return rng.choice([0, 1, 69, 70, 100, 1582, 1752, 10000, 99999, 2038])


def rand_md(rng):
    m = rng.randint(1, 12)
    if rng.random() < 0.05:
        m = rng.choice([0, 13, 99])
    d = rng.randint(1, 28) if rng.random() < 0.7 else rng.randint(1, 31)
    if rng.random() < 0.03:
        d = rng.choice([0, 32, 99])
    return m, d


def year_text(rng, y):
    if y < 100 and rng.random() < 0.5:
        return "%02d" % y
    if rng.random() < 0.7 and 0 <= y < 10000:
        return "%04d" % y
    return str(y)


def date_item(rng, anchored=True):
    """A calendar date; with `anchored`, one that names its year."""
    y = rand_year(rng)
    m, d = rand_md(rng)
    yt = year_text(rng, y)
    forms = ["iso", "iso", "iso", "us", "ymd", "dmy", "dmy-", "mdy,", "mdy", "full", "compact",
             "mon-dd-yy"]
    if not anchored:
        forms += ["md", "dm", "mon d", "slash-md"]
    f = rng.choice(forms)
    mm = "%02d" % m if rng.random() < 0.8 else str(m)
    dd = "%02d" % d if rng.random() < 0.8 else str(d)
    mw = month_word(rng, max(1, min(m, 12)))
    if f == "iso":
        return f"{yt}-{mm}-{dd}"
    if f == "us":
        return f"{mm}/{dd}/{yt}"
    if f == "ymd":
        return f"{y:04d}/{mm}/{dd}"
    if f == "dmy":
        return f"{d} {mw} {yt}"
    if f == "dmy-":
        return f"{d}-{mw}-{yt}"
    if f == "mdy,":
        return f"{mw} {d}, {yt}"
    if f == "mdy":
        return f"{mw} {d} {yt}"
    if f == "full":
        return f"{day_word(rng, rng.randrange(7))}, {d} {mw} {yt}"
    if f == "compact":
        return "%04d%02d%02d" % (max(1000, y % 10000), m, d)
    if f == "mon-dd-yy":
        return f"{mw}-{d}-{yt}"
    if f == "md":
        return f"{mw} {d}"
    if f == "dm":
        return f"{d} {mw}"
    if f == "mon d":
        return f"{mw} {dd}"
    return f"{mm}/{dd}"


def zone_offset(rng):
    h = rng.randint(0, 14)
    m = rng.choice([0, 0, 0, 30, 45, 15])
    sign = rng.choice("+-")
    f = rng.random()
    if f < 0.4:
        return f"{sign}{h:02d}{m:02d}"
    if f < 0.7:
        return f"{sign}{h:02d}:{m:02d}"
    if f < 0.85:
        return f"{sign}{h}"
    return f"{sign}{h:02d}"


def time_item(rng):
    h = rng.randint(0, 23)
    mi = rng.randint(0, 59)
    s = rng.randint(0, 59)
    if rng.random() < 0.03:
        h = rng.choice([24, 25, 99])
    if rng.random() < 0.02:
        mi = 60
    f = rng.random()
    if f < 0.3:
        t = f"{h:02d}:{mi:02d}"
    elif f < 0.6:
        t = f"{h:02d}:{mi:02d}:{s:02d}"
    elif f < 0.7:
        frac = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 12)))
        t = f"{h:02d}:{mi:02d}:{s:02d}{rng.choice('.,')}{frac}"
    elif f < 0.8:
        t = f"{rng.randint(1, 12)}{rng.choice(['am', 'pm', ' AM', ' PM', ' a.m.', 'p.m.'])}"
    elif f < 0.9:
        t = f"{rng.randint(1, 12)}:{mi:02d}{rng.choice(['am', ' pm', ' PM'])}"
    else:
        t = f"{h}:{mi:02d}"
    if rng.random() < 0.3 and "m" not in t.lower():
        t += rng.choice(["", " "]) + zone_offset(rng)
    return t


def rel_item(rng, bare=True):
    f = rng.random()
    if not bare and 0.6 <= f < 0.7:
        f = 0.1
    unit = case_word(rng, rng.choice(UNITS))
    if f < 0.45:
        n = rng.choice([1, 2, 3, 7, 10, 30, 100, 365, 1000, 0, 12, 24, 60])
        sign = rng.choice(["", "", "+", "-", "+ ", "- "])
        s = f"{sign}{n} {unit}"
    elif f < 0.6:
        s = f"{rng.choice(ORDINALS)} {unit}"
    elif f < 0.7:
        s = unit
    elif f < 0.8:
        s = rng.choice(["tomorrow", "yesterday", "today", "now"])
    else:
        s = f"{rng.randint(1, 5)}.{rng.randint(0, 999)} {rng.choice(['sec', 'seconds', 'second'])}"
    if rng.random() < 0.25:
        s += rng.choice([" ago", " hence", " AGO"])
    return s


def day_item(rng):
    f = rng.random()
    d = day_word(rng, rng.randrange(7))
    if f < 0.5:
        return d
    if f < 0.7:
        return f"{rng.choice(ORDINALS)} {d}"
    if f < 0.8:
        return f"{rng.randint(0, 4)} {d}"
    return d + ","


def zone_item(rng):
    f = rng.random()
    z = rng.choice(ZONE_WORDS)
    if f < 0.6:
        return z
    if f < 0.8:
        return rng.choice(["UTC", "GMT", "EST"]) + zone_offset(rng)
    if f < 0.9:
        return z + " DST"
    return zone_offset(rng)


def epoch_item(rng):
    f = rng.random()
    if f < 0.5:
        n = rng.randint(-2_000_000_000, 4_000_000_000)
    elif f < 0.7:
        n = rng.randint(-100_000, 100_000)
    elif f < 0.9:
        n = rng.randint(-60_000_000_000, 250_000_000_000)
    else:
        n = rng.choice([0, -1, 1, 2147483647, -2147483648, 253402300799, 253402300800,
                        -62135596800, -62167219200, -12219292800])
    s = f"@{n}"
    if rng.random() < 0.2:
        s += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 10)))
    if rng.random() < 0.05:
        s = " " + s
    return s


def printed_date(rng):
    """What `date`, `date -R` or `date -I...` print: people feed it back to -d."""
    y = rng.randint(1970, 2037)
    m = rng.randint(1, 12)
    d = rng.randint(1, 28)
    h, mi, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    wd = day_word(rng, rng.randrange(7))[:3]
    mw = MONTHS[m - 1][:3]
    f = rng.random()
    if f < 0.35:
        return f"{wd} {mw} {d:2d} {h:02d}:{mi:02d}:{s:02d} {rng.choice(['UTC', 'CET', 'EST', 'GMT', 'JST'])} {y}"
    if f < 0.7:
        return f"{wd}, {d:02d} {mw} {y} {h:02d}:{mi:02d}:{s:02d} {zone_offset(rng)}"
    if f < 0.85:
        return f"{y}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}{rng.choice(['Z', '+00:00', '-05:00', '+05:30', '+0100', ''])}"
    return f"{y}-{m:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}.{rng.randint(0, 999999999):09d} {zone_offset(rng)}"


def date_string(rng, anchored=True):
    f = rng.random()
    if f < 0.12:
        return epoch_item(rng)
    if f < 0.25:
        return printed_date(rng)
    if f < 0.28:
        return rng.choice(JUNK)
    items = [date_item(rng, anchored)]
    if rng.random() < 0.7:
        t = time_item(rng)
        if rng.random() < 0.2 and items[0][:1].isdigit() and "-" in items[0]:
            items[0] = items[0] + "T" + t.replace(" ", "")
        else:
            items.append(t)
    if rng.random() < 0.25:
        items.append(zone_item(rng))
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        items.append(rel_item(rng, not anchored))
    if rng.random() < 0.1:
        items.append(day_item(rng))
    if rng.random() < 0.05:
        items.append(rng.choice(["(comment)", "(a (b) c)"]))
    head, rest = items[0], items[1:]
    rng.shuffle(rest)
    if rng.random() < 0.8:
        items = [head] + rest
    else:
        items = rest + [head]
    s = " ".join(items)
    if rng.random() < 0.02:
        s += " (open"
    if rng.random() < 0.05:
        s = f'TZ="{rng.choice(ZONES)}" ' + s
    if rng.random() < 0.03:
        s = "  " + s + " "
    return s


def loose_string(rng):
    """A string relative to now: only for a checker with a frozen clock."""
    f = rng.random()
    parts = []
    if f < 0.3:
        parts.append(time_item(rng))
    if rng.random() < 0.4:
        parts.append(day_item(rng))
    if rng.random() < 0.3:
        parts.append(date_item(rng, False))
    for _ in range(rng.choice([0, 1, 1, 2])):
        parts.append(rel_item(rng))
    if rng.random() < 0.2:
        parts.append(zone_item(rng))
    if rng.random() < 0.1:
        parts.append(rng.choice(["", " ", "now", "today", "noon", "midnight", "1234", "2026", "12"]))
    rng.shuffle(parts)
    return " ".join(parts)


CONVS = list("aAbBcCdDeFgGhHIjklmMnNpPqrRsStTuUVwWxXyYzZ%")


def rand_format(rng):
    out = []
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.15:
            out.append(rng.choice(["-", ":", " ", "T", "/", "x", ", ", "\u00e9"]))
            continue
        flags = ""
        if rng.random() < 0.3:
            flags = "".join(rng.choice("-_0^#+") for _ in range(rng.randint(1, 2)))
        width = ""
        if rng.random() < 0.2:
            width = str(rng.choice([1, 2, 3, 4, 5, 6, 9, 10, 12, 15]))
        conv = rng.choice(CONVS)
        if conv == "z" and rng.random() < 0.5:
            conv = ":" * rng.randint(1, 4) + "z"
        if rng.random() < 0.03:
            conv = rng.choice(["E", "O"]) + rng.choice("cCxXyYdHmS")
        if rng.random() < 0.02:
            conv = rng.choice(["Q", "K", "1", ":", ""])
        out.append("%" + flags + width + conv)
    return "".join(out)


def output_opts(rng):
    r = rng.random()
    if r < 0.55:
        return ["+" + rand_format(rng)]
    if r < 0.65:
        return []
    if r < 0.75:
        return [rng.choice(["-I", "-Idate", "-Ihours", "-Iminutes", "-Iseconds", "-Ins",
                            "--iso-8601", "--iso-8601=seconds", "--iso=ns", "-Ih", "-Im"])]
    if r < 0.82:
        return [rng.choice(["-R", "--rfc-email", "--rfc-2822"])]
    if r < 0.9:
        return [rng.choice(["--rfc-3339=date", "--rfc-3339=seconds", "--rfc-3339=ns",
                            "--rfc-3339=s", "--rfc-3339=n"])]
    return ["+" + rng.choice(["%s", "%F %T %z", "%c", "%Y-%m-%dT%H:%M:%S.%N%:z", "%D %r",
                              "%a %A %b %B %h %j %U %V %W %G %g %u %w %q"])]


def rand_tz(rng):
    r = rng.random()
    if r < 0.15:
        return None
    if r < 0.75:
        return rng.choice(ZONES)
    return rng.choice(POSIX)


def argv_cases(rng, anchored=True, n=2600, extras=True):
    """(TZ or None, argv, stdin) triples."""
    out = []
    for _ in range(n):
        tz = rand_tz(rng)
        args = ["date"]
        if rng.random() < 0.1:
            args.append(rng.choice(["-u", "--utc", "--universal"]))
        s = date_string(rng) if anchored or rng.random() < 0.4 else loose_string(rng)
        stdin = b""
        r = rng.random()
        if r < 0.85:
            args += ["-d", s] if rng.random() < 0.8 else ["--date=" + s]
        else:
            lines = [date_string(rng) for _ in range(rng.randint(1, 5))]
            stdin = "\n".join(lines).encode() + (b"\n" if rng.random() < 0.8 else b"")
            args += ["-f", "-"]
        opts = output_opts(rng)
        if rng.random() < 0.5:
            args = args[:1] + opts + args[1:]
        else:
            args += opts
        out.append((tz, args, stdin))
    if not extras:
        return out
    # Option errors and odd usage (never an operand without +: that sets the clock).
    for extra in (["-d", "@0", "-R", "-I"], ["-d", "@0", "+%s", "+%s"], ["-Ix", "-d", "@0"],
                  ["--rfc-3339=x", "-d", "@0"], ["--rfc-3339"], ["-d"], ["--zzz"], ["-x"],
                  ["-d", "@0", "-f", "-"], ["-r", "nofile"], ["-d", "@0", "-I", "+%s"],
                  ["--iso-8601=hou", "-d", "@5"], ["-d", "@0", "--resolution"],
                  ["--date", "@86400", "--rfc-email"], ["-d", "@0", "--d", "@1"],
                  ["-d", "@0", "nonplus"], ["-f", "-", "0101"], ["-d", "@0", "x", "y"],
                  ["-R", "-I", "--zzz"], ["-R", "-Ix"], ["-R", "-R", "-d", "@0"],
                  ["-d", "@0", "-f", "-", "-R", "-I"], ["-R", "nonplus", "-d", "@0"],
                  ["-d", "@0", "-f", "-", "+%s", "x"], ["-r", "nofile", "x"]):
        out.append(("UTC", ["date"] + extra, b""))
    out += resolution_cases(rng)
    out += debug_cases(rng)
    return out


def resolution_cases(rng):
    """--resolution: the clock's tick, shown as a moment that long after the epoch."""
    out = []
    extras = [[], ["-u"], ["--resolution"], ["-d", "@0"], ["-f", "-"], ["-r", "nofile"],
              ["+%s", "+%s"], ["nonplus"], ["-R", "-I"], ["-Ix"], ["+%N", "extra"]]
    for _ in range(60):
        args = ["date", rng.choice(["--resolution", "--res", "--resol"])]
        r = rng.random()
        if r < 0.6:
            args += output_opts(rng)
        elif r < 0.85:
            args += rng.choice(extras)
        if rng.random() < 0.2:
            args.append(rng.choice(["-u", "--utc"]))
        if rng.random() < 0.3:
            args = args[:1] + args[1:][::-1]
        out.append((rand_tz(rng), args, b""))
    return out


def debug_cases(rng, n=700):
    """--debug: GNU's notes on how each anchored date string is read, then the format."""
    out = []
    for tz, args, stdin in argv_cases(rng, n=n, extras=False):
        args = list(args)
        args.insert(rng.randint(1, len(args)), "--debug")
        out.append((tz, args, stdin))
    for extra in (["--resolution"], ["--resolution", "-R"], ["-d", "@0", "-f", "-"]):
        out.append(("UTC", ["date", "--debug"] + extra, b""))
    return out


def cases(rng):
    for tz, args, stdin in argv_cases(rng):
        env = {"TZ": tz} if tz is not None else {}
        script = " ".join(shlex.quote(a) for a in args)
        if tz is None:
            script = "unset TZ; " + script
        case = {"tool": "date", "script": script, "stdin": stdin}
        if env:
            case["env"] = env
        yield case
