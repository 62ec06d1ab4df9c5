#!/usr/bin/env python3
"""Writes a ListObjectsV2 answer as JSON with N keys under a prefix (default 1000), for
bench/s3-lsjson.jq: `python3 bench/gen_s3_listing.py 1000 > listing.json`."""
import json
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
rng = random.Random(1000)
exts = ["txt", "json", "png", "md", "gz", "", "jpg", "csv", "html", "bin"]
contents = [{"Key": "photos/2024/", "LastModified": "2024-01-01T00:00:00.000Z",
             "ETag": '"d41d8cd98f00b204e9800998ecf8427e"', "Size": 0}]
for i in range(n - 1):
    ext = rng.choice(exts)
    name = "file-%05d%s%s" % (i, rng.choice(["", " copy", "&more", "-é"]), "." + ext if ext else "")
    ms = rng.randint(0, 999)
    contents.append({
        "Key": "photos/2024/" + name,
        "LastModified": "2024-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
            rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
            rng.randint(0, 59), ms),
        "ETag": '"%032x"' % rng.getrandbits(128),
        "Size": rng.randint(0, 10 ** 9),
    })
prefixes = [{"Prefix": "photos/2024/album-%02d/" % i} for i in range(20)]
json.dump({"Name": "bucket", "Prefix": "photos/2024/", "KeyCount": n + len(prefixes),
           "MaxKeys": 1000, "IsTruncated": False, "Contents": contents,
           "CommonPrefixes": prefixes}, sys.stdout)
sys.stdout.write("\n")
