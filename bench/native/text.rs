//! Throughput of the text builtins over 1 MiB, natively:
//! `cargo bench --profile native --bench text` (`BENCH=cat` runs the ones whose
//! label contains `cat`). Buffers are kept from round to round, as a long-lived
//! instance keeps its memory, so the figures are the tools' work and not page faults.

use std::time::{Duration, Instant};

use mkfifo::builtins::testing::Session;
use mkfifo::host::FixedHost;
use mkfifo::Budget;

fn bench(label: &str, args: &[&str], stdin: &[u8], bytes: usize) {
    if std::env::var("BENCH").is_ok_and(|only| !label.contains(&only)) {
        return;
    }
    let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    let host = FixedHost::default();
    let mut session = Session::new(&host);
    let rounds = 50;
    let mut total = Duration::ZERO;
    let mut out = 0;
    for round in 0..rounds + 3 {
        let input = stdin.to_vec();
        let budget = Budget::new(u64::MAX / 2);
        let start = Instant::now();
        session.run(&argv, input, &budget).expect("runs");
        if round >= 3 {
            total += start.elapsed();
        }
        out = session.stdout.len();
    }
    let secs = total.as_secs_f64() / f64::from(rounds);
    println!(
        "{label:<40} {:>8.1} MB/s  ({bytes} bytes in, {out} bytes out, {:.2} ms)",
        bytes as f64 / secs / 1e6,
        secs * 1e3
    );
}

fn main() {
    // 1 MiB of text: lines of 63 letters.
    let line = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ";
    let mut big = String::new();
    while big.len() < 1 << 20 {
        big.push_str(line);
        big.push('\n');
    }
    bench(
        "printf '%s\\n' \"$big\"",
        &["printf", "%s\\n", &big],
        b"",
        big.len(),
    );
    let words: Vec<&str> = big.split_whitespace().collect();
    let mut args = vec!["printf", "%s\\n"];
    args.extend(&words);
    bench(
        "printf '%s\\n' WORD... (1 MiB of words)",
        &args,
        b"",
        big.len(),
    );
    let mut args = vec!["printf", "%-20s|%5d\\n"];
    for (i, w) in words.iter().enumerate() {
        args.push(w);
        args.push(if i % 2 == 0 { "42" } else { "-7" });
    }
    bench("printf '%-20s|%5d\\n' WORD N ...", &args, b"", big.len());
    let mut args = vec!["printf", "%b"];
    args.extend(&words);
    bench("printf %b WORD...", &args, b"", big.len());
    bench("echo \"$big\"", &["echo", &big], b"", big.len());
    bench("echo -e \"$big\"", &["echo", "-e", &big], b"", big.len());
    bench("cat", &["cat"], big.as_bytes(), big.len());
    bench("cat -n", &["cat", "-n"], big.as_bytes(), big.len());
    bench("cat -A", &["cat", "-A"], big.as_bytes(), big.len());
    bench("tee", &["tee"], big.as_bytes(), big.len());
    bench("xargs (echo)", &["xargs"], big.as_bytes(), big.len());
    bench("seq 100000 (bytes out)", &["seq", "100000"], b"", 588_895);
    bench(
        "seq 0 0.5 50000 (bytes out)",
        &["seq", "0", "0.5", "50000"],
        b"",
        777_788,
    );
}
