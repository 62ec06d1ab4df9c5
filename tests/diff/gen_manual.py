"""Every implemented option of every table in tests/diff/options/ (what the reference's
manual and `--help` list), in each of its documented spellings and with the sample
arguments of its table line: alone, over each of the usual inputs (textdata.EDGE_INPUTS:
empty, no final newline, bytes above 127, invalid UTF-8, NUL, CRLF, a very long line),
and combined with other options of the same table."""
import gzip as pygzip
import json
import random
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import options  # noqa: E402
from textdata import EDGE_INPUTS  # noqa: E402

JSON_INPUTS = [
    b"", b"null", b'{"a":1,"b":[1,2,{"c":"x"}]}\n', b"[1,2.5,-0,1e1000,\"a\\u00e9\"]",
    b'{"a":{"b":null}} {"a":[3,2,1]}\n"str"\n', b"1 2 3", b'{"a":"caf\xc3\xa9","b":"\\ud83d\\ude00"}',
    b"[]\n{}\n", b'{"a":1,', b"nan", b'[{"k":"b","v":2},{"k":"a","v":1}]',
    b'"\xff"', b"\xef\xbb\xbf[1]", b'{"a":1}\r\n{"a":2}\r\n',
]
COMBINED_PER_OPTION = 4


def gzip_inputs():
    out = []
    for d in EDGE_INPUTS:
        z = pygzip.compress(d, mtime=0)
        out.append(z)
    z = pygzip.compress(b"hello\nworld\n" * 50, mtime=0)
    out += [
        z[: len(z) // 2],            # truncated inside the data
        z[:-4],                      # truncated in the trailer
        z[:10],                      # the header alone
        z[:-8] + b"\0\0\0\0" + z[-4:],  # a bad CRC
        z + b"garbage",              # trailing garbage
        z + b"\0\0\0\0",             # trailing zeros
        z + z,                       # two members
        b"plain text, not gzip\n",
        b"\x1f\x8b\x09\x00",         # an unknown method
        z[:20] + b"\xff" * 8 + z[28:],  # damaged deflate data
    ]
    return out


def words_for(name, arity, samples):
    """The ways one spelling of an option can be written, with its sample arguments."""
    if arity == "none":
        return [name]
    if name == "-NUM":
        return ["-" + s for s in samples]
    if not samples:
        raise SystemExit(f"{name}: an option with an argument needs sample arguments in its table")
    long_ = name.startswith("--")
    if arity == "optional":
        return [name] + [f"{name}={s}" if long_ else f"{name}{s}" for s in samples]
    if isinstance(arity, int):
        return [f"{name} {s}" for s in samples]
    out = []
    for k, s in enumerate(samples):
        if long_:
            out.append(f"{name}={s}" if k % 2 == 0 else f"{name} {s}")
        else:
            out.append(f"{name} {s}" if k % 2 == 0 or len(name) != 2 else f"{name}{s}")
    return out


def option_words(opt):
    out = []
    for name, arity in opt.spellings():
        out += words_for(name, arity, opt.more)
    return out


def cases(_rng):
    gz = gzip_inputs()
    for table in options.load_tables():
        # A seed per table: editing one table leaves the others' cases as they were.
        rng = random.Random(f"manual-{table.cmd}")
        impl = [o for o in table.options if o.status == "yes"]
        if not impl:
            continue
        kind = table.directives.get("input", ["text"])[0]
        inputs = {"text": EDGE_INPUTS, "gzip": gz, "json": JSON_INPUTS}[kind]
        operands = table.directives.get("operands", [""])
        k = 0

        def case(words):
            nonlocal k
            k += 1
            script = " ".join([table.cmd] + words + [rng.choice(operands)]).strip()
            return {"tool": table.tool, "script": script, "stdin": inputs[k % len(inputs)]}

        for opt in impl:
            ws = option_words(opt)
            for w in ws:
                for _ in range(2):
                    yield case([w])
            for _ in range(COMBINED_PER_OPTION):
                others = [rng.choice(option_words(o)) for o in rng.sample(impl, min(len(impl), rng.randint(1, 3)))
                          if o is not opt]
                if not others:
                    continue
                words = [rng.choice(ws)] + others
                rng.shuffle(words)
                yield case(words)


if __name__ == "__main__":
    for c in cases(random.Random(0)):
        print(json.dumps({"tool": c["tool"], "script": c["script"]}))
