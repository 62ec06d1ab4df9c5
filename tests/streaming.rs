//! Builtins read their input as it comes: fed in chunks of any size, as a pipe feeds them,
//! each gives the same stdout, stderr, status and step count as when fed at once.

use mkfifo::builtins::testing::{run, run_chunked, Ran};

const KEY: &str = "a9bb6a4fb054a7d9da7808ff56549472f3b6299a4b67741c7bfcfe6a0dec5323";
const NONCE: &str = "000102030405060708090a0b0c0d0e0f1011121314151617";

/// Commands that read stdin, one or more per builtin, with options that change how they
/// read (lines, fields, records, blocks).
const COMMANDS: &[&[&str]] = &[
    &["cat"],
    &["cat", "-n"],
    &["cat", "-A"],
    &["cat", "-s", "-b"],
    &["cat", "-E"],
    &["cat", "-e", "-s"],
    &["cat", "-T", "-n"],
    &["cat", "-", "-"],
    &["head", "-n", "3"],
    &["head", "-n", "-2"],
    &["head", "-c", "5"],
    &["head", "-c", "-3"],
    &["head", "-n", "0"],
    &["head", "-n", "-0"],
    &["head", "-c", "100000"],
    &["head", "-c", "-70000"],
    &["head", "-n", "-1000"],
    &["head", "-z", "-n", "2"],
    &["head", "-n", "1", "-", "-"],
    &["head", "-c", "3", "-", "-"],
    &["tail", "-n", "2"],
    &["tail", "-c", "4"],
    &["tail", "-n", "+2"],
    &["tail", "-n", "+1000"],
    &["tail", "-c", "+3"],
    &["tail", "-c", "70000"],
    &["tail", "-n", "1000"],
    &["tail", "-n", "0"],
    &["tail", "-z", "-n", "1"],
    &["tail", "-v", "-n", "1", "-", "-"],
    &["tr", "a-z", "A-Z"],
    &["tr", "-d", "\\n"],
    &["tr", "-s", " "],
    &["tr", "-cd", "a-c\\n"],
    &["tr", "-s", "a-z0-9\\n"],
    &["tr", "-ds", "a", "\\n "],
    &["wc"],
    &["wc", "-l"],
    &["wc", "-c", "-w", "-m"],
    &["wc", "-L"],
    &["wc", "-w"],
    &["wc", "-L", "-l", "-", "-"],
    &["cut", "-d", " ", "-f", "2"],
    &["cut", "-c", "2-4"],
    &["cut", "-b", "1,3", "-n"],
    &["cut", "-s", "-d", " ", "-f", "1,3-"],
    &["cut", "-d", "\n", "-f", "2"],
    &["cut", "-z", "-c", "1", "--complement"],
    &["tee"],
    &["tee", "-a", "x"],
    &["sort"],
    &["sort", "-r", "-u"],
    &["uniq"],
    &["uniq", "-c"],
    &["uniq", "-D"],
    &["uniq", "-D", "-u"],
    &["uniq", "--all-repeated=separate"],
    &["uniq", "--group=both"],
    &["uniq", "--group"],
    &["uniq", "-d", "-f", "1", "-i"],
    &["uniq", "-u", "-w", "1"],
    &["uniq", "-z", "-c"],
    &["tac"],
    &["rev"],
    &["paste", "-s", "-d", ","],
    &["paste", "-", "-"],
    &["paste", "-d", ":\\n", "-", "-", "-"],
    &["paste", "-z", "-s"],
    &["fold", "-w", "5"],
    &["fold", "-s", "-w", "4"],
    &["fold", "-b", "-w", "3"],
    &["expand", "-t", "3"],
    &["expand", "-i", "-t", "2,5"],
    &["expand"],
    &["sed", "s/a/X/g"],
    &["sed", "-n", "2p"],
    &["sed", "$d"],
    &["sed", "N;s/\\n/+/"],
    &["grep", "a"],
    &["grep", "-c", "b"],
    &["grep", "-v", "-n", "a"],
    &["grep", "-o", "[a-z]*"],
    &["md5sum"],
    &["md5sum", "--tag", "-"],
    &["sha1sum"],
    &["sha224sum", "-b"],
    &["sha256sum"],
    &["sha256sum", "-z", "-", "-"],
    &["sha384sum"],
    &["sha512sum"],
    &["b2sum"],
    &["b2sum", "-l", "128", "--tag"],
    &["sha256sum", "-c"],
    &["hmac", "-k", "key"],
    &["hmac", "-K", "0a0b", "md5"],
    &["hmac", "-k", "key", "sha512"],
    &["base64"],
    &["base64", "-w", "7"],
    &["base64", "-w", "0"],
    &["base64", "-w", "76"],
    &["base64", "-d"],
    &["base64", "-d", "-i"],
    &["base32"],
    &["base32", "-w", "3"],
    &["base32", "-d", "-i"],
    &["basenc", "--base16"],
    &["basenc", "--base16", "-d", "-i"],
    &["basenc", "--base32hex", "-w", "5"],
    &["basenc", "--base64url"],
    &["basenc", "--base64url", "-d", "-i"],
    &["basenc", "--base2msbf", "-w", "9"],
    &["basenc", "--base2lsbf", "-d", "-i"],
    &["basenc", "--z85"],
    &["basenc", "--z85", "-d", "-i"],
    &["gzip", "-c"],
    &["gzip", "-1", "-n"],
    &["gzip", "-2"],
    &["gzip", "-3"],
    &["gzip", "-4"],
    &["gzip", "-5"],
    &["gzip", "-7"],
    &["gzip", "-8"],
    &["gzip", "-9"],
    &["gunzip"],
    &["zcat", "-f"],
    &["gzip", "-d", "-f", "-v"],
    &["gzip", "-t", "-v"],
    &["gzip", "-l"],
    &["secretbox", "-K", KEY, "-n", NONCE],
    &["secretbox", "-d", "-K", KEY],
    &["xargs"],
    &["xargs", "-n", "2", "echo"],
    &["xargs", "-0"],
    &["jq", "-R", "."],
    &["jq", "-s", "-R", "length"],
];

