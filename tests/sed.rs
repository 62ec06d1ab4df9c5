//! sed against outputs of GNU sed 4.9 (C locale), each pasted from a run of the real tool.

use mkfifo::builtins::testing::run;

fn sed(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut argv = vec!["sed"];
    argv.extend_from_slice(args);
    let r = run(&argv, stdin.as_bytes()).expect("sed runs");
    (r.status, r.stdout_str(), r.stderr_str())
}

fn out(args: &[&str], stdin: &str) -> String {
    sed(args, stdin).1
}

#[test]
fn posix_submatches() {
    assert_eq!(
        out(&["-E", "s/(a|ab)(c|bcd)/[\\1,\\2]/"], "abcd\n"),
        "[a,bcd]\n"
    );
    assert_eq!(
        out(&["-E", "s/(x|xy)(z|yz)?/[\\1][\\2]/"], "xyz\n"),
        "[x][yz]\n"
    );
    assert_eq!(out(&["-E", "s/(a*)(a*)/[\\1][\\2]/"], "aaa\n"), "[aaa][]\n");
    assert_eq!(
        out(&["-E", "s/((a)|b)*/[\\1][\\2]/"], "abcd\n"),
        "[b][a]cd\n"
    );
    assert_eq!(out(&["-E", "s/(a|ab)\\1*/[\\1]/"], "abab\n"), "[ab]\n");
    assert_eq!(out(&["-E", "s/(a*){2,3}/[\\1]/"], "aab\n"), "[aa]b\n");
    assert_eq!(out(&["-E", "s/(a?){1,3}/[\\1]/"], "aab\n"), "[]b\n");
    assert_eq!(out(&["-E", "s/(a|b|){2,5}/[\\1]/"], "aab\n"), "[]\n");
    assert_eq!(out(&["-n", "s/\\(a*\\)*b\\1/x/p"], "b\n"), "x\n");
}

#[test]
fn empty_matches_and_flags() {
    assert_eq!(out(&["s/x*/-/g"], "abc\n"), "-a-b-c-\n");
    assert_eq!(out(&["s/a*/x/g"], "baaac\n"), "xbxcx\n");
    assert_eq!(out(&["s/b*/-/2g"], "abc abc\n"), "a-c- -a-c-\n");
    assert_eq!(out(&["s/x*/-/3"], "ab\n"), "ab-\n");
    assert_eq!(out(&["s/o/0/2"], "hello world\n"), "hello w0rld\n");
    assert_eq!(out(&["s/B/x/I"], "abc\n"), "axc\n");
    assert_eq!(out(&["N;s/^/>/Mg"], "a\nb\n"), ">a\n>b\n");
    assert_eq!(out(&["N;s/$/</Mg"], "a\nb\n"), "a<\nb<\n");
}

#[test]
fn word_assertions() {
    assert_eq!(out(&["s/\\b/|/g"], "hello world\n"), "|hello| |world|\n");
    assert_eq!(
        out(&["s/\\B/|/g"], "hello world\n"),
        "h|e|l|l|o w|o|r|l|d\n"
    );
    assert_eq!(out(&["s/\\</|/g"], "hello world\n"), "|hello |world\n");
    assert_eq!(out(&["s/\\>/|/g"], "hello world\n"), "hello| world|\n");
}

#[test]
fn case_conversion() {
    assert_eq!(
        out(&["s/\\(l*\\)o/\\U\\1x\\E!/g"], "hello world\n"),
        "heLLX! wX!rld\n"
    );
    assert_eq!(
        out(&["s/\\w\\+/\\L\\u&/g"], "HELLO world\n"),
        "Hello World\n"
    );
    assert_eq!(out(&["s/.*/\\l\\U&/"], "aBc\n"), "ABC\n");
    assert_eq!(out(&["s/b/\\U\\lXYZ/"], "abc\n"), "axYZc\n");
}

#[test]
fn commands() {
    assert_eq!(out(&["$!N;P;D"], "a\nb\nc\n"), "a\nb\nc\n");
    assert_eq!(out(&["N;N;N;s/\\n/,/g"], "a\nb\nc\n"), "a\nb\nc\n");
    assert_eq!(out(&["H;$!d;x"], "1\n2\n3\n"), "\n1\n2\n3\n");
    assert_eq!(out(&["1,2c foo"], "a\nb\nc\n"), "foo\nc\n");
    assert_eq!(
        out(&["3,5{c\\\nX\n}"], "1\n2\n3\n4\n5\n6\n"),
        "1\n2\nX\nX\nX\n6\n"
    );
    assert_eq!(
        out(&["1a  foo\\tbar\\\\x\\y"], "a\nb"),
        "a\nfoo\tbar\\xy\nb"
    );
    assert_eq!(out(&["-n", "l"], "a\tb\x01\\\n"), "a\\tb\\001\\\\$\n");
    assert_eq!(
        out(&["-n", "l 3"], "a\tb\tc\n"),
        "a\\\n\\t\\\nb\\\n\\t\\\nc$\n"
    );
    assert_eq!(
        sed(&["2q5"], "a\nb\nc\n"),
        (5, "a\nb\n".into(), String::new())
    );
    assert_eq!(out(&["q"], "a"), "a\n");
    assert_eq!(out(&["p"], "a"), "a\na");
    assert_eq!(out(&["-n", "x;p"], "a\nb"), "\na\n");
}

