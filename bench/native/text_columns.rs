//! Throughput of cut, tr, sort, head, tail, wc, uniq, tac, rev and paste over 1 MiB,
//! natively: `cargo bench --profile native --bench text_columns` (`BENCH=sort` runs the
//! ones whose label contains `sort`). Buffers are kept from round to round, as a
//! long-lived instance keeps its memory.

use std::time::{Duration, Instant};

use mkfifo::builtins::testing::Session;
use mkfifo::host::FixedHost;
use mkfifo::Budget;

fn bench(label: &str, args: &[&str], stdin: &[u8]) {
    if std::env::var("BENCH").is_ok_and(|only| !label.contains(&only)) {
        return;
    }
    let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    let host = FixedHost::default();
    let mut session = Session::new(&host);
    let rounds = 20;
    let mut total = Duration::ZERO;
    let mut out = 0;
    for round in 0..rounds + 2 {
        let input = stdin.to_vec();
        let budget = Budget::new(u64::MAX / 2);
        let start = Instant::now();
        session.run(&argv, input, &budget).expect("runs");
        if round >= 2 {
            total += start.elapsed();
        }
        out = session.stdout.len();
    }
    let secs = total.as_secs_f64() / f64::from(rounds);
    println!(
        "{label:<36} {:>8.1} MB/s  {:>7.2} ms  ({} bytes in, {out} out)",
        stdin.len() as f64 / secs / 1e6,
        secs * 1e3,
        stdin.len()
    );
}

/// A small deterministic generator, so that every run sorts the same data.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn main() {
    let mut rng = Lcg(20261130);
    // 1 MiB of CSV-like lines: a word, a number, a float, a version, free text.
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliet", "kilo", "lima",
    ];
    let mut csv = String::new();
    while csv.len() < 1 << 20 {
        let w = words[(rng.next() % 12) as usize];
        csv.push_str(&format!(
            "{w},{},{}.{:02},v{}.{}.{},the quick brown fox jumps over the lazy dog\n",
            rng.next() % 100_000,
            rng.next() % 1000,
            rng.next() % 100,
            rng.next() % 5,
            rng.next() % 20,
            rng.next() % 100
        ));
    }
    let csv = csv.into_bytes();
    let tsv: Vec<u8> = csv
        .iter()
        .map(|&b| if b == b',' { b'\t' } else { b })
        .collect();
    // Lines of a few repeated values, for uniq.
    let mut dups = String::new();
    while dups.len() < 1 << 20 {
        let w = words[(rng.next() % 3) as usize];
        for _ in 0..rng.next() % 4 + 1 {
            dups.push_str(w);
            dups.push_str(" some more text on the line\n");
        }
    }
    let dups = dups.into_bytes();

    bench("cut -d, -f2,4", &["cut", "-d,", "-f2,4"], &csv);
    bench("cut -f1 (tabs)", &["cut", "-f1"], &tsv);
    bench("cut -c1-10", &["cut", "-c1-10"], &csv);
    bench(
        "cut -d, -f3- --complement",
        &["cut", "-d,", "-f3-", "--complement"],
        &csv,
    );
    bench("tr a-z A-Z", &["tr", "a-z", "A-Z"], &csv);
    bench("tr -d aeiou", &["tr", "-d", "aeiou"], &csv);
    bench("tr -s ' '", &["tr", "-s", " "], &csv);
    bench(
        "tr -cd '[:alnum:]\\n'",
        &["tr", "-cd", "[:alnum:]\\n"],
        &csv,
    );
    bench("sort", &["sort"], &csv);
    bench("sort -t, -k2,2n", &["sort", "-t,", "-k2,2n"], &csv);
    bench("sort -t, -k3,3g", &["sort", "-t,", "-k3,3g"], &csv);
    bench("sort -t, -k4,4V", &["sort", "-t,", "-k4,4V"], &csv);
    bench(
        "sort -t, -k1,1 -k2,2nr",
        &["sort", "-t,", "-k1,1", "-k2,2nr"],
        &csv,
    );
    bench("sort -u -t, -k1,1", &["sort", "-u", "-t,", "-k1,1"], &csv);
    bench("sort -f", &["sort", "-f"], &csv);
    bench("head -n 10000", &["head", "-n", "10000"], &csv);
    bench("tail -n 10000", &["tail", "-n", "10000"], &csv);
    bench("wc", &["wc"], &csv);
    bench("wc -l", &["wc", "-l"], &csv);
    bench("uniq -c", &["uniq", "-c"], &dups);
    bench("tac", &["tac"], &csv);
    bench("rev", &["rev"], &csv);
    bench("paste - - -", &["paste", "-", "-", "-"], &csv);
}
