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
    # AWS Signature V4's key derivation, chained through hex keys as envelopes do it.
    for _ in range(60):
        secret = "".join(rng.choice("ABCDEFabcdef0123456789/+") for _ in range(40))
        date = f"2026{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d}"
        region = rng.choice(["us-east-1", "eu-west-3", "auto"])
        sts = f"AWS4-HMAC-SHA256\\n{date}T000000Z\\n{date}/{region}/s3/aws4_request\\n" + "%064x" % rng.getrandbits(256)

        def chain(mac_text, mac_hex, strip):
            return (f"k=$(printf %s {date} | {mac_text(f'AWS4{secret}')} | {strip}); "
                    f"k=$(printf %s {region} | {mac_hex('$k')} | {strip}); "
                    f"k=$(printf %s s3 | {mac_hex('$k')} | {strip}); "
                    f"k=$(printf %s aws4_request | {mac_hex('$k')} | {strip}); "
                    f"printf '{sts}' | {mac_hex('$k')}")

        ours = chain(lambda k: f"hmac -k '{k}'", lambda k: f'hmac -K "{k}"', "sed 's/ .*//'")
        ref = chain(lambda k: f"openssl dgst -sha256 -mac HMAC -macopt 'key:{k}'",
                    lambda k: f'openssl dgst -sha256 -mac HMAC -macopt "hexkey:{k}"',
                    "sed 's/^.*= //'") + " | sed 's/^.*= //; s/$/  -/'"
        yield {"tool": "hmac", "script": ours, "ref": ref, "stdin": b""}
