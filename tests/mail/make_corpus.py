#!/usr/bin/env python3
"""Writes the golden corpus of inbound mail: NNN-name.eml, built with Python's `email`
package, and NNN-name.json, what a script must see of it as Python's `email` package reads
it (the reference): the variables, stdin, the attachments' names, types, sizes and SHA-256.

    python3 tests/mail/make_corpus.py        (rewrites tests/mail/*.eml and *.json)

tests/mail_corpus.rs checks them natively, tests/worker/mail-in.test.mjs in local workerd.
"""
import hashlib
import json
import os
import random
import sys
import zlib
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

HERE = os.path.dirname(os.path.abspath(__file__))
TO = "inbox@mkfifo.localhost"
PNG = bytes(range(256)) * 4 + b"\x89PNG\r\n\x1a\n"
PDF = b"%PDF-1.4\n" + bytes((i * 7) % 256 for i in range(3000)) + b"\n%%EOF\n"


def base(subject, **headers):
    m = EmailMessage(policy=policy.SMTP)
    m["From"] = headers.pop("From", "Ada Lovelace <ada@example.com>")
    m["To"] = headers.pop("To", TO)
    m["Subject"] = subject
    m["Date"] = "Mon, 30 Nov 2026 02:00:00 +0000"
    m["Message-ID"] = headers.pop("Message_ID", f"<{zlib.crc32(subject.encode())}.corpus@example.com>")
    for k, v in headers.items():
        m[k.replace("_", "-")] = v
    return m


def alternative():
    m = base("Hello FIFO", Cc="Bob <bob@example.org>, carol@example.net", Reply_To="replies@example.com",
             X_Mailer="=?utf-8?q?Gr=C3=BC=C3=9Fe_Mailer?= 1.0")
    m.set_content("Hello, FIFO. Grüße aus Köln.\nSecond line.\n", cte="quoted-printable")
    m.add_alternative("<p>Hello, <b>FIFO</b>. Grüße.</p>\n", subtype="html")
    return m.as_bytes()


def nested_mixed():
    m = base("Report attached", In_Reply_To="<q1@example.com>", References="<q0@example.com> <q1@example.com>")
    m.set_content("See the report.\n")
    m.add_alternative("<p>See the <i>report</i>.</p>\n", subtype="html")
    m.add_attachment(PDF, maintype="application", subtype="pdf", filename="report.pdf")
    m.add_attachment(PNG, maintype="image", subtype="png", filename="chart.png")
    inner = base("The forwarded one", Message_ID="<inner@example.com>")
    inner.set_content("I am inside.\n")
    m.add_attachment(inner)
    m.add_attachment("a,b\n1,2\n", subtype="csv", filename="data.csv")
    return m.as_bytes()


def rfc2231_names():
    m = base("Names")
    m.set_content("Files with names.\n")
    m.add_attachment(PDF, maintype="application", subtype="pdf", filename="€ rates 2026.pdf")
    m.add_attachment(PNG, maintype="image", subtype="png", filename="naïve café.png")
    m.add_attachment(b"one", maintype="application", subtype="octet-stream", filename="same.bin")
    m.add_attachment(b"two", maintype="application", subtype="octet-stream", filename="same.bin")
    return m.as_bytes()


def charset_body(subject, text, charset, cte):
    m = base(subject)
    m.set_content(text.encode(charset), maintype="text", subtype="plain", cte=cte)
    m.set_param("charset", charset)
    return m.as_bytes()


def subjects():
    # Encoded words in several charsets in one Subject (RFC 2047).
    raw = (
        "From: =?iso-8859-1?q?Andr=E9?= <andre@example.com>\r\n"
        f"To: {TO}\r\n"
        "Subject: =?utf-8?b?R3LDvMOfZQ==?= =?iso-8859-1?q?=E0_bient=F4t?=\r\n"
        " =?shift_jis?b?k/qWe4zq?= =?windows-1252?q?=80_=93_ok?=\r\n"
        "Date: Mon, 30 Nov 2026 02:00:00 +0000\r\n"
        "Message-ID: <subjects@example.com>\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=us-ascii\r\n"
        "\r\n"
        "Subjects in four charsets.\r\n"
    )
    return raw.encode()


def base64_body():
    m = base("Base64 text")
    m.set_content("Line one ✓\nLine two ✓\n", cte="base64")
    return m.as_bytes()


def html_only():
    m = base("Only HTML")
    m.set_content("<html><body><h1>Price</h1><div class=\"price\"><span>42.00</span></div></body></html>\n",
                  subtype="html")
    return m.as_bytes()


def no_text():
    m = base("Only a file")
    m.make_mixed()
    att = EmailMessage(policy=policy.SMTP)
    att.set_content(PDF, maintype="application", subtype="pdf", filename="only.pdf")
    m.attach(att)
    return m.as_bytes()


def text_attachment_latin1():
    m = base("Latin-1 file")
    m.set_content("The file is in Latin-1.\n")
    m.add_attachment("café;crème\n".encode("iso-8859-1"), maintype="text", subtype="plain",
                     filename="menu.txt", params={"charset": "iso-8859-1"})
    return m.as_bytes()


def broken():
    # A multipart whose closing boundary never comes, with damaged base64 and a header
    # line without a colon: a reader must still get the text.
    raw = (
        "From: Broken Sender <broken@example.com>\r\n"
        f"To: {TO}\r\n"
        "Subject: broken\r\n"
        "Date: Mon, 30 Nov 2026 02:00:00 +0000\r\n"
        "Message-ID: <broken@example.com>\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: multipart/mixed; boundary=\"zz\"\r\n"
        "\r\n"
        "--zz\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "\r\n"
        "The text survives.\r\n"
        "--zz\r\n"
        "Content-Type: application/octet-stream; name=\"cut.bin\"\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        "\r\n"
        "AAEC\r\n"
    )
    return raw.encode()