/// Inputs with the usual troubles: none, no final newline, blank lines, bytes above 127,
/// invalid UTF-8, NUL, CRLF and lone CRs, repeated lines and tabs, a long line, many lines.
fn inputs() -> Vec<Vec<u8>> {
    let mut long = b"x".repeat(70_000);
    long.extend_from_slice(b" a b\nlast");
    let numbers: Vec<u8> = (0..12_000u32)
        .flat_map(|i| format!("{i} {}\n", i % 7).into_bytes())
        .collect();
    vec![
        b"".to_vec(),
        b"a".to_vec(),
        b"a b c\n".to_vec(),
        b"banana apple\ncherry  date\n\n\n  eggs\nbanana apple\nfig\n".to_vec(),
        b"no final newline\nsecond".to_vec(),
        b"caf\xc3\xa9 na\xefve \xff\xfe\n\x00nul\x00 a\nab\r\ncd\r\n".to_vec(),
        long,
        b"a\r\nb\r\r\n\r\rc\r".to_vec(),
        b"x 1\nx 1\ny 1\nY 1\nY 1\nY 2\n\tz\tz\n\tz\tz\n  \tz\n\tz\tz".to_vec(),
        numbers,
    ]
}

#[test]
fn chunked_input_gives_what_whole_input_gives() {
    let mut checked = 0;
    for argv in COMMANDS {
        for input in inputs() {
            same_in_chunks(argv, &input, &[1, 3, 64, 4096, 65_536]);
            checked += 1;
        }
    }
    assert_eq!(checked, COMMANDS.len() * inputs().len());
}

#[test]
fn gunzip_takes_its_stream_in_chunks() {
    let text: Vec<u8> = (0..20_000u32)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let packed = run(&["gzip", "-c"], &text).unwrap().stdout;
    let whole = run(&["gunzip", "-c"], &packed).unwrap();
    assert_eq!(whole.stdout, text);
    for chunk in [1, 5, 4096] {
        assert_eq!(
            run_chunked(&["gunzip", "-c"], &packed, chunk).unwrap(),
            whole
        );
        assert_eq!(run_chunked(&["zcat"], &packed, chunk).unwrap(), whole);
    }
}

/// Runs `script` in the shell with a budget of `budget` steps.
fn shell(script: &str, budget: u64) -> mkfifo::shell::Outcome {
    let job = mkfifo::shell::Job {
        script: script.as_bytes().to_vec(),
        arg0: b"sh".to_vec(),
        budget,
        ..mkfifo::shell::Job::default()
    };
    let mut sh = mkfifo::shell::Shell::new();
    pollster::block_on(sh.run(&mkfifo::host::FixedHost::default(), job))
}

