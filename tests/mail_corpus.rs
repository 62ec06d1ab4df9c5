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

/// A host with the attachments of one message, as the Worker's is for a mail Request.
struct MailHost(std::rc::Rc<inbound::Mail>);

impl mkfifo::Host for MailHost {
    fn now(&self) -> mkfifo::host::Timestamp {
        mkfifo::host::Timestamp::default()
    }
    fn fill_random(&self, buf: &mut [u8]) {
        buf.fill(7);
    }
    fn fetch(
        &self,
        request: mkfifo::host::HttpRequest,
    ) -> mkfifo::host::LocalFuture<'_, Result<mkfifo::host::HttpResponse, String>> {
        Box::pin(async move { Err(format!("no network here: {}", request.url)) })
    }
    fn attachment(&self, name: &str) -> Option<Vec<u8>> {
        self.0.file(name).map(<[u8]>::to_vec)
    }
}

#[test]
fn an_envelope_runs_over_the_text_with_attachments_as_files() {
    use mkfifo::envelope::run::{run, Routed};
    use mkfifo::envelope::{Incoming, Source};
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail/002-nested-mixed.eml"),
    )
    .unwrap();
    let mail = std::rc::Rc::new(inbound::parse(
        &raw,
        "s@example.com",
        "inbox@mkfifo.localhost",
        "mkfifo.localhost",
    ));
    let req = Incoming {
        fifo: "inbox".into(),
        source: Source::Email,
        method: "MAIL".into(),
        body: raw,
        mail: Some(mail.clone()),
        ..Incoming::default()
    };
    let envelope = mkfifo::envelope::parse(
        "To: -\n\nprintf '%s|%s|' \"$REQUEST_METHOD\" \"$SUBJECT\"; tr a-z A-Z; cat attachment:data.csv; cat attachment:missing.txt 2>&1; true\n",
    )
    .unwrap();
    let view = req.as_run();
    let mut shell = mkfifo::shell::Shell::new();
    let plan = pollster::block_on(run(
        &mut shell,
        &MailHost(mail),
        &envelope,
        &view,
        Vec::new(),
        &[],
        100_000,
    ));
    let Ok(Routed::Answer { body, .. }) = plan.result else {
        panic!("{:?}", plan.result)
    };
    assert_eq!(
        String::from_utf8_lossy(&body),
        "MAIL|Report attached|SEE THE REPORT.\na,b\r\n1,2\r\ncat: attachment:missing.txt: No such file or directory\n"
    );
}

#[test]
fn threads_count_the_hops_of_the_own_domain_and_mark_robots() {
    let raw = b"From: a@example.com\r\nMessage-ID: <x.1.h4@mkfifo.localhost>\r\nReferences: <q@example.com> <r.0.h2@mkfifo.localhost>\r\nIn-Reply-To: <s.0.h3@mkfifo.localhost>\r\nAuto-Submitted: auto-replied\r\nSubject: Re: hi\r\n\r\nbody\r\n";
    let mail = inbound::parse(raw, "", "", "mkfifo.localhost");
    assert_eq!(mail.thread.hops, 4);
    assert_eq!(
        mail.thread.references,
        vec![
            "q@example.com",
            "r.0.h2@mkfifo.localhost",
            "s.0.h3@mkfifo.localhost"
        ]
    );
    // Ours: the hop count stops it, not Auto-Submitted.
    assert!(!mail.thread.auto_submitted);
    // The same without a Message-ID of ours: a robot from outside, answered by nothing.
    let without_id: Vec<&[u8]> = raw
        .split(|&b| b == b'\n')
        .filter(|l| !l.starts_with(b"Message-ID"))
        .collect();
    let outside = inbound::parse(&without_id.join(&b'\n'), "", "", "mkfifo.localhost");
    assert!(outside.thread.auto_submitted);
}
