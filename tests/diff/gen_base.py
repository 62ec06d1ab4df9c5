"""base64 base32 basenc: encoding with -w (default 76, 0, odd widths), decoding of good,
wrapped, unpadded, concatenated, garbage-laden and bad input (GNU writes what it decoded
before "invalid input"), -i, every basenc encoding, and bad options."""
import base64
import shlex

ENCS = ["--base64", "--base64url", "--base32", "--base32hex", "--base16", "--base2msbf",
        "--base2lsbf", "--z85"]


def raw(rng):
    k = rng.randrange(6)
    if k == 0:
        return b""
    if k == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
    if k == 2:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(40, 3000)))
    if k == 3:
        return b"hello world\n" * rng.randrange(1, 30)
    if k == 4:
        return bytes(rng.randrange(256) for _ in range(rng.choice([30720, 30721, 30723, 61444, 100001])))
    return "naïve café\n".encode()


def z85(data):
    chars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
    out = []
    for i in range(0, len(data) - len(data) % 4, 4):
        v = int.from_bytes(data[i:i + 4], "big")
        s = ""
        for _ in range(5):
            s = chars[v % 85] + s
            v //= 85
        out.append(s)
    return "".join(out).encode()


def encoded(enc, data):
    if enc == "--base64":
        return base64.b64encode(data)
    if enc == "--base64url":
        return base64.urlsafe_b64encode(data)
    if enc == "--base32":
        return base64.b32encode(data)
    if enc == "--base32hex":
        return base64.b32hexencode(data)
    if enc == "--base16":
        return base64.b16encode(data)
    if enc == "--base2msbf":
        return "".join(f"{b:08b}" for b in data).encode()
    if enc == "--base2lsbf":
        return "".join(f"{b:08b}"[::-1] for b in data).encode()
    return z85(data)


def mangle(rng, text, enc):
    """Bad or odd input for the decoder."""
    t = bytearray(text)
    k = rng.randrange(12)
    if k == 0 and t:
        t.insert(rng.randrange(len(t) + 1), rng.choice(b"!*~ \t\r\x00\xff.-_+/="))
    elif k == 1 and t:
        del t[rng.randrange(len(t)):]
    elif k == 2:
        t += b"\n"
    elif k == 3:
        # wrapped at some width
        w = rng.choice([1, 3, 4, 5, 8, 76])
        t = bytearray(b"\n".join(bytes(t[i:i + w]) for i in range(0, len(t), w)) + b"\n")
    elif k == 4:
        t = t.rstrip(b"=")
    elif k == 5:
        t += text
    elif k == 6:
        t += b"=" * rng.randrange(1, 4)
    elif k == 7 and t:
        i = rng.randrange(len(t))
        t[i] = rng.choice(b"=abcdefABCDEF0123456789+/-_")
    elif k == 8:
        t = bytearray(t.lower())
    elif k == 9:
        t = bytearray(b"\r\n".join(bytes(t[i:i + 10]) for i in range(0, len(t), 10)))
    return bytes(t)


def cases(rng):
    for _ in range(2400):
        tool = rng.choice(["base64", "base64", "base32", "basenc", "basenc", "basenc"])
        enc = {"base64": "--base64", "base32": "--base32"}.get(tool) or rng.choice(ENCS)
        opts = [enc] if tool == "basenc" else []
        if tool == "basenc" and rng.random() < 0.05:
            opts = [rng.choice(ENCS)] + opts
        data = raw(rng)
        mode = rng.randrange(10)
        if mode < 4:
            stdin = data
            if rng.random() < 0.4:
                opts.append(rng.choice(["-w0", "-w", "--wrap=1", "-w 3", "-w 4", "-w 76", "-w 77",
                                        "--wrap=0", "-w 1000", "-w x", "-w -1", "-w +8"]))
            if enc == "--z85" and rng.random() < 0.5:
                stdin = data[: len(data) - len(data) % 4]
        elif mode < 9:
            text = encoded(enc, data)
            if rng.random() < 0.7:
                text = mangle(rng, text, enc)
            stdin = text
            opts.append(rng.choice(["-d", "--decode", "-d", "-di", "-d -i", "--decode --ignore-garbage"]))
        else:
            opts.append(rng.choice(["-x", "--bogus", "- -", "foo", "-d foo", "--wrap", "-w ''", "--base"]))
            stdin = data
        script = " ".join([tool] + [o for o in opts])
        if tool == "basenc" and rng.random() < 0.02:
            script = "basenc -d"
        yield {"tool": tool, "script": script, "stdin": stdin}
