//! Native benchmarks of the jq builtin: `cargo bench --profile native --bench jq`.
//!
//! 1. `jq .a` on a small value, the program already in the cache (per run);
//! 2. `jq -c .` over a 256 KiB JSON body (MB/s);
//! 3. `jq -r -f bench/s3-lsjson.jq` over a 1,000-key ListObjectsV2 answer
//!    (`bench/gen_s3_listing.py`; pass its path as the first argument).
use std::time::Instant;

use mkfifo::builtins::testing::Session;
use mkfifo::host::FixedHost;
use mkfifo::Budget;

fn run(session: &mut Session<'_>, args: &[&str], stdin: &[u8]) -> (i32, usize) {
    let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    let budget = Budget::new(u64::MAX / 2);
    let status = session
        .run(&argv, stdin.to_vec(), &budget)
        .expect("jq runs");
    assert!(
        session.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&session.stderr)
    );
    (status, session.stdout.len())
}

/// The best of 7 timings of `f`, in seconds (the box is shared: the minimum is the
/// figure least disturbed by other work).
fn best(mut f: impl FnMut()) -> f64 {
    (0..7)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn body(size: usize) -> Vec<u8> {
    let mut s = String::from("[");
    let mut i = 0;
    while s.len() < size {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            r#"{{"id":{i},"name":"item number {i}","price":{}.{:02},"tags":["a","b\u00e9"],"ok":{},"nested":{{"x":null,"y":[1,2,3]}}}}"#,
            i * 7 % 1000,
            i % 100,
            i % 2 == 0
        ));
        i += 1;
    }
    s.push(']');
    s.into_bytes()
}

fn main() {
    let host = FixedHost::default();
    let mut caches = Session::new(&host);

    let small = br#"{"a":{"b":[1,2,3]},"c":"x"}"#;
    run(&mut caches, &["jq", ".a"], small);
    let n = 5_000;
    let per = best(|| {
        for _ in 0..n {
            run(&mut caches, &["jq", ".a"], small);
        }
    }) / n as f64;
    println!(
        "jq .a (small value, cached program): {:.2} us per run",
        per * 1e6
    );

    let big = body(256 * 1024);
    run(&mut caches, &["jq", "-c", "."], &big);
    let reps = 20;
    let secs = best(|| {
        for _ in 0..reps {
            run(&mut caches, &["jq", "-c", "."], &big);
        }
    }) / reps as f64;
    println!(
        "jq -c . over {} KiB: {:.2} ms, {:.0} MB/s",
        big.len() / 1024,
        secs * 1e3,
        big.len() as f64 / secs / 1e6
    );

    if let Some(path) = operand(0) {
        let listing = std::fs::read(&path).expect("listing file");
        let filter = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/s3-lsjson.jq"),
        )
        .expect("bench/s3-lsjson.jq");
        run(&mut caches, &["jq", "-r", &filter], &listing);
        let reps = 10;
        let mut out = 0;
        let secs = best(|| {
            for _ in 0..reps {
                out = run(&mut caches, &["jq", "-r", &filter], &listing).1;
            }
        }) / reps as f64;
        println!(
            "s3-lsjson over {} KiB ({} bytes out): {:.2} ms per run",
            listing.len() / 1024,
            out,
            secs * 1e3
        );
    }
}

/// The Nth argument after the options that `cargo bench` adds (`--bench`).
fn operand(n: usize) -> Option<String> {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .nth(n)
}
