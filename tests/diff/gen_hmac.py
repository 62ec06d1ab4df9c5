"""hmac: `hmac -K HEX | -k KEY [ALG]` against `openssl dgst -ALG -mac HMAC -macopt ...`
rewritten by sed to `HEX  -`; keys of every length (shorter and longer than the block),
odd and bad hex, `:` separators, empty keys (both refuse them), unknown algorithms."""
import shlex

ALGS = ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"]


def payload(rng):
    k = rng.randrange(5)
    if k == 0:
        return b""
    if k == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    if k == 2:
        return b"GET\n/\n\nhost:example.com\n" * rng.randrange(1, 20)
    if k == 3:
        return bytes(rng.randrange(256) for _ in range(rng.choice([63, 64, 65, 127, 128, 129, 5000])))
    return b"abc"


def hexkey(rng):
    r = rng.random()
    n = rng.choice([1, 16, 20, 32, 63, 64, 65, 100, 128, 129, 200])
    h = "".join(rng.choice("0123456789abcdef") for _ in range(2 * n))
    if r < 0.1:
        return h.upper()
    if r < 0.15:
        return h[:-1]  # odd
    if r < 0.2:
        return h[:4] + "zz" + h[6:]
    if r < 0.25:
        return ":".join(h[i:i + 2] for i in range(0, len(h), 2)) + ":"
    if r < 0.28:
        return ""
    return h


def textkey(rng):
    r = rng.random()
    if r < 0.05:
        return ""
    n = rng.choice([1, 5, 32, 64, 65, 130])
    return "".join(rng.choice("abcdefXYZ0123456789-_.!@#$%^&*()é") for _ in range(n))


def cases(rng):
    for _ in range(1200):
        data = payload(rng)
        alg = rng.choice(ALGS + [None, None])
        if rng.random() < 0.6:
            key = hexkey(rng)
            ours_key = ["-K", key]
            macopt = f"hexkey:{key}"
        else:
            key = textkey(rng)
            ours_key = ["-k", key]
            macopt = f"key:{key}"
        args = ours_key + ([alg] if alg else [])
        oalg = alg or "sha256"
        if rng.random() < 0.03:
            args = ours_key + ["sha3"]
            oalg = "sha3"
        script = "hmac " + " ".join(shlex.quote(a) for a in args)
        ref = ("set -o pipefail; openssl dgst -" + oalg + " -mac HMAC -macopt " + shlex.quote(macopt)
               + " | sed 's/^.*= //; s/$/  -/'")
        yield {"tool": "hmac", "script": script, "ref": ref, "stdin": data}
    # No key at all.
    for alg in ALGS:
        yield {"tool": "hmac", "script": f"hmac {alg}", "stdin": b"x",
               "ref": f"set -o pipefail; openssl dgst -{alg} -mac HMAC | sed 's/^.*= //; s/$/  -/'"}
