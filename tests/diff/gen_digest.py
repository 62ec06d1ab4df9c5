"""md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum: digests of stdin and `-`
operands, -b -t --tag -z, b2sum -l, missing files, -c lists from stdin (GNU treats a `-` in
a list read from stdin as improperly formatted), and bad options."""
import hashlib
import shlex

TOOLS = {
    "md5sum": ("MD5", 32),
    "sha1sum": ("SHA1", 40),
    "sha224sum": ("SHA224", 56),
    "sha256sum": ("SHA256", 64),
    "sha384sum": ("SHA384", 96),
    "sha512sum": ("SHA512", 128),
    "b2sum": ("BLAKE2b", 128),
}

NAMES = ["foo", "a b", "a\\b", "x\ny", "-", "*f", "f*", "é", "dir/file", "a) = b", " lead"]


def data(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return b""
    if kind == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if kind == 2:
        return b"hello world\n" * rng.randrange(1, 50)
    if kind == 3:
        return bytes(rng.randrange(256) for _ in range(rng.choice([55, 56, 63, 64, 65, 127, 128, 129, 1000, 70000])))
    if kind == 4:
        return "café\nnaïve\n".encode() + b"\xff\xfe\x00"
    return b"abc"


def digest_hex(tool, payload, bits=None):
    if tool == "b2sum":
        return hashlib.blake2b(payload, digest_size=(bits or 512) // 8).hexdigest()
    name = {"md5sum": "md5", "sha1sum": "sha1", "sha224sum": "sha224", "sha256sum": "sha256",
            "sha384sum": "sha384", "sha512sum": "sha512"}[tool]
    return hashlib.new(name, payload).hexdigest()


def check_list(rng, tool, payload):
    tag, hexlen = TOOLS[tool]
    lines = []
    for _ in range(rng.randrange(1, 6)):
        name = rng.choice(NAMES)
        h = digest_hex(tool, payload)
        if rng.random() < 0.3:
            h = "0" * len(h)
        if rng.random() < 0.2:
            h = h.upper()
        form = rng.randrange(10)
        if form == 0:
            line = f"{tag} ({name}) = {h}"
        elif form == 1:
            line = f"{h} *{name}"
        elif form == 2:
            line = f"# comment {name}"
        elif form == 3:
            line = ""
        elif form == 4:
            line = f"{h[:-1]}  {name}"
        elif form == 5:
            line = "\\" + f"{h}  " + name.replace("\\", "\\\\").replace("\n", "\\n")
        elif form == 6:
            line = f"  {h}\t{name}"
        elif form == 7:
            line = "garbage line"
        elif form == 8 and tool == "b2sum":
            line = f"BLAKE2b-256 ({name}) = {digest_hex(tool, payload, 256)}"
        else:
            line = f"{h}  {name}"
        lines.append(line.replace("\n", " ") if form not in (5,) else line)
    text = "\n".join(lines)
    if rng.random() < 0.8:
        text += "\n"
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return text.encode()


def cases(rng):
    for _ in range(2100):
        tool = rng.choice(list(TOOLS))
        payload = data(rng)
        mode = rng.randrange(12)
        opts = []
        operands = []
        stdin = payload
        if mode < 6:
            for o in ("-b", "-t", "--tag", "-z", "--binary", "--text", "--zero"):
                if rng.random() < 0.15:
                    opts.append(o)
            if tool == "b2sum" and rng.random() < 0.4:
                opts += ["-l", rng.choice(["8", "128", "256", "512", "0", "7", "520", "abc", "+16", "016"])]
            r = rng.random()
            if r < 0.3:
                operands = ["-"]
            elif r < 0.4:
                operands = ["-", "-"]
            elif r < 0.5:
                operands = [rng.choice(NAMES)]
            elif r < 0.55:
                operands = ["-", "nofile"]
        elif mode < 10:
            opts = ["-c"] if rng.random() < 0.8 else ["--check"]
            for o in ("--quiet", "--status", "--strict", "-w", "--warn", "--ignore-missing"):
                if rng.random() < 0.15:
                    opts.append(o)
            if tool == "b2sum" and rng.random() < 0.2:
                opts += ["-l", rng.choice(["256", "512"])]
            stdin = check_list(rng, tool, payload)
            if rng.random() < 0.2:
                operands = ["-"]
        else:
            bad = ["-x", "--bogus", "-c --tag", "-c -z", "-c -b", "--tag -t", "--quiet", "--status",
                   "--strict", "-w", "--ignore-missing", "--st", "-l", "--length=8", "-l 8 -c"]
            opts = rng.choice(bad).split()
        rng.shuffle(opts) if rng.random() < 0.3 and "-l" not in opts else None
        script = " ".join([tool] + [shlex.quote(x) for x in opts + operands])
        yield {"tool": tool, "script": script, "stdin": stdin}
