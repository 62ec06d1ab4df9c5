//! Envelope selectors on arbitrary input: `cargo +nightly fuzz run select`.
//! The input is: one byte choosing the content type, selector lines up to a NUL, the
//! body after it; the query is the body's first bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mkfifo::envelope::{media_type, parse_query, Selector, Selectors};

const TYPES: &[&str] = &[
    "application/json",
    "text/html",
    "text/html; charset=windows-1252",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=XX",
    "text/plain",
    "",
];

fuzz_target!(|data: &[u8]| {
    let Some((&t, rest)) = data.split_first() else {
        return;
    };
    let split = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
    let (head, body) = rest.split_at(split);
    let body = body.get(1..).unwrap_or_default();
    let head = String::from_utf8_lossy(head);
    let list: Vec<Selector> = head
        .lines()
        .take(8)
        .enumerate()
        .map(|(i, s)| Selector {
            var: format!("v{i}"),
            selector: s.trim().to_string(),
            line: 1,
            column: 1,
        })
        .filter(|s| !s.selector.is_empty())
        .collect();
    let ct = TYPES.get(usize::from(t) % (TYPES.len() + 1)).copied();
    let query = String::from_utf8_lossy(&body[..body.len().min(64)]).into_owned();
    let _ = parse_query(&query);
    let _ = media_type(&query);
    if let Ok(sels) = Selectors::compile(&list) {
        let out = sels.select(ct, body, &query);
        assert_eq!(out.len(), list.len());
    }
});
