//! Timings of reading inbound mail natively (`cargo bench --profile native --bench mail`):
//! a 4.3 MB message with a 3.1 MB attachment, the message as mail-parser alone reads it,
//! and the whole of `mail::inbound::parse` (variables, text, attachments).

use std::time::Instant;

use mkfifo::mail::inbound;
use mkfifo::seeded::Rng;

/// A line of text and an attachment of seeded bytes, in base64 lines of 76 characters.
fn message(bytes: usize) -> Vec<u8> {
    let mut rng = Rng(7);
    let data: Vec<u8> = (0..bytes * 57 / 78).map(|_| rng.next_u64() as u8).collect();
    let b64 = data_encoding::BASE64.encode(&data);
    let mut lines = String::with_capacity(b64.len() * 78 / 76 + 1);
    for chunk in b64.as_bytes().chunks(76) {
        lines.push_str(std::str::from_utf8(chunk).unwrap());
        lines.push_str("\r\n");
    }
    format!(
        "From: Ada <ada@example.com>\r\nTo: inbox@mkfifo.localhost\r\nSubject: the numbers\r\n\
         Message-ID: <bench@example.com>\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\nThe numbers are attached.\r\n--b\r\n\
         Content-Type: application/octet-stream; name=\"numbers.bin\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{lines}--b--\r\n"
    )
    .into_bytes()
}

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn main() {
    let raw = message(4_300_000);
    let parser = mail_parser::MessageParser::new();
    let alone = median_ms(15, || {
        std::hint::black_box(parser.parse(&raw));
    });
    let whole = median_ms(15, || {
        std::hint::black_box(inbound::parse(
            &raw,
            "a@example.com",
            "inbox@mkfifo.localhost",
            "mkfifo.localhost",
        ));
    });
    println!("| case | native |");
    println!("|---|---:|");
    println!(
        "| mail-parser over a {:.1} MB message | {alone:.1} ms |",
        raw.len() as f64 / 1e6
    );
    println!("| `mail::inbound::parse` of it (variables, text, attachment) | {whole:.1} ms |");
}
