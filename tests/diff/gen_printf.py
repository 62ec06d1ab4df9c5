"""printf: random formats (flags, widths, precisions, `*`, escapes, every conversion) over
random arguments (integers in every base, char constants, floats near the edges of long
double, strings for %b and %q), plus bad formats and bad numbers."""
import shlex


INTS = [
    "0", "1", "-1", "42", "+7", "007", "010", "08", "0x1f", "0X1F", "-0x10", "0x", "12abc",
    "abc", "", " 12", "12 ", "\t-3", "'a", '"b', "'", "'ab", "'\u00e9", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "99999999999999999999", "-1.5", "1e3",
    "1.0", "-", "+", "0b11", "0777", "255", "65", "100000",
]
FLOATS = [
    "0", "1", "-1", "0.1", "0.2", "0.3", "1.5", "2.5", "-2.5", "3.14159", "1e10", "1e-10",
    "1.5e300", "1e4000", "1e4932", "1.2e4932", "1e5000", "1e-5000", "1e-4940", "1e-4950",
    "0x1p3", "0x1.8p-2", "0xAp0", "0x1p-16445", "0x1p-16446", "inf", "-inf", "nan", "-nan",
    "INFINITY", "Inf", "infinityx", "1e", "1e+", "1.5x", ".5", "5.", "-.5", "0.0001",
    "0.00001", "123456789", "1e100", "-0", "-0.0", "99999999999999999999", "2/3", "'a",
    "", " ", "1,5", ".", "0x", "0x.8", "1.25", "0.125", "0.5", "1.05", "2.675", "1e-5",
    "9.9999999", "999999.5", "0.000123456", "123456.789", "1e15", "1e16", "1e17", "4.35",
    "0.045", "1.0000000000000000001", "7e-1", "1E2", "nan(123)", "0X1P+2", "12e-3x",
]
WORDS = [
    "", "a", "hello", "a b", "it's", 'a"b', "$x", "a\\b", "a\nb", "\u00e9t\u00e9", "~a",
    "a~", "#a", "a#", "=", "a=b", "-x", "a*", "[a]", "{a}", "{", "}", "a,b", "%", "^", "!",
    "a:b", "@", "+", "\t", "'", "''", "a'", "'a", "a;b", "a|b", "a&b", "(a)", "<", "`",
    "it's $x", "a'b c", "\x01", "a\x7fb", "x'\x01", "\x01'", "a'b\x01c", "%d", "\\n",
    "tab\there", "long argument with several words",
]
BWORDS = [
    "a\\nb", "\\t", "\\101", "\\0101", "\\1", "\\18", "\\400", "\\0400", "\\777", "\\x41",
    "\\x4g", "\\xg", "\\x", "\\u00e9", "\\u0041", "\\u0024", "\\U0001F600", "\\uD800", "\\u12",
    "a\\cb", "\\c", "\\e\\a\\b\\f\\r\\v", "\\\\", "\\q", "\\\"", "\\'", "\\?", "\\", "ab\\",
    "plain", "", "%s", "\\08", "\\0", "\\7777",
]
INT_CONV = "diouxX"
FLOAT_CONV = "fFeEgGaA"


def rand_flags(rng, conv):
    n = rng.choice([0, 0, 0, 1, 1, 2, 3])
    pool = "-+ #0"
    if rng.random() < 0.05:
        pool += "'I"
    return "".join(rng.choice(pool) for _ in range(n))


def rand_conv(rng):
    r = rng.random()
    if r < 0.3:
        c = rng.choice(INT_CONV)
    elif r < 0.6:
        c = rng.choice(FLOAT_CONV)
    elif r < 0.8:
        c = rng.choice("ssc")
    elif r < 0.9:
        c = rng.choice("bq")
    elif r < 0.97:
        c = "%"
    else:
        c = rng.choice("yzkQ!5")
    if c == "%":
        return "%%", None
    spec = "%"
    if c in "bq" and rng.random() < 0.9:
        return "%" + c, c
    spec += rand_flags(rng, c)
    r = rng.random()
    if r < 0.35:
        spec += str(rng.randint(0, 25))
    elif r < 0.45:
        spec += "*"
    r = rng.random()
    if r < 0.3:
        spec += "." + str(rng.randint(0, 30))
    elif r < 0.37:
        spec += ".*"
    elif r < 0.4:
        spec += "."
    if rng.random() < 0.04:
        spec += rng.choice(["l", "ll", "h", "hh", "L", "j", "z", "t"])
    return spec + c, c


def rand_text(rng):
    return rng.choice([
        "", " ", "x", "|", ":", "\\n", "\\t", "\\\\", "\\101", "\\x41", "\\0", "\\u00e9",
        "\\e", "\\q", "\\\"", "[", "]", "abc", "\\c", "\\x", "\\u0041", "\\1234", "\\'",
    ])


