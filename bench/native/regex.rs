//! Throughput of sed and grep over 1 MiB of text. Natively:
//! `cargo bench --profile native --bench regex`.

use std::time::Instant;

use mkfifo::budget::Budget;
use mkfifo::builtins::testing::{run_with, Ran};
use mkfifo::builtins::VarList;

/// About 1 MiB of log-like lines, some with "foo".
fn text() -> Vec<u8> {
    let mut out = Vec::with_capacity(1 << 20);
    let words = [
        "lorem",
        "ipsum",
        "dolor",
        "sit",
        "amet",
        "foo",
        "consectetur",
        "adipiscing",
        "elit",
        "sed",
        "do",
        "eiusmod",
        "tempor",
        "incididunt",
        "ut",
        "labore",
        "et",
        "dolore",
    ];
    let mut i = 0usize;
    while out.len() < 1 << 20 {
        for k in 0..9 {
            out.extend_from_slice(words[(i * 7 + k * 3) % words.len()].as_bytes());
            out.push(if k == 8 { b'\n' } else { b' ' });
        }
        i += 1;
    }
    out
}

fn time(args: &[&str], input: &[u8]) -> (f64, Ran) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..5 {
        let budget = Budget::new(u64::MAX / 2);
        let t = Instant::now();
        let r = run_with(args, input, &VarList::default(), &budget).expect("runs");
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    (input.len() as f64 / best / 1e6, last.expect("ran"))
}

fn main() {
    let input = text();
    for args in [
        &["sed", "s/foo/bar/g"][..],
        &["sed", "-n", "/foo/p"][..],
        &["sed", "s/\\(o\\+\\)\\([a-z]\\)/\\2\\1/g"][..],
        &["sed", "-E", "s/(lorem|ipsum) ([a-z]+)/\\2 \\1/g"][..],
        &["grep", "foo"][..],
        &["grep", "-c", "foo"][..],
        &["grep", "-v", "foo"][..],
        &["grep", "-o", "fo*"][..],
        &["grep", "-E", "-c", "(dolor|tempor) [a-z]+ amet"][..],
        &["grep", "-i", "-c", "FOO"][..],
        &["grep", "-w", "-c", "sed"][..],
        &["grep", "-c", "\\(o\\)\\1"][..],
    ] {
        let (mbs, r) = time(args, &input);
        println!(
            "{:<60} {:>8.1} MB/s  ({} bytes out, {} steps)",
            args.join(" "),
            mbs,
            r.stdout.len(),
            r.steps
        );
    }
}