def two_texts():
    # Text, a picture, more text: as some mail programs split a message.
    m = base("Two texts")
    m.make_mixed()
    for part in ("First words.\n", PNG, "Last words.\n"):
        p = EmailMessage(policy=policy.SMTP)
        if isinstance(part, bytes):
            p.set_content(part, maintype="image", subtype="png", disposition="inline")
        else:
            p.set_content(part)
        m.attach(p)
    return m.as_bytes()


def json_body():
    m = base("JSON inside", Auto_Submitted="no")
    m.set_content('{"movie": {"id": 7, "title": "Solaris"}}\n')
    return m.as_bytes()


CASES = [
    ("alternative", alternative),
    ("nested-mixed", nested_mixed),
    ("rfc2231-names", rfc2231_names),
    ("subjects", subjects),
    ("qp-iso-8859-1", lambda: charset_body("Latin-1", "Café crème, à bientôt.\nÇa va ?\n", "iso-8859-1", "quoted-printable")),
    ("windows-1252", lambda: charset_body("Windows", "€ 5 – “quoted” …\n", "windows-1252", "quoted-printable")),
    ("shift-jis", lambda: charset_body("Japanese", "日本語のテキスト。\nこんにちは\n", "shift_jis", "base64")),
    ("base64-utf8", base64_body),
    ("html-only", html_only),
    ("no-text", no_text),
    ("text-attachment", text_attachment_latin1),
    ("broken", broken),
    ("json-body", json_body),
    ("two-texts", two_texts),
]

NAMED = {"from", "cc", "reply-to", "subject", "message-id", "date", "in-reply-to"}


def ids(value):
    return [w.strip("<>") for w in str(value or "").split() if w.strip("<>")]


def var_name(header):
    return "".join(c.upper() if c.isascii() and c.isalnum() else "_" for c in header)


def expected(raw):
    """What a script sees of `raw`, as Python's email package reads it."""
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    # Structured MIME headers are given as written (unfolded), not as Python rewrites them.
    as_written = BytesParser(policy=policy.compat32).parsebytes(raw)
    frm = msg["From"].addresses[0] if msg["From"] and msg["From"].addresses else None
    addrs = lambda h: ", ".join(a.addr_spec for a in msg[h].addresses) if msg[h] else ""
    refs = ids(msg["References"])
    irt = ids(msg["In-Reply-To"])
    v = {
        "FROM": frm.addr_spec if frm else "",
        "FROM_NAME": frm.display_name if frm else "",
        "TO": TO,
        "CC": addrs("Cc"),
        "REPLY_TO": addrs("Reply-To"),
        "SUBJECT": str(msg["Subject"] or ""),
        "MESSAGE_ID": (ids(msg["Message-ID"]) or [""])[0],
        "DATE": str(msg["Date"] or ""),
        "IN_REPLY_TO": " ".join(irt),
    }
    for name, value in msg.items():
        if name.lower() in NAMED:
            continue
        key = "MAIL_" + var_name(name)
        if name.lower() in ("content-type", "content-disposition"):
            value = " ".join(as_written[name].split())
        v[key] = v[key] + "\n" + str(value) if key in v else str(value)
    stdin, html, atts = None, None, []

    def walk(part):
        nonlocal stdin, html
        if part.get_content_type() == "message/rfc822" and part is not msg:
            leaf(part)
            return
        if part.is_multipart():
            for p in part.get_payload():
                walk(p)
            return
        leaf(part)

    def leaf(part):
        nonlocal stdin, html
        ctype = part.get_content_type()
        name = part.get_filename()
        disposed = part.get_content_disposition() == "attachment"
        first = (ctype == "text/plain" and stdin is None) or (ctype == "text/html" and html is None)
        if not name and not disposed and first:
            text = part.get_content().replace("\r\n", "\n")
            if ctype == "text/plain":
                stdin = text
            else:
                html = text
            return
        if ctype == "message/rfc822":
            data = None
        else:
            data = part.get_payload(decode=True)
        atts.append({
            "name": name or f"attachment-{len(atts) + 1}",
            "type": ctype,
            "size": None if data is None else len(data),
            "sha256": None if data is None else hashlib.sha256(data).hexdigest(),
        })

    walk(msg)
    seen = set()
    for a in atts:  # duplicate names, as the parser makes them unique
        if a["name"] in seen:
            stem, dot, ext = a["name"].rpartition(".")
            n = 2
            while f"{stem} ({n}).{ext}" in seen:
                n += 1
            a["name"] = f"{stem} ({n}).{ext}"
        seen.add(a["name"])
    content_type = "text/plain; charset=utf-8" if stdin is not None else "text/html; charset=utf-8" if html is not None else ""
    return {"envelope_to": TO, "vars": v, "stdin": stdin if stdin is not None else html or "",
            "content_type": content_type, "attachments": atts}


def main():
    for i, (name, make) in enumerate(CASES, 1):
        random.seed(i)  # MIME boundaries come from `random`: the same files every run
        raw = make()
        stem = os.path.join(HERE, f"{i:03d}-{name}")
        with open(stem + ".eml", "wb") as f:
            f.write(raw)
        with open(stem + ".json", "w", encoding="utf-8") as f:
            json.dump(expected(raw), f, indent=2, ensure_ascii=False)
            f.write("\n")
    print(f"{len(CASES)} messages in {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main()