def arg_for(rng, conv):
    r = rng.random()
    if r < 0.08:
        return rng.choice(WORDS + INTS + FLOATS)
    if conv == "*":
        # Not -2147483648 as a width: GNU would try to write 2 GiB of spaces.
        return rng.choice(["0", "1", "5", "12", "-3", "-12", "abc", "", "'a", "2147483648",
                           "-9223372036854775808", "99999999999999999999", "3x", " 4"])
    if conv in INT_CONV:
        if r < 0.3:
            return str(rng.randint(-10**6, 10**6))
        if r < 0.35:
            return hex(rng.randint(0, 2**64))
        return rng.choice(INTS)
    if conv in FLOAT_CONV:
        if r < 0.25:
            return repr(rng.uniform(-1e6, 1e6))
        if r < 0.35:
            return "%de%d" % (rng.randint(-999, 999), rng.randint(-60, 60))
        if r < 0.45:
            return "%d.%0*d" % (rng.randint(0, 99), rng.randint(1, 8), rng.randint(0, 10**8 - 1))
        return rng.choice(FLOATS)
    if conv == "b":
        if r < 0.3:
            return "".join(rng.choice(BWORDS + ["x", " "]) for _ in range(3))
        return rng.choice(BWORDS)
    return rng.choice(WORDS)


def case(argv):
    return {"tool": "printf", "script": " ".join(shlex.quote(a) for a in argv), "argv": argv}


FIXED = [
    ["printf"], ["printf", "--", "%s", "x"], ["printf", "-x"], ["printf", "--"],
    ["printf", "--", "--"], ["printf", "%*d", "99999999999999999999", "1"],
    ["printf", "%.*d", "abc", "1"], ["printf", "%*d", "-5", "1"], ["printf", "%.*d", "-5", "1"],
    ["printf", "%s\\n", "a", "b", "c"], ["printf", "x\\n", "a", "b"], ["printf", "%%\\n", "a"],
    ["printf", "%5%"], ["printf", "%"], ["printf", "a%"], ["printf", "%5"], ["printf", "%-"],
    ["printf", "%."], ["printf", "%5-d"], ["printf", "%.5.3d", "1"], ["printf", "%1$d", "1"],
    ["printf", "%**d", "1"], ["printf", "%.*c", "1", "a"], ["printf", "%hq", "a"],
    ["printf", "%lLd %Lld %hlhd %jjd", "1", "2", "3", "4"], ["printf", "%#s", "a"],
    ["printf", "%5b", "a"], ["printf", "%-q", "a"], ["printf", "%'d %'f", "1234567", "1234.5"],
    ["printf", "%I5d", "3"], ["printf", "%b|%s", "\\x", "y"], ["printf", "%b%b", "a\\c", "b"],
    ["printf", "%s\\c", "x", "y"], ["printf", "a\\cb%s", "x"], ["printf", "\\"],
    ["printf", "a\\"], ["printf", "\\u"], ["printf", "\\u12"], ["printf", "\\u12345"],
    ["printf", "\\U0000E9E9x"], ["printf", "\\U00110000"], ["printf", "\\ue000"],
    ["printf", "\\uD7FF\\uDFFF"], ["printf", "%d|%s|%f|%c|%b|%q|"], ["printf", "%c", ""],
    ["printf", "%q\\n", ""], ["printf", "%s"], ["printf", "%d %d\\n", "1", "2", "3"],
    ["printf", "%5.*d", "2", "3", "4"], ["printf", "%*c|", "2", "3", "4"],
    ["printf", "%.*s|", "2", "3", "4"], ["printf", "%.0a %.0a %.0a", "1.9999", "1.5", "2.5"],
    ["printf", "%.30Lf", "0.1"], ["printf", "%.40e", "1e-300"], ["printf", "%.60f", "1e-50"],
    ["printf", "%f", "1e300"], ["printf", "%.0f %.0f %.0f %.0f", "0.5", "1.5", "2.5", "3.5"],
    ["printf", "%.1f %.1f %.1f", "0.25", "0.35", "0.45"], ["printf", "%.2e", "9.995"],
    ["printf", "%g %g %g", "9.9999995", "99999.95", "0.000099999995"],
]


def cases(rng):
    for argv in FIXED:
        yield case(argv)
    for _ in range(3200):
        pieces = []
        convs = []
        for _ in range(rng.choice([1, 1, 2, 2, 3, 4])):
            if rng.random() < 0.35:
                pieces.append(rand_text(rng))
            spec, conv = rand_conv(rng)
            pieces.append(spec)
            if conv:
                for _ in range(spec.count("*")):
                    convs.append("*")
                convs.append(conv)
        if rng.random() < 0.6:
            pieces.append("\\n")
        fmt = "".join(pieces)
        nargs = len(convs)
        r = rng.random()
        if r < 0.15:
            nargs = rng.randint(0, max(0, nargs - 1))
        elif r < 0.35:
            nargs = nargs * rng.randint(2, 3) + rng.randint(0, 1)
        args = [arg_for(rng, convs[i % len(convs)] if convs else "s") for i in range(nargs)]
        yield case(["printf", fmt] + args)
