"""gzip gunzip zcat: compression at every level (-1..-9, --fast, --best, -n, -N, -c) of
text, random, repetitive, empty and large inputs, with sizes around the 32 KiB window
boundaries, compared byte for byte with GNU gzip; decompression of single and
multi-member streams, headers with names, comments and extra fields, trailing zeros and
garbage, truncated streams, bad CRCs and lengths, corrupted data, not-gzip input, with
-d -c -t -q -f -l; bad options and missing files. --rsyncable at every level over empty
to multi-MiB inputs (random, text, binary, zeros, long runs), with its cuts forced onto
the end of the input and next to the ends of ordinary blocks."""
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


def rsync_payload(rng):
    """Input for --rsyncable: the kinds above, long runs of one byte, and sizes up to a
    few MiB (a cut comes every 4 KiB or so in random data, after every match in a run)."""
    k = rng.randrange(8)
    if k == 0:
        return bytes([rng.choice([0, 0, 1, 255, rng.randrange(256)])]) * rng.choice(
            [rng.randrange(1, 5000), rng.randrange(4090, 4400), rng.randrange(1, 400000)])
    if k == 1:
        return rng.randbytes(rng.choice([rng.randrange(1, 9000), rng.randrange(1, 300000)]))
    if k == 2:
        # Runs, words and noise, up to 3 MiB.
        parts, n, total = [], rng.randrange(1, 3_000_000), 0
        while total < n:
            r = rng.randrange(4)
            if r == 0:
                p = bytes([rng.randrange(256)]) * rng.randrange(1, 20000)
            elif r == 1:
                p = b" ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 3000)))
            elif r == 2:
                p = rng.randbytes(rng.randrange(1, 6000))
            else:
                src = source()
                o = rng.randrange(len(src) - 70000)
                p = src[o:o + rng.randrange(1, 70000)]
            parts.append(p)
            total += len(p)
        return b"".join(parts)[:n]
    if k == 3:
        src = source()
        n = rng.randrange(1, len(src))
        o = rng.randrange(len(src) - n + 1)
        return src[o:o + n]
    return payload(rng)


def rsync_cut_at(data, end):
    """`data` changed so that the 4096 bytes before offset `end` sum to a multiple of
    4096: --rsyncable then wants a cut there."""
    if end < 4097 or end > len(data):
        return data
    d = bytearray(data)
    need = -sum(d[end - 4096:end]) % 4096
    i = end - 4096
    while need:
        add = min(need, 255 - d[i])
        d[i] += add
        need -= add
        i += 1
    return bytes(d)


def rsync_cases(rng):
    lvls = ["-1", "-2", "-3", "-4", "-5", "-6", "-7", "-8", "-9", "--fast", "--best", ""]
    for _ in range(150):
        data = rsync_payload(rng)
        lvl = rng.choice(lvls)
        opts = rng.choice(["--rsyncable", "--rsyncable", "--rsyncable -n", "-nc --rsyncable",
                           "--rsync", "--rsyncable -N"])
        script = " ".join(x for x in ["gzip", opts, lvl] if x)
        if len(data) > 200_000:
            script += rng.choice([" | sha256sum", " | tail -c 3000"])
        yield {"tool": "gzip", "script": script, "stdin": data}
    # A cut at the end of the input, or just before it; or at, or next to, the end of a
    # block the level would make anyway (32 Ki symbols in random data).
    for _ in range(100):
        kind = rng.randrange(3)
        if kind == 0:
            data = rng.randbytes(rng.randrange(4097, 120000))
        elif kind == 1:
            data = b" ".join(rng.choice(WORDS) for _ in range(rng.randrange(2000, 30000)))
        else:
            src = source()
            o = rng.randrange(len(src) - 150000)
            data = src[o:o + rng.randrange(4097, 150000)]
        if rng.random() < 0.5:
            end = len(data) - rng.choice([0, 0, 1, 2, 3, 258])
        else:
            end = rng.choice([32767, 32768, 65535, 65536, 65274, 98042]) + rng.randrange(-3, 40)
        data = rsync_cut_at(data, end)
        script = f"gzip --rsyncable {rng.choice(lvls)}".rstrip()
        yield {"tool": "gzip", "script": script, "stdin": data}
    for _ in range(40):
        data = rsync_payload(rng)
        lvl = rng.choice(["-1", "-4", "-6", "-9"])
        script = rng.choice([
            f"gzip --rsyncable {lvl} | gunzip | sha256sum",
            f"gzip --rsyncable {lvl} | gzip -l",
            f"gzip --rsyncable {lvl} | gzip -t; echo $?",
            f"gzip --rsyncable {lvl} | gzip -dc --rsyncable | md5sum",
            f"gzip --rsyncable -v {lvl} | wc -c",
        ])
        yield {"tool": "gzip", "script": script, "stdin": data}


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
    yield from rsync_cases(rng)
