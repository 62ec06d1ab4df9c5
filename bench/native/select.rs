//! Timings of envelope selectors over 256 KiB bodies (run natively:
//! `cargo bench --profile native --bench select`).

use std::time::Instant;

use mkfifo::envelope::{Selector, Selectors};

const SIZE: usize = 256 * 1024;

fn json_body() -> Vec<u8> {
    let mut s = String::from(
        r#"{"meta":{"total":0,"page":1,"next":"https://api.example.com/items?page=2"},"items":["#,
    );
    let mut i = 0;
    while s.len() < SIZE - 300 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            r#"{{"id":{i},"name":"Item \"{i}\" caf\u00e9 ☕","price":{}.{:02},"tags":["t{}","shared"],"active":{},"owner":{{"login":"user{}","email":"u{}@example.com"}},"description":"Line one\nline two with <b>markup</b> and a long tail of text to fill the record out"}}"#,
            i % 500,
            i % 100,
            i % 7,
            i % 2 == 0,
            i % 97,
            i % 97
        ));
        i += 1;
    }
    s.push_str(&format!(r#"],"count":{i}}}"#));
    s.into_bytes()
}

fn html_body() -> Vec<u8> {
    let mut s = String::from("<!DOCTYPE html><html><head><meta charset=utf-8><title>Catalogue &ndash; page 1</title></head><body><main><ul class=grid>");
    let mut i = 0;
    while s.len() < SIZE - 400 {
        s.push_str(&format!(
            "<li class=\"product\" data-id=\"{i}\"><a href=\"/p/{i}?ref=list&amp;pos={i}\"><img src=\"/img/{i}.jpg\" alt=\"Product {i}\"></a><h2 class=name>Product {i} &mdash; caf&eacute;</h2><div class=\"price\"><span class=currency>&euro;</span><span class=amount>{}.{:02}</span></div><p>Some description text for the product, with <em>emphasis</em>.</p></li>\n",
            i % 500,
            i % 100
        ));
        i += 1;
    }
    s.push_str("<li class=\"product featured\"><div class=price><span class=amount>1.00</span></div></li></ul></main></body></html>");
    s.into_bytes()
}

fn compile(list: &[&str]) -> Selectors {
    let list: Vec<Selector> = list
        .iter()
        .enumerate()
        .map(|(i, s)| Selector {
            var: format!("v{i}"),
            selector: s.to_string(),
            line: 1,
            column: 1,
        })
        .collect();
    Selectors::compile(&list).expect("compiles")
}

fn bench(name: &str, sels: &Selectors, ct: &str, body: &[u8]) {
    // An argument picks the cases whose name contains it, and runs them longer.
    let filter = operand(0);
    if filter.as_deref().is_some_and(|f| !name.contains(f)) {
        return;
    }
    let runs = if filter.is_some() { 2000 } else { 100 };
    let mut times = Vec::new();
    let mut out = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        out = sels.select(Some(ct), body, "");
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    let values: Vec<String> = out
        .iter()
        .map(|(_, v)| {
            let s = String::from_utf8_lossy(v);
            s.chars().take(24).collect()
        })
        .collect();
    println!(
        "{name:<44} {:>4} KiB  median {:.3} ms  min {:.3} ms  {:?}",
        body.len() / 1024,
        times[times.len() / 2],
        times[0],
        values
    );
}

fn main() {
    let json = json_body();
    let html = html_body();
    bench(
        "3 jq paths, JSON",
        &compile(&[".meta.next", ".items[500].owner.email", ".items[-1].name"]),
        "application/json",
        &json,
    );
    bench(
        "1 jq path (.count, the last key), JSON",
        &compile(&[".count"]),
        "application/json",
        &json,
    );
    bench(
        "1 CSS selector, match at the end, HTML",
        &compile(&[".featured .amount"]),
        "text/html",
        &html,
    );
    bench(
        "1 CSS selector, no match, HTML",
        &compile(&["h3.none"]),
        "text/html",
        &html,
    );
    bench(
        "1 CSS selector @attr, match at the end, HTML",
        &compile(&["li.featured @class"]),
        "text/html",
        &html,
    );
    bench(
        "1 CSS selector, match at the start, HTML",
        &compile(&["title"]),
        "text/html",
        &html,
    );
    bench(
        "3 CSS selectors (text, text, attr), HTML",
        &compile(&["title", ".featured .amount", "li.product @data-id"]),
        "text/html",
        &html,
    );
    let form: Vec<u8> = {
        let mut s = String::new();
        let mut i = 0;
        while s.len() < SIZE {
            s.push_str(&format!("field{i}=some+value+%E2%82%AC+{i}&"));
            i += 1;
        }
        s.push_str("last=x");
        s.into_bytes()
    };
    bench(
        "2 fields, urlencoded",
        &compile(&["field100", "last"]),
        "application/x-www-form-urlencoded",
        &form,
    );
    let multipart: Vec<u8> = {
        let mut b = Vec::new();
        b.extend_from_slice(b"--BOUNDARY\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.bin\"\r\n\r\n");
        b.extend((0..SIZE).map(|i| (i * 7 % 251) as u8));
        b.extend_from_slice(b"\r\n--BOUNDARY\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello\r\n--BOUNDARY--\r\n");
        b
    };
    bench(
        "2 fields (a 256 KiB file), multipart",
        &compile(&["file", "title"]),
        "multipart/form-data; boundary=BOUNDARY",
        &multipart,
    );
}

/// The Nth argument after the options that `cargo bench` adds (`--bench`).
fn operand(n: usize) -> Option<String> {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .nth(n)
}
