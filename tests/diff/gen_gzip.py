"""gzip gunzip zcat: compression at every level (-1..-9, --fast, --best, -n, -N, -c) of
text, random, repetitive, empty and large inputs, with sizes around the 32 KiB window
boundaries, compared byte for byte with GNU gzip; decompression of single and
multi-member streams, headers with names, comments and extra fields, trailing zeros and
garbage, truncated streams, bad CRCs and lengths, corrupted data, not-gzip input, with
-d -c -t -q -f -l; bad options and missing files."""
import gzip as pygzip
import struct
import zlib

WORDS = [b"the", b"quick", b"brown", b"fox", b"jumps", b"over", b"lazy", b"dog", b"\n",
         b"lorem", b"ipsum", b"dolor", b"sit", b"amet", b"{\"id\": 1}", b"\t"]

_SRC = None


def source():
    global _SRC
    if _SRC is None:
        try:
            _SRC = open("/usr/bin/bash", "rb").read()[:2_000_000]
        except OSError:
            _SRC = bytes(range(256)) * 4000
    return _SRC


def payload(rng):
    k = rng.randrange(9)
    if k == 0:
        return b""
    if k == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 100)))
    if k == 2:
        return b" ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 20000)))
    if k == 3:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(100, 40000)))
    if k == 4:
        unit = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
        return unit * rng.randrange(1, 20000)
    if k == 5:
        src = source()
        n = rng.choice([rng.randrange(65000, 66000), rng.randrange(130500, 131500),
                        rng.randrange(1, 300000)])
        o = rng.randrange(max(1, len(src) - n))
        return src[o:o + n]
    if k == 6:
        parts = []
        while sum(map(len, parts)) < 20000:
            r = rng.randrange(3)
            if r == 0:
                parts.append(bytes([rng.randrange(256)]) * rng.randrange(1, 600))
            elif r == 1:
                parts.append(rng.choice(WORDS) * rng.randrange(1, 50))
            else:
                parts.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))))
        return b"".join(parts)
    if k == 7:
        return bytes(rng.choice(b"ab") for _ in range(rng.randrange(1, 70000)))
    return "naïve café\n".encode() * rng.randrange(1, 3000)


def member(rng, data, name=None, comment=None, extra=None, hcrc=False):
    flags = 0
    head = b""
    if extra is not None:
        flags |= 4
        head += struct.pack("<H", len(extra)) + extra
    if name is not None:
        flags |= 8
        head += name + b"\0"
    if comment is not None:
        flags |= 16
        head += comment + b"\0"
    c = zlib.compressobj(rng.randrange(0, 10), zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    h = bytes([0x1F, 0x8B, 8, flags]) + struct.pack("<I", rng.choice([0, 1700000000])) + bytes([0, 3]) + head
    if hcrc:
        h = bytes([h[0], h[1], h[2], h[3] | 2]) + h[4:]
        h += struct.pack("<H", zlib.crc32(h) & 0xFFFF)
    return h + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def stream(rng):
    k = rng.randrange(14)
    data = payload(rng)
    if k == 0:
        return pygzip.compress(data, mtime=0)
    if k == 1:
        return member(rng, data) + member(rng, payload(rng))
    if k == 2:
        return member(rng, data, name=b"file.txt", comment=b"a comment", extra=b"ab\x02\x00xy",
                      hcrc=rng.random() < 0.5)
    if k == 3:
        return member(rng, data) + b"\0" * rng.randrange(1, 20)
    if k == 4:
        return member(rng, data) + rng.choice([b"garbage", b"\0\0x", b"\x1f", b"\x1f\x8b",
                                               b"\x1f\x8b\x08", b"\x1fx", b"\n"])
    if k == 5:
        s = member(rng, data)
        return s[:rng.randrange(len(s))]
    if k == 6:
        s = bytearray(member(rng, data))
        s[-8 + rng.randrange(8)] ^= 1 << rng.randrange(8)
        return bytes(s)
    if k == 7:
        s = bytearray(member(rng, data))
        if len(s) > 20:
            s[10 + rng.randrange(len(s) - 18)] ^= 1 << rng.randrange(8)
        return bytes(s)
    if k == 8:
        return data if data[:2] != b"\x1f\x8b" else b"x" + data
    if k == 9:
        return b""
    if k == 10:
        s = bytearray(member(rng, data))
        s[rng.choice([2, 3])] = rng.choice([0, 7, 9, 0x20, 0x40, 0x80])
        return bytes(s)
    return member(rng, data)


def cases(rng):
    for _ in range(600):
        data = payload(rng)
        opts = rng.choice(["-n", "-n", "", "-c", "-nc", "-N", "-n -N", "-N -n", "-"])
        lvl = rng.choice(["-1", "-2", "-3", "-4", "-5", "-6", "-7", "-8", "-9", "--fast",
                          "--best", "", "-19", "-91"])
        script = " ".join(x for x in ["gzip", opts, lvl] if x)
        if rng.random() < 0.1:
            script += rng.choice([" -k", " -f", " -q", " -v", " -kf"])
        yield {"tool": "gzip", "script": script, "stdin": data}
    for _ in range(1100):
        s = stream(rng)
        tool = rng.choice(["gzip", "gunzip", "zcat"])
        base = {"gzip": ["gzip -d", "gzip -dc", "gzip --decompress", "gzip -d -", "gzip -t",
                         "gzip -dq", "gzip -df", "gzip -l", "gzip -tv"],
                "gunzip": ["gunzip", "gunzip -c", "gunzip -q", "gunzip -f", "gunzip -t",
                           "gunzip -l"],
                "zcat": ["zcat", "zcat -f", "zcat -q", "zcat -", "zcat - -"]}[tool]
        yield {"tool": tool, "script": rng.choice(base), "stdin": s}
    # Round trips through pipes.
    for _ in range(150):
        data = payload(rng)
        lvl = rng.choice(["-1", "-3", "-4", "-6", "-9"])
        script = rng.choice([
            f"gzip {lvl} | gunzip",
            f"gzip {lvl} | zcat | sha256sum",
            f"gzip {lvl} | gzip -d -c | md5sum",
            f"gzip {lvl} | gzip {lvl} | zcat | zcat | sha256sum",
            f"gzip {lvl} | gzip -t; echo $?",
            f"gzip {lvl} | gzip -l",
            f"(gzip {lvl}; printf garbage) | gunzip | sha1sum",
        ])
        yield {"tool": "gzip", "script": script, "stdin": data}
    for script in ["gzip foo", "gzip -c foo", "gzip -d foo", "zcat foo", "gunzip foo.gz",
                   "gzip -0", "gzip -x", "gzip --bogus", "gzip - foo", "zcat foo -",
                   "gzip -S .z", "gzip -r", "gzip -a -d", "gzip -m", "gzip -M"]:
        yield {"tool": script.split()[0], "script": script, "stdin": pygzip.compress(b"hello\n", mtime=0)}
