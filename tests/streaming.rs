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
    &["head", "-n", "3"],
    &["head", "-n", "-2"],
    &["head", "-c", "5"],
    &["head", "-c", "-3"],
    &["tail", "-n", "2"],
    &["tail", "-c", "4"],
    &["tail", "-n", "+2"],
    &["tr", "a-z", "A-Z"],
    &["tr", "-d", "\\n"],
    &["tr", "-s", " "],
    &["tr", "-cd", "a-c\\n"],
    &["wc"],
    &["wc", "-l"],
    &["wc", "-c", "-w", "-m"],
    &["wc", "-L"],
    &["cut", "-d", " ", "-f", "2"],
    &["cut", "-c", "2-4"],
    &["cut", "-b", "1,3", "-n"],
    &["tee"],
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
/// invalid UTF-8, NUL, CRLF, a long line.
fn inputs() -> Vec<Vec<u8>> {
    let mut long = b"x".repeat(70_000);
    long.extend_from_slice(b" a b\nlast");
    vec![
        b"".to_vec(),
        b"a".to_vec(),
        b"a b c\n".to_vec(),
        b"banana apple\ncherry  date\n\n\n  eggs\nbanana apple\nfig\n".to_vec(),
        b"no final newline\nsecond".to_vec(),
        b"caf\xc3\xa9 na\xefve \xff\xfe\n\x00nul\x00 a\nab\r\ncd\r\n".to_vec(),
        long,
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
    assert_eq!(checked, COMMANDS.len() * 7 * 5);
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
