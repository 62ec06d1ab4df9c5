"""tee: its options over random input (file operands are left out: the reference would
create them; they are listed in known.txt)."""
import shlex


OPTS = ["-a", "-i", "-p", "-ai", "--append", "--ignore-interrupts", "--output-error",
        "--output-error=warn", "--output-error=exit", "--output-error=warn-nopipe",
        "--output-error=exit-nopipe", "--output-error=bogus", "--output-error=w",
        "--output-error=e", "--output-error=exit-n", "-x", "--bogus", "--app"]


def case(argv, stdin):
    return {"tool": "tee", "script": " ".join(shlex.quote(a) for a in argv), "argv": argv,
            "stdin": stdin}


def cases(rng):
    for _ in range(400):
        argv = ["tee"] + [rng.choice(OPTS) for _ in range(rng.choice([0, 1, 1, 2]))]
        stdin = bytes(rng.choice(b"ab \n\t\x00\xff") for _ in range(rng.randint(0, 40)))
        yield case(argv, stdin)