/// An endless or huge first stage ends once its reader has what it wants: the writer
/// fills its 64 KiB buffer and the pipe's 64 KiB, then gets a broken pipe. Without
/// streaming both would run until the budget of ten million steps ran out.
#[test]
fn a_reader_that_stops_ends_its_writer() {
    for (script, out, most_steps) in [
        ("yes | head -n1", "y\n", 140_000),
        ("yes abc | head -c 5", "abc\na", 140_000),
        ("seq 1000000000 | head -n1", "1\n", 40_000),
        ("seq 1000000000 | head -n 3 | tail -n 1", "3\n", 40_000),
        ("yes | cat | tr y n | head -n 2", "n\nn\n", 500_000),
        ("seq 0 0.5 1000000000 | head -n 2", "0.0\n0.5\n", 40_000),
        // seq and the expansion of its output cost about 265,000 steps; printf over all
        // 200,000 arguments would cost 220,000 more.
        (
            "printf '%s\\n' $(seq 200000) | head -n 2",
            "1\n2\n",
            300_000,
        ),
        // xargs runs its commands as its input comes, not after the end of it.
        ("yes | xargs echo | head -c 10", "y y y y y ", 1_000_000),
        (
            "seq 1000000000 | xargs -n1 echo | head -n 3",
            "1\n2\n3\n",
            1_000_000,
        ),
        (
            "yes a | xargs -I{} echo x{} | head -n 2",
            "xa\nxa\n",
            1_000_000,
        ),
        (
            "yes | tr '\\n' '\\0' | xargs -0 -n2 echo | head -n 1",
            "y y\n",
            1_000_000,
        ),
    ] {
        let o = shell(script, 10_000_000);
        assert_eq!(
            (
                o.status,
                String::from_utf8_lossy(&o.stdout).into_owned(),
                o.error
            ),
            (0, out.to_string(), None),
            "{script}"
        );
        assert!(o.steps < most_steps, "{script}: {} steps", o.steps);
    }
}

/// Runs `argv` over `input` whole and in chunks of several sizes, and gives the whole run
/// after checking that every chunked one is the same.
fn same_in_chunks(argv: &[&str], input: &[u8], chunks: &[usize]) -> Ran {
    let whole = run(argv, input).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    for &chunk in chunks {
        let parts = run_chunked(argv, input, chunk)
            .unwrap_or_else(|e| panic!("{argv:?} in chunks of {chunk}: {e}"));
        assert_eq!(
            parts,
            whole,
            "{argv:?} over {} bytes in chunks of {chunk}",
            input.len()
        );
    }
    whole
}

/// Text of `n` bytes that compresses like real text: words and numbers from a fixed seed.
fn text(n: usize, seed: u64) -> Vec<u8> {
    let words: [&[u8]; 9] = [
        b"the",
        b"quick",
        b"brown",
        b"fox",
        b"{\"id\":",
        b"1234,",
        b"lorem",
        b"\n",
        b"  ",
    ];
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(n + 16);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(words[(x % 9) as usize]);
        if x.is_multiple_of(5) {
            out.extend_from_slice(format!("{}", x % 100_000).as_bytes());
        }
        out.push(b' ');
    }
    out.truncate(n);
    out
}

/// Bytes that do not compress, from a fixed seed.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn gzip_compresses_chunks_as_it_compresses_the_whole() {
    // Inputs around the window's sizes (32 and 64 KiB, and the slide at 64 KiB - 262),
    // long and short matches, stored blocks: the reads GNU makes must fall alike.
    let mut inputs = vec![
        text(65_274, 1),
        text(65_536 + 300, 2),
        text(200_000, 3),
        noise(100_000, 4),
        b"ab".repeat(70_000),
    ];
    let mut mixed = text(50_000, 5);
    mixed.extend_from_slice(&noise(40_000, 6));
    mixed.extend_from_slice(&text(50_000, 7));
    inputs.push(mixed);
    for input in &inputs {
        for level in ["-1", "-3", "-4", "-6", "-9"] {
            let packed = same_in_chunks(&["gzip", level], input, &[1000, 4096, 65_536, 65_537]);
            assert_eq!(packed.status, 0);
            let back = run(&["gunzip"], &packed.stdout).unwrap();
            assert_eq!(&back.stdout, input, "gzip {level} round trip");
        }
    }
}

#[test]
fn gunzip_cut_and_damaged_streams_in_chunks() {
    let input = text(150_000, 8);
    let packed = run(&["gzip", "-6"], &input).unwrap().stdout;
    // Every kind of end: in the header, in each part of the body, in the trailer; and
    // damaged bytes, trailing garbage and zeros, a second member.
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for cut in [
        1,
        5,
        10,
        11,
        100,
        4_000,
        20_000,
        30_001,
        packed.len() - 9,
        packed.len() - 3,
    ] {
        cases.push(packed[..cut].to_vec());
    }
    for at in [12, 500, 17_000, packed.len() - 6] {
        let mut bad = packed.clone();
        bad[at] ^= 0x55;
        cases.push(bad);
    }
    let mut two = packed.clone();
    two.extend_from_slice(&packed[..packed.len() / 2]);
    cases.push(two);
    for tail in [&b"\0\0\0"[..], b"garbage", b"x", b"\0"] {
        let mut t = packed.clone();
        t.extend_from_slice(tail);
        cases.push(t);
    }
    for case in &cases {
        for argv in [
            &["gunzip"][..],
            &["zcat", "-v"],
            &["gzip", "-t"],
            &["gzip", "-l"],
        ] {
            same_in_chunks(argv, case, &[1, 7, 4096, 65_536]);
        }
    }
}

