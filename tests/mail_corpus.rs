//! The golden corpus of inbound mail (tests/mail/NNN-name.eml, built by Python's `email`
//! package): what a script sees of each message, compared with what Python's `email`
//! package reads in it (NNN-name.json, written by tests/mail/make_corpus.py). A mismatch
//! writes NNN-name.failed with what the parser gave.

use std::path::Path;

use mkfifo::mail::inbound;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

fn actual(mail: &inbound::Mail, expected: &Value) -> Value {
    let vars: serde_json::Map<String, Value> = mail
        .vars
        .iter()
        .filter(|(k, _)| k != "ATTACHMENTS")
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let attachments: Vec<Value> = mail
        .attachments
        .iter()
        .zip(expected["attachments"].as_array().into_iter().flatten().map(Some).chain(std::iter::repeat(None)))
        .map(|(a, want)| {
            // A nested message is compared by its content, not its bytes: Python
            // writes it anew.
            let whole = want.is_some_and(|w| w["sha256"].is_null());
            json!({
                "name": a.name,
                "type": a.content_type,
                "size": if whole { Value::Null } else { json!(a.bytes.len()) },
                "sha256": if whole { Value::Null } else { json!(data_encoding::HEXLOWER.encode(&Sha256::digest(&a.bytes))) },
            })
        })
        .collect();
    json!({
        "envelope_to": expected["envelope_to"],
        "vars": vars,
        "stdin": String::from_utf8_lossy(&mail.stdin),
        "content_type": mail.content_type,
        "attachments": attachments,
    })
}

#[test]
fn corpus_matches_python_email() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    names.sort();
    let (mut run, mut failed) = (0, Vec::new());
    for eml in &names {
        let raw = std::fs::read(eml).unwrap();
        let expected: Value =
            serde_json::from_slice(&std::fs::read(eml.with_extension("json")).unwrap()).unwrap();
        let to = expected["envelope_to"].as_str().unwrap();
        let mail = inbound::parse(&raw, "sender@example.com", to, "mkfifo.localhost");
        let got = actual(&mail, &expected);
        let listing = mail
            .vars
            .iter()
            .find(|(k, _)| k == "ATTACHMENTS")
            .map(|(_, v)| v.clone());
        let want_listing: Vec<String> = mail
            .attachments
            .iter()
            .map(|a| format!("{}\t{}\t{}", a.name, a.content_type, a.bytes.len()))
            .collect();
        let nested_ok = mail
            .attachments
            .iter()
            .filter(|a| a.content_type == "message/rfc822")
            .all(|a| String::from_utf8_lossy(&a.bytes).contains("Subject: The forwarded one"));
        run += 1;
        let failure = eml.with_extension("failed");
        if got != expected || listing != Some(want_listing.join("\n")) || !nested_ok {
            std::fs::write(&failure, serde_json::to_string_pretty(&got).unwrap()).unwrap();
            failed.push(eml.file_name().unwrap().to_string_lossy().into_owned());
        } else {
            let _ = std::fs::remove_file(&failure);
        }
    }
    assert!(run >= 12, "the corpus has {run} messages");
    assert!(
        failed.is_empty(),
        "differ from Python's email package (see .failed): {failed:?}"
    );
}

#[test]
fn a_message_without_headers_is_still_a_request() {
    let raw = b"\x00\x01 not mail at all \xff";
    let mail = inbound::parse(
        raw,
        "who@example.com",
        "inbox@mkfifo.localhost",
        "mkfifo.localhost",
    );
    assert_eq!(mail.stdin, raw);
    let get = |k: &str| {
        mail.vars
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("FROM"), Some("who@example.com"));
    assert_eq!(
        get("PARSE_ERROR"),
        Some("no header found: this is not a mail message")
    );
    let empty = inbound::parse(b"", "", "", "mkfifo.localhost");
    assert!(empty
        .vars
        .iter()
        .any(|(k, v)| k == "PARSE_ERROR" && v == "the message is empty"));
}
