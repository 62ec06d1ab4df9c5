//! Speed of the hash, encoding, compression and key-derivation builtins, natively, next
//! to the system's own tools on the same input. Run it with
//!
//! ```sh
//! cargo bench --profile native --bench crypto
//! ```

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mkfifo::builtins::testing::run_with;
use mkfifo::builtins::VarList;
use mkfifo::Budget;

const MIB: usize = 1024 * 1024;

/// 8 MiB of text-like bytes: words from a small vocabulary, lines of varying length.
fn text(n: usize) -> Vec<u8> {
    let words: [&[u8]; 12] = [
        b"the",
        b"quick",
        b"brown",
        b"fox",
        b"jumps",
        b"over",
        b"lazy",
        b"dog",
        b"lorem",
        b"ipsum",
        b"{\"id\":",
        b"1234,",
    ];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut out = Vec::with_capacity(n + 16);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(words[(x % 12) as usize]);
        out.push(if x.is_multiple_of(11) { b'\n' } else { b' ' });
    }
    out.truncate(n);
    out
}

fn ours(args: &[&str], input: &[u8]) -> (Duration, usize) {
    let budget = Budget::new(u64::MAX);
    let t = Instant::now();
    let r = run_with(args, input, &VarList::default(), &budget).expect("runs");
    let d = t.elapsed();
    assert_eq!(r.status, 0, "{args:?}: {}", r.stderr_str());
    (d, r.stdout.len())
}

fn system(args: &[&str], input: &[u8]) -> Option<Duration> {
    system_out(args, input).map(|(d, _)| d)
}

fn system_out(args: &[&str], input: &[u8]) -> Option<(Duration, Vec<u8>)> {
    let t = Instant::now();
    let mut child = Command::new(args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let data = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    out.status.success().then(|| (t.elapsed(), out.stdout))
}

fn best<F: FnMut() -> Duration>(runs: usize, mut f: F) -> Duration {
    (0..runs).map(|_| f()).min().unwrap_or_default()
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / MIB as f64 / d.as_secs_f64()
}

fn main() {
    let data = text(8 * MIB);
    println!("| what | mkfifo | system tool | ratio |");
    println!("|---|---:|---:|---:|");
    for args in [
        &["sha256sum"][..],
        &["md5sum"],
        &["b2sum"],
        &["base64"],
        &["gzip", "-1"],
        &["gzip", "-6"],
    ] {
        let t_ours = best(3, || ours(args, &data).0);
        let t_sys = best(3, || system(args, &data).unwrap_or(Duration::MAX));
        println!(
            "| `{}` of 8 MiB | {:.0} MB/s | {:.0} MB/s | {:.2}x the time |",
            args.join(" "),
            mbps(data.len(), t_ours),
            mbps(data.len(), t_sys),
            t_ours.as_secs_f64() / t_sys.as_secs_f64()
        );
    }
    let b64 = ours(&["base64"], &data);
    let encoded = {
        let budget = Budget::new(u64::MAX);
        run_with(&["base64"], &data, &VarList::default(), &budget)
            .unwrap()
            .stdout
    };
    let _ = b64;
    let t_ours = best(3, || ours(&["base64", "-d"], &encoded).0);
    let t_sys = best(3, || {
        system(&["base64", "-d"], &encoded).unwrap_or(Duration::MAX)
    });
    println!(
        "| `base64 -d` of 8 MiB | {:.0} MB/s | {:.0} MB/s | {:.2}x the time |",
        mbps(data.len(), t_ours),
        mbps(data.len(), t_sys),
        t_ours.as_secs_f64() / t_sys.as_secs_f64()
    );
    let gz = {
        let budget = Budget::new(u64::MAX);
        run_with(&["gzip", "-6"], &data, &VarList::default(), &budget)
            .unwrap()
            .stdout
    };
    let t_ours = best(3, || ours(&["gzip", "-d"], &gz).0);
    let t_sys = best(3, || system(&["gzip", "-d"], &gz).unwrap_or(Duration::MAX));
    println!(
        "| `gzip -d` to 8 MiB | {:.0} MB/s | {:.0} MB/s | {:.2}x the time |",
        mbps(data.len(), t_ours),
        mbps(data.len(), t_sys),
        t_ours.as_secs_f64() / t_sys.as_secs_f64()
    );

    // The same bytes as GNU gzip, on this input too.
    for level in ["-1", "-6", "-9"] {
        if let Some((_, gnu)) = system_out(&["gzip", "-n", level], &data) {
            let budget = Budget::new(u64::MAX);
            let mine = run_with(&["gzip", level], &data, &VarList::default(), &budget)
                .unwrap()
                .stdout;
            assert!(
                mine == gnu,
                "gzip {level} differs from GNU's on 8 MiB of text"
            );
        }
    }

    let msg = &data[..64];
    let key = "0123456789abcdef0123456789abcdef";
    let n = 20_000;
    let t = Instant::now();
    for _ in 0..n {
        ours(&["hmac", "-K", key], msg);
    }
    println!(
        "\n`hmac -K` (16-byte key) of 64 bytes: {:.2} us per run",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        ours(&["sha256sum"], msg);
    }
    println!(
        "`sha256sum` of 64 bytes: {:.2} us per run",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let t_scrypt = best(3, || ours(&["scrypt", "fixture-password-1"], b"").0);
    println!("`scrypt PASSWORD`: {:.1} ms", t_scrypt.as_secs_f64() * 1e3);
    let sealed = {
        let budget = Budget::new(u64::MAX);
        let key = "a9bb6a4fb054a7d9da7808ff56549472f3b6299a4b67741c7bfcfe6a0dec5323";
        run_with(
            &["secretbox", "-K", key],
            &data,
            &VarList::default(),
            &budget,
        )
        .unwrap()
        .stdout
    };
    let key = "a9bb6a4fb054a7d9da7808ff56549472f3b6299a4b67741c7bfcfe6a0dec5323";
    let t = best(3, || ours(&["secretbox", "-d", "-K", key], &sealed).0);
    println!("`secretbox -d` of 8 MiB: {:.0} MB/s", mbps(data.len(), t));
}