#[test]
fn secretbox_blocks_in_chunks() {
    for n in [0, 1, 65_535, 65_536, 65_537, 200_000] {
        let plain = noise(n, n as u64 + 9);
        let sealed = same_in_chunks(
            &["secretbox", "-K", KEY, "-n", NONCE],
            &plain,
            &[1, 4096, 65_552],
        );
        let opened = same_in_chunks(
            &["secretbox", "-d", "-K", KEY],
            &sealed.stdout,
            &[1, 4096, 65_536],
        );
        assert_eq!((opened.status, &opened.stdout), (0, &plain));
        let mut bad = sealed.stdout.clone();
        if bad.len() > 40 {
            let at = bad.len() - 1;
            bad[at] ^= 1;
            let r = same_in_chunks(&["secretbox", "-d", "-K", KEY], &bad, &[3, 65_536]);
            assert_eq!(r.status, 1);
            assert_eq!(r.stdout.len(), (n - 1) / 65_536 * 65_536);
        }
    }
}

#[test]
fn base_encodings_in_chunks() {
    let data = noise(100_000, 10);
    for enc in [
        "--base64",
        "--base64url",
        "--base32",
        "--base32hex",
        "--base16",
        "--base2msbf",
        "--z85",
    ] {
        let z85 = enc == "--z85";
        let input = if z85 { &data[..99_996] } else { &data[..] };
        let encoded = same_in_chunks(&["basenc", enc, "-w", "61"], input, &[1, 5, 4096, 65_536]);
        assert_eq!(encoded.status, 0, "{enc}");
        let decoded = same_in_chunks(
            &["basenc", enc, "-d"],
            &encoded.stdout,
            &[1, 5, 4096, 65_536],
        );
        assert_eq!((decoded.status, &decoded.stdout[..]), (0, input), "{enc}");
        // Bad input in the middle: what comes before it is written.
        let mut bad = encoded.stdout.clone();
        let mid = bad.len() / 2;
        bad[mid] = b'~';
        let r = same_in_chunks(&["basenc", enc, "-d"], &bad, &[1, 4096]);
        assert_eq!(r.status, 1, "{enc}");
        if z85 {
            // z85's error for a length that is not a multiple of 4 comes after whole blocks.
            same_in_chunks(&["basenc", enc], &data[..99_999], &[1, 4096, 30_720]);
        }
    }
    // base64url refuses a block of 5,600 characters that holds `+` or `/`.
    let url = run(&["basenc", "--base64url", "-w", "0"], &data)
        .unwrap()
        .stdout;
    for at in [10, 5_599, 5_600, 11_300, url.len() - 1] {
        let mut bad = url.clone();
        bad[at] = b'+';
        same_in_chunks(
            &["basenc", "--base64url", "-d"],
            &bad,
            &[1, 3, 5_600, 65_536],
        );
    }
}

/// Runs the system's GNU gzip with `args` over `input`: its stdout, stderr and status.
fn gnu_gzip(args: &[&str], input: &[u8]) -> (Vec<u8>, Vec<u8>, i32) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("gzip")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("GNU gzip is installed (scripts/setup.sh)");
    let mut stdin = child.stdin.take().expect("a pipe");
    let data = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().expect("gzip runs");
    let _ = writer.join();
    (out.stdout, out.stderr, out.status.code().unwrap_or(-1))
}

#[test]
fn gunzip_cut_far_into_a_large_member_as_gnu_does() {
    // More than the 4 MiB of compressed input gunzip keeps before it walks the blocks and
    // drops those done: where GNU stops must still come out the same.
    let mut input = noise(3 << 20, 11);
    input.extend_from_slice(&text(7 << 20, 12));
    let (packed, _, status) = gnu_gzip(&["-1", "-n", "-c"], &input);
    assert_eq!(status, 0);
    assert!(packed.len() > 5 << 20, "{} compressed bytes", packed.len());
    for cut in [(9 << 19) + 1, packed.len() - 70_001, packed.len() - 12] {
        let (stdout, stderr, status) = gnu_gzip(&["-d", "-c"], &packed[..cut]);
        for chunk in [65_536, 1 << 20] {
            let ours = run_chunked(&["gunzip", "-c"], &packed[..cut], chunk).unwrap();
            assert_eq!(ours.status, status, "cut at {cut}");
            assert_eq!(
                ours.stderr_str(),
                String::from_utf8_lossy(&stderr),
                "cut at {cut}"
            );
            assert!(
                ours.stdout == stdout,
                "cut at {cut}: {} bytes, GNU {}",
                ours.stdout.len(),
                stdout.len()
            );
        }
    }
}