#[test]
fn addresses() {
    let n = "1\n2\n3\n4\n5\n6\n7\n8\n";
    assert_eq!(out(&["-n", "4,2p"], n), "4\n");
    assert_eq!(out(&["-n", "4,~4p"], n), "4\n5\n6\n7\n8\n");
    assert_eq!(out(&["-n", "0~3p"], n), "3\n6\n");
    assert_eq!(out(&["-n", "/[2468]/,+1p"], n), "2\n3\n4\n5\n6\n7\n8\n");
    assert_eq!(out(&["-n", "0,/1/p"], n), "1\n");
    assert_eq!(out(&["-n", "1,/1/p"], n), n);
}

#[test]
fn errors() {
    assert_eq!(
        sed(&["s/b/y"], "a\n"),
        (
            1,
            String::new(),
            "sed: -e expression #1, char 5: unterminated `s' command\n".into()
        )
    );
    assert_eq!(
        sed(&["s/\\(b/y/"], "a\n").2,
        "sed: -e expression #1, char 8: Unmatched ( or \\(\n"
    );
    assert_eq!(
        sed(&["s/a**/@/"], "a\n").2,
        "sed: -e expression #1, char 8: Invalid preceding regular expression\n"
    );
    assert_eq!(
        sed(&["-e", "s/a/b/", "-e", "s/\\(/x/"], "a\n").2,
        "sed: -e expression #2, char 7: Unmatched ( or \\(\n"
    );
    assert_eq!(
        sed(&["{{p}"], "a\n").2,
        "sed: -e expression #1, char 0: unmatched `{'\n"
    );
    assert_eq!(sed(&["-n", "bx"], "a\n").0, 4);
    assert_eq!(
        sed(&["s/[:space:]/x/"], "a\n"),
        (
            4,
            String::new(),
            "sed: character class syntax is [[:space:]], not [:space:]\n".into()
        )
    );
}

#[test]
fn budget_stops_a_catastrophic_pattern() {
    use mkfifo::budget::Budget;
    use mkfifo::builtins::testing::run_with;
    use mkfifo::builtins::VarList;
    let input = format!("{}bc\n", "a".repeat(30));
    let budget = Budget::new(200_000);
    let r = run_with(
        &["sed", "-E", "s/(a*)*\\1\\1c/x/"],
        input.as_bytes(),
        &VarList::default(),
        &budget,
    );
    assert!(r.is_err(), "a runaway backtrack ends at the step limit");
}

#[test]
fn debug_prints_the_program_and_the_trace() {
    assert_eq!(
        sed(
            &[r#"--debug"#, r#"-n"#, r#"1{h;d};G;s/\(.\)\n\(.\)/\2\1/p"#],
            "1\n2\n"
        ),
        (
            0,
            r#"SED PROGRAM:
  1 {
    h
    d
  }
  G
  s/\\(.\\)\n\\(.\\)/\2\1/p
INPUT:   'STDIN' line 1
PATTERN: 1
COMMAND: 1 {
COMMAND:   h
HOLD:    1
COMMAND:   d
END-OF-CYCLE:
INPUT:   'STDIN' line 2
PATTERN: 2
COMMAND:   1 {
COMMAND:   }
COMMAND:   G
PATTERN: 2\n1
COMMAND:   s/\\(.\\)\n\\(.\\)/\2\1/p
MATCHED REGEX REGISTERS
  regex[0] = 0-3 '2
1'
  regex[1] = 0-1 '2'
  regex[2] = 2-3 '1'
12
PATTERN: 12
END-OF-CYCLE:
"#
            .to_string(),
            String::new()
        )
    );
    assert_eq!(
        sed(
            &[r#"--debug"#, r#"s/\t/\u&\\x/2;y/ab/ba/;$a end"#],
            "a\tb\n"
        ),
        (
            0,
            r#"SED PROGRAM:
  s/\t/\u&\E\x/2
  y/ab/ba/
  $ a\end

INPUT:   'STDIN' line 1
PATTERN: a\tb
COMMAND: s/\t/\u&\E\x/2
MATCHED REGEX REGISTERS
  regex[0] = 1-2 '	'
PATTERN: a\tb
COMMAND: y/ab/ba/
PATTERN: b\ta
COMMAND: $ a\end

END-OF-CYCLE:
b	a
end
"#
            .to_string(),
            String::new()
        )
    );
    assert_eq!(
        sed(&[r#"--debug"#, r#"$!N;P;D"#], "a\nb\nc"),
        (
            0,
            r#"SED PROGRAM:
  $! N
  P
  D
INPUT:   'STDIN' line 1
PATTERN: a
COMMAND: $! N
PATTERN: a\nb
COMMAND: P
a
COMMAND: D
PATTERN: b
COMMAND: $! N
PATTERN: b\nc
COMMAND: P
b
COMMAND: D
PATTERN: c
COMMAND: $! N
COMMAND: P
cCOMMAND: D
"#
            .to_string(),
            String::new()
        )
    );
    assert_eq!(
        sed(&[r#"--debug"#, r#"/x/I,+0{/b/!d};2q5"#], "a\nb\nc\n"),
        (
            5,
            r#"SED PROGRAM:
  /x/I,[ADDR-NULL] {
    /b/! d
  }
  2 q 5
INPUT:   'STDIN' line 1
PATTERN: a
COMMAND: /x/I,[ADDR-NULL] {
COMMAND: }
COMMAND: 2 q 5
END-OF-CYCLE:
a
INPUT:   'STDIN' line 2
PATTERN: b
COMMAND: /x/I,[ADDR-NULL] {
COMMAND: }
COMMAND: 2 q 5
b
"#
            .to_string(),
            String::new()
        )
    );
}
