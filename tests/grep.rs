//! grep against outputs of GNU grep 3.8 (C locale), each pasted from a run of the real tool.

use mkfifo::builtins::testing::run;

fn grep(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut argv = vec!["grep"];
    argv.extend_from_slice(args);
    let r = run(&argv, stdin).expect("grep runs");
    (r.status, r.stdout_str(), r.stderr_str())
}

#[test]
fn context_and_separators() {
    let n = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    assert_eq!(
        grep(&["-C1", "-e", "3", "-e", "7"], n).1,
        "2\n3\n4\n--\n6\n7\n8\n"
    );
    assert_eq!(grep(&["-vn", "-A1", "[2-8]"], n).1, "1:1\n2-2\n--\n9:9\n");
    assert_eq!(grep(&["-m2", "-A1", "[2-8]"], n).1, "2\n3\n4\n");
    assert_eq!(
        grep(&["-o", "-A1", "a"], b"a\nb\na\nc\nd\na\n").1,
        "a\na\n--\na\n"
    );
    assert_eq!(
        grep(&["-A0", "-e", "a", "-e", "b"], b"a\nc\nb\n").1,
        "a\n--\nb\n"
    );
}

#[test]
fn only_matching_and_words() {
    assert_eq!(grep(&["-ow", "ab*"], b"ab a\n").1, "ab\na\n");
    assert_eq!(
        grep(&["-ow", "foo\\w*"], b"foo-bar foobar\n").1,
        "foo\nfoobar\n"
    );
    assert_eq!(grep(&["-o", "-e", "b", "-e", "bc"], b"abc\n").1, "bc\n");
    assert_eq!(grep(&["-ob", "b"], b"ab ab\n").1, "1:b\n4:b\n");
    assert_eq!(grep(&["-w", ""], b"ab\n").0, 1);
}

#[test]
fn binary_files() {
    let (status, out, err) = grep(&["a"], b"a\x00b\na\n");
    assert_eq!((status, out.as_str()), (0, ""));
    assert_eq!(err, "grep: (standard input): binary file matches\n");
    assert_eq!(grep(&["-c", "a"], b"a\x00b\na\n").1, "2\n");
    assert_eq!(grep(&["-a", "a"], b"a\x00b\na\n").1, "a\x00b\na\n");
}

#[test]
fn syntax() {
    assert_eq!(grep(&["-E", "a{1,2"], b"a{1,2}\n").1, "a{1,2}\n");
    assert_eq!(grep(&["\\{1\\}"], b"{1}\n").1, "{1}\n");
    assert_eq!(grep(&["-o", "^*a"], b"*a\n").1, "*a\n");
    let (s, _, e) = grep(&["-E", "*x"], b"x\n");
    assert_eq!(
        (s, e.as_str()),
        (0, "grep: warning: * at start of expression\n")
    );
    assert_eq!(
        grep(&["[a"], b"a\n").2,
        "grep: Unmatched [, [^, [:, [., or [=\n"
    );
    assert_eq!(grep(&["-E", "(a"], b"a\n").2, "grep: Unmatched ( or \\(\n");
    assert_eq!(
        grep(&["a\\{1,x\\}"], b"a\n").2,
        "grep: Invalid content of \\{\\}\n"
    );
    assert_eq!(
        grep(&["-E", "a{32768}"], b"a\n").2,
        "grep: Regular expression too big\n"
    );
    assert_eq!(
        grep(&["[:space:]"], b"a\n").2,
        "grep: character class syntax is [[:space:]], not [:space:]\n"
    );
}

