//! Times the JSON reader and writer alone: `cargo bench --profile native --bench jq_json -- FILE`.
use std::time::Instant;

fn main() {
    let path = operand(0).expect("a JSON file");
    let data = std::fs::read(path).expect("readable");
    if operand(1).is_some() {
        per_value_drop(&data);
        return;
    }
    let t = Instant::now();
    let mut r = mkfifo::jq::json::Reader::new(&data);
    let mut vals = Vec::new();
    while let Some(v) = r.next_value() {
        vals.push(v.expect("valid JSON"));
    }
    let parse = t.elapsed();
    let t = Instant::now();
    let mut out = Vec::new();
    for v in &vals {
        mkfifo::jq::json::write_compact(&mut out, v);
        out.push(b'\n');
    }
    let write = t.elapsed();
    let t = Instant::now();
    drop(vals);
    let free = t.elapsed();
    let mb = data.len() as f64 / 1e6;
    println!(
        "parse {:.1} MB/s, write {:.1} MB/s, free {:.1} ms",
        mb / parse.as_secs_f64(),
        mb / write.as_secs_f64(),
        free.as_secs_f64() * 1e3
    );
}

#[allow(dead_code)]
fn per_value_drop(data: &[u8]) {
    let mut r = mkfifo::jq::json::Reader::new(data);
    let mut vals = Vec::new();
    while let Some(v) = r.next_value() {
        vals.push(v.expect("valid"));
    }
    for (i, v) in vals.into_iter().enumerate() {
        let t = Instant::now();
        drop(v);
        if i < 3 || i % 5 == 0 {
            println!("drop {i}: {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
        }
    }
}

/// The Nth argument after the options that `cargo bench` adds (`--bench`).
fn operand(n: usize) -> Option<String> {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .nth(n)
}
