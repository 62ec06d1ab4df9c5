#!/usr/bin/env python3
"""Passes `wrangler dev` output through and, for each message the local send_email
binding writes, prints who it is to, its subject and any sign-in link in it, so that a
local user can click the link. The newest sign-in link is also written to LINK_FILE.

    npx wrangler dev ... 2>&1 | python3 scripts/mail-links.py LINK_FILE
"""
import re
import sys
from email import policy
from email.parser import BytesParser

# wrangler logs the path on the same line or on the next one.
SENT = re.compile(r"send_email binding called with the following message:")
EML = re.compile(r"(\S+\.eml)\s*$")
SIGNIN_LINK = re.compile(r"https?://\S+/_/signin/\S+")


def describe(path):
    """The lines to print for the message at `path`, and its sign-in link if any."""
    try:
        with open(path, "rb") as f:
            msg = BytesParser(policy=policy.default).parse(f)
    except OSError as err:
        return [f"  (could not read {path}: {err.strerror})"], None
    body = msg.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""
    link = next(iter(SIGNIN_LINK.findall(text)), None)
    lines = [f"  mail to {msg['To']}: {msg['Subject']}"]
    if link:
        lines.append(f"  sign in: {link}")
    return lines, link


def main(link_file):
    announced = False
    for line in sys.stdin:
        sys.stdout.write(line)
        sent_here = bool(SENT.search(line))
        found = EML.search(line) if announced or sent_here else None
        announced = sent_here and not found
        if found:
            lines, link = describe(found.group(1))
            sys.stdout.write("\n".join(lines) + "\n")
            if link:
                with open(link_file, "w") as f:
                    f.write(link + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
