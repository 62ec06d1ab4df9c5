"""echo: option words (-n -e -E, clustered, unknown ones that are text), every escape of
-e (octal, hex, \c), bytes above 127 and odd backslashes."""
import shlex


OPTS = ["-n", "-e", "-E", "-ne", "-en", "-nE", "-Ee", "-neE", "-x", "-", "--", "-nx", "-e-n",
        "--help-me", "-nn", "-eee"]
PIECES = ["a", "b c", "hello", "", " ", "\\n", "\\t", "\\\\", "\\a", "\\b", "\\e", "\\f",
          "\\r", "\\v", "\\c", "\\0", "\\01", "\\0101", "\\101", "\\18", "\\8", "\\400",
          "\\777", "\\x41", "\\x4g", "\\xg", "\\x", "\\u00e9", "\\q", "\\\"", "\\'", "\\",
          "\u00e9t\u00e9", "tab\there", "-n", "-e", "%s", "\\0400", "\\x7f", "\\xFF", "\\1234"]


def case(argv):
    return {"tool": "echo", "script": " ".join(shlex.quote(a) for a in argv), "argv": argv}


def cases(rng):
    yield case(["echo"])
    for _ in range(2000):
        argv = ["echo"]
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            argv.append(rng.choice(OPTS))
        for _ in range(rng.choice([0, 1, 1, 2, 3, 4])):
            argv.append("".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4))))
        yield case(argv)