#[test]
fn options_and_status() {
    assert_eq!(grep(&["-c", "-m1", "a"], b"a\nb\na\nc\n").1, "1\n");
    assert_eq!(
        grep(&["-L", "x"], b"a\n"),
        (1, "(standard input)\n".into(), String::new())
    );
    assert_eq!(grep(&["-m", "0", "a"], b"a\n").0, 1);
    assert_eq!(grep(&["-E", "-F", "a"], b"a\n").0, 2);
    assert_eq!(grep(&["-x", "-e", "ab", "-e", "abc"], b"abc\n").1, "abc\n");
    assert_eq!(grep(&["-Fx", "a.c"], b"a.c\nabc\n").1, "a.c\n");
    assert_eq!(grep(&["-z", "a"], b"a\nb\x00a\x00").1, "a\nb\x00a\x00");
    assert_eq!(
        grep(&["-HZn", "b"], b"ab ab\n").1,
        "(standard input)\x001:ab ab\n"
    );
}

/// `-P` patterns that need a backtracker, over bytes as PCRE2 reads them without UTF.
#[test]
fn perl_backtracking() {
    let out = |args: &[&str], stdin: &[u8]| {
        let mut argv = vec!["grep"];
        argv.extend_from_slice(args);
        let r = run(&argv, stdin).expect("grep runs");
        (r.status, r.stdout.clone(), r.stderr_str())
    };
    assert_eq!(
        out(
            &["-oP", "(?<=\\xe9 )a+|(\\w)\\1|\\h\\K\\xe9"],
            b"abab xyd \xe9 aab\n"
        )
        .1,
        b"\xe9\naa\n"
    );
    assert_eq!(out(&["-oP", "a(?!X)."], b"aXb a\xe9b\n").1, b"a\xe9\n");
    assert_eq!(
        out(&["-owP", "(foo)-?\\1"], b"foo-foo foofoo\n").1,
        b"foo-foo\nfoofoo\n"
    );
    assert_eq!(out(&["-xcP", "(a)\\1"], b"aa\nab\n").1, b"1\n");
    assert_eq!(out(&["-iP", "(a)b\\1"], b"AbA\n").1, b"AbA\n");
    assert_eq!(out(&["-oP", "a++a|x\\Ky"], b"aaa xy\n").1, b"y\n");
    for (pattern, message) in [
        ("(?<=a+)b", "lookbehind assertion is not fixed length"),
        ("(a)\\2", "reference to non-existent subpattern"),
        ("a{2,1}", "numbers out of order in {} quantifier"),
        ("[[:foo:]]", "unknown POSIX class name"),
        ("(", "missing closing parenthesis"),
    ] {
        assert_eq!(
            out(&["-P", pattern], b"a\n"),
            (2, Vec::new(), format!("grep: {message}\n"))
        );
    }
}

/// Catastrophic backtracking ends with GNU grep's error (after the lines before it), and
/// within the step budget; no input panics.
#[test]
fn perl_limits() {
    let mut input = b"good\n".to_vec();
    input.extend_from_slice(&[b'x'; 40]);
    input.extend_from_slice(b"\ngood\n");
    let r = run(&["grep", "-nP", "(\\w+\\w+)+\\1[^\\w]|good"], &input).expect("grep runs");
    assert_eq!(
        (r.status, r.stdout_str(), r.stderr_str()),
        (
            2,
            "1:good\n".to_string(),
            "grep: (standard input): exceeded PCRE's backtracking limit\n".to_string()
        )
    );
    // A small budget stops the same search with the step limit.
    let budget = mkfifo::Budget::new(5_000);
    let r = mkfifo::builtins::testing::run_with(
        &["grep", "-P", "(\\w+\\w+)+\\1[^\\w]"],
        &input,
        &mkfifo::builtins::VarList::default(),
        &budget,
    );
    assert!(matches!(r, Err(mkfifo::Error::StepLimit { .. })));
    let mut odd: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    odd.extend_from_slice(b"\xff\xfe\n\0\n");
    for p in [
        "(.)\\1",
        "(?<=\\xff)\\xfe",
        "(?>.*)x",
        "^(?=.*\\x00)",
        "\\b(\\w+)\\b.*\\1",
    ] {
        for flags in ["-P", "-oP", "-caP", "-vwP", "-xiP"] {
            let r = run(&["grep", flags, p], &odd).expect("grep runs");
            assert_ne!(r.status, 70, "{flags} {p}");
        }
    }
}
