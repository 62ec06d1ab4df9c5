//! The mail path never panics: messages made from fragments of MIME (headers, encoded
//! words, RFC 2231 parameters, boundaries, transfer encodings, charsets; valid and broken)
//! and damaged copies of the golden corpus (tests/mail) are read by the inbound parser,
//! and what it makes of them is built into a message again. Every message gives a Request:
//! variables that are text, and `PARSE_ERROR` or a `FROM` variable.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use mkfifo::mail::{inbound, outbound};
use mkfifo::seeded::Rng;

const CASES: usize = 4000;

const PIECES: &[&str] = &[
    "From: ",
    "To: ",
    "Cc: ",
    "Subject: ",
    "Message-ID: ",
    "References: ",
    "In-Reply-To: ",
    "Reply-To: ",
    "Date: ",
    "Auto-Submitted: auto-replied",
    "Content-Type: ",
    "Content-Transfer-Encoding: ",
    "Content-Disposition: attachment; ",
    "MIME-Version: 1.0",
    "multipart/mixed; boundary=\"b\"",
    "multipart/alternative; boundary=b2",
    "text/plain",
    "text/html",
    "message/rfc822",
    "application/pdf",
    "; charset=",
    "utf-8",
    "iso-8859-1",
    "shift_jis",
    "windows-1252",
    "x-unknown",
    "\"",
    "'",
    "name=",
    "filename*=UTF-8''%E2%82%AC.pdf",
    "filename*0*=utf-8''a; filename*1=b",
    "=?utf-8?b?R3LDvMOfZQ==?=",
    "=?iso-8859-1?q?=E9t=E9?=",
    "=?shift_jis?b?k/qWe4zq?=",
    "=?x?q?broken",
    "=?utf-8?b?!!!?=",
    "base64",
    "quoted-printable",
    "=C3=A9",
    "=\r\n",
    "=ZZ",
    "AAEC",
    "////",
    "====",
    "\r\n",
    "\n",
    "\r\n\r\n",
    " ",
    "\t",
    "--b\r\n",
    "--b--\r\n",
    "--b2\r\n",
    "--b2--",
    "<a@x>",
    "<",
    ">",
    "@",
    "Ada <ada@example.com>",
    "\"Ada, L\" <ada@x>",
    "group: a@x, b@y;",
    ":",
    ";",
    ",",
    "\u{e9}",
    "\u{65e5}",
    "\0",
    "\x7f",
    "<p>hi</p>",
    "{\"a\":1}",
];

fn survives(raw: &[u8]) {
    let run = catch_unwind(AssertUnwindSafe(|| {
        let mail = inbound::parse(
            raw,
            "env@example.com",
            "inbox@mkfifo.localhost",
            "mkfifo.localhost",
        );
        assert!(
            mail.vars
                .iter()
                .any(|(k, _)| k == "FROM" || k == "PARSE_ERROR"),
            "no FROM nor PARSE_ERROR"
        );
        for a in &mail.attachments {
            assert!(
                !a.name.is_empty() && !a.name.contains('\n'),
                "attachment name {:?}",
                a.name
            );
        }
        // What came in can go out: the builder takes any text and bytes.
        let headers: Vec<(String, String)> = mail
            .vars
            .iter()
            .filter(|(k, _)| k.starts_with("MAIL_X"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .chain([("Subject".to_string(), mail.subject.clone())])
            .collect();
        let letter = outbound::Letter {
            fifo: "inbox",
            domain: "mkfifo.localhost",
            to: "ada@example.com",
            headers: &headers,
            body: &mail.stdin,
            thread: Some(&mail.thread),
            message_id: outbound::message_id("r", 0, 1, "mkfifo.localhost"),
            ..outbound::Letter::default()
        };
        if let Ok(built) = outbound::build(&letter) {
            assert!(built.raw.is_ascii());
        }
    }));
    assert!(
        run.is_ok(),
        "the mail path panicked on {:?}",
        String::from_utf8_lossy(raw)
    );
}

#[test]
fn generated_messages() {
    let mut rng = Rng(0x6d61_696c);
    for _ in 0..CASES {
        let n = 1 + rng.below(60);
        let raw: String = (0..n).map(|_| rng.pick(PIECES)).collect();
        survives(raw.as_bytes());
    }
}

#[test]
fn damaged_corpus_messages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail");
    let mut rng = Rng(0x636f_7270);
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "eml") {
            continue;
        }
        files += 1;
        let raw = std::fs::read(&path).unwrap();
        for _ in 0..100 {
            let mut bytes = raw.clone();
            match rng.below(3) {
                // Cut short anywhere.
                0 => bytes.truncate(rng.below(bytes.len() + 1)),
                // A few bytes overwritten with anything.
                1 => {
                    for _ in 0..1 + rng.below(8) {
                        let i = rng.below(bytes.len());
                        bytes[i] = rng.next_u64() as u8;
                    }
                }
                // A slice repeated or dropped.
                _ => {
                    let a = rng.below(bytes.len());
                    let b = (a + rng.below(200)).min(bytes.len());
                    let piece = bytes[a..b].to_vec();
                    if rng.chance(50) {
                        bytes.splice(a..a, piece);
                    } else {
                        bytes.drain(a..b);
                    }
                }
            }
            survives(&bytes);
        }
    }
    assert!(files >= 13, "{files} corpus files");
}

/// Base64 in lines of any length, with CRLF or LF, padded or not, a space here and there:
/// the attachment's bytes are what was encoded (the vendored mail-parser decodes whole
/// clean lines four characters at a time, and the rest a byte at a time).
#[test]
fn base64_attachments_decode_in_every_line_shape() {
    let mut rng = Rng(0x6236_3400);
    for case in 0..600 {
        let len = rng.below(400);
        let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let b64 = data_encoding::BASE64.encode(&data);
        let width = [3, 4, 5, 8, 60, 63, 64, 76, 77, 1000][rng.below(10)];
        let eol = if rng.chance(50) { "\r\n" } else { "\n" };
        let mut body = String::new();
        for (i, chunk) in b64.as_bytes().chunks(width).enumerate() {
            if i > 0 && rng.chance(5) {
                body.push(' ');
            }
            body.push_str(std::str::from_utf8(chunk).unwrap());
            body.push_str(eol);
        }
        let raw = format!(
            "From: a@example.com{eol}Message-ID: <{case}@example.com>{eol}\
             Content-Type: multipart/mixed; boundary=\"b\"{eol}{eol}--b{eol}\
             Content-Type: text/plain{eol}{eol}text{eol}--b{eol}\
             Content-Type: application/octet-stream; name=\"d.bin\"{eol}\
             Content-Transfer-Encoding: base64{eol}{eol}{body}--b--{eol}"
        );
        let mail = inbound::parse(raw.as_bytes(), "", "", "mkfifo.localhost");
        assert_eq!(mail.attachments.len(), 1, "case {case}");
        assert_eq!(
            mail.attachments[0].bytes, data,
            "case {case}: width {width}, {eol:?}"
        );
    }
}
