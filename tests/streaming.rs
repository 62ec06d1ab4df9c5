//! Builtins read their input as it comes: fed in chunks of any size, as a pipe feeds them,
//! each gives the same stdout, stderr, status and step count as when fed at once.

use mkfifo::builtins::testing::{run, run_chunked};

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
    &["tac"],
    &["rev"],
    &["paste", "-s", "-d", ","],
    &["fold", "-w", "5"],
    &["expand", "-t", "3"],
    &["sed", "s/a/X/g"],
    &["sed", "-n", "2p"],
    &["sed", "$d"],
    &["sed", "N;s/\\n/+/"],
    &["grep", "a"],
    &["grep", "-c", "b"],
    &["grep", "-v", "-n", "a"],
    &["grep", "-o", "[a-z]*"],
    &["md5sum"],
    &["sha1sum"],
    &["sha256sum"],
    &["sha512sum"],
    &["b2sum"],
    &["hmac", "-k", "key"],
    &["base64"],
    &["base64", "-w", "7"],
    &["base32"],
    &["basenc", "--base16"],
    &["gzip", "-c"],
    &["gzip", "-1", "-n"],
    &["xargs"],
    &["xargs", "-n", "2", "echo"],
    &["xargs", "-0"],
    &["jq", "-R", "."],
    &["jq", "-s", "-R", "length"],
];

/// Inputs with the usual troubles: none, no final newline, blank lines, bytes above 127,
/// invalid UTF-8, NUL, CRLF and lone CRs, a long line, many lines.
fn inputs() -> Vec<Vec<u8>> {
    let mut long = b"x".repeat(70_000);
    long.extend_from_slice(b" a b\nlast");
    let numbers: Vec<u8> = (0..20_000u32)
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
        numbers,
    ]
}

#[test]
fn chunked_input_gives_what_whole_input_gives() {
    let mut checked = 0;
    for argv in COMMANDS {
        for input in inputs() {
            let whole = run(argv, &input).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
            for chunk in [1, 3, 64, 4096, 65_536] {
                let parts = run_chunked(argv, &input, chunk)
                    .unwrap_or_else(|e| panic!("{argv:?} in chunks of {chunk}: {e}"));
                assert_eq!(
                    parts,
                    whole,
                    "{argv:?} over {} bytes in chunks of {chunk}",
                    input.len()
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, COMMANDS.len() * inputs().len() * 5);
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
