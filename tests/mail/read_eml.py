#!/usr/bin/env python3
"""Reads a message as Python's `email` package does and prints it as JSON: its headers
(decoded), its text and HTML bodies, its attachments (name, type, size, SHA-256).

    python3 tests/mail/read_eml.py FILE.eml

The Worker's tests read the .eml files of local send_email with it.
"""
import hashlib
import json
import sys
from email import policy
from email.parser import BytesParser


def main(path):
    with open(path, "rb") as f:
        raw = f.read()
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    headers = {}
    for name, value in msg.items():
        headers.setdefault(name.lower(), []).append(str(value))
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    # Line ends are CRLF in a message (RFC 5322); a script's text has LF.
    content = lambda part: part.get_content().replace("\r\n", "\n") if part is not None else None
    attachments = []
    for part in msg.iter_attachments():
        data = part.get_payload(decode=True) or b""
        attachments.append({
            "name": part.get_filename(),
            "type": part.get_content_type(),
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "base64": __import__("base64").b64encode(data).decode(),
        })
    print(json.dumps({
        "headers": headers,
        "text": content(text),
        "html": content(html),
        "attachments": attachments,
        "defects": [type(d).__name__ for p in msg.walk() for d in p.defects],
        "ascii": all(b < 128 for b in raw),
    }))


if __name__ == "__main__":
    main(sys.argv[1])
