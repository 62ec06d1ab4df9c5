//! The parsers never panic and never run away: shell scripts, jq filters, sed scripts,
//! regular expressions, printf formats and compressed or encoded input, made from
//! fragments of their languages (valid and broken) by a seeded generator. Every case runs
//! with a small step budget, so it ends with its output, a clear error, or the step limit.

use std::panic::{catch_unwind, AssertUnwindSafe};

use mkfifo::builtins::testing::run_with;
use mkfifo::builtins::VarList;
use mkfifo::host::FixedHost;
use mkfifo::seeded::Rng;
use mkfifo::shell::{Job, Shell};
use mkfifo::Budget;

const CASES: usize = 3000;
const BUDGET: u64 = 20_000;

/// Text of 1 to `max` fragments.
fn soup(rng: &mut Rng, pieces: &[&str], max: usize) -> String {
    let n = 1 + rng.below(max);
    (0..n).map(|_| rng.pick(pieces)).collect()
}

/// Runs builtin `args` on `stdin` and fails the test, naming the case, if it panics.
fn survives(what: &str, args: &[&str], stdin: &[u8]) {
    let run = catch_unwind(AssertUnwindSafe(|| {
        let budget = Budget::new(BUDGET);
        // An error (the step limit, a missing resource) is an answer too.
        let _ = run_with(args, stdin, &VarList::default(), &budget);
    }));
    assert!(
        run.is_ok(),
        "{what} panicked on {args:?} with stdin {stdin:?}"
    );
}

const SHELL: &[&str] = &[
    "echo a",
    " ",
    " ",
    ";",
    "\n",
    "|",
    "&&",
    "||",
    "!",
    "(",
    ")",
    "{ ",
    " }",
    "$(",
    "`",
    "'",
    "\"",
    "\\",
    "$x",
    "${x",
    ":-y}",
    "${#x}",
    "${x%%*}",
    "}",
    "$((",
    "1+2",
    "/0",
    "))",
    "$?",
    "$@",
    "\"$@\"",
    "if ",
    "then ",
    "else ",
    "elif ",
    "fi",
    "for i in 1 2",
    "; do ",
    "done",
    "while false",
    "until true",
    "case $x in ",
    "a|b) ",
    ";;",
    "esac",
    "f() ",
    "return 3",
    "exit 1",
    "x=1 ",
    "set -e",
    "set --",
    " a b",
    "shift",
    "read -r y",
    "<<EOF\n",
    "EOF\n",
    "<<-'E'\n",
    "E\n",
    ">/dev/null",
    "2>&1",
    ">&2",
    "<x",
    ">y",
    "#c\n",
    "printf '%s\\n' ",
    "cat",
    "sed s/a/b/",
    "jq .",
    "tr a-z A-Z",
    "sh -c ",
    "unset x",
    "export x",
    "local",
    ": ",
    "[ 1 = 1 ]",
    "test -n",
    "eval",
    "break",
    "continue",
    "~",
    "*",
    "?",
    "[a",
    "$0",
    "$9",
    "${10}",
];

#[test]
fn shell_scripts() {
    let mut rng = Rng(0x5EED_0001);
    let host = FixedHost::default();
    let mut shell = Shell::new();
    for _ in 0..CASES {
        let script = soup(&mut rng, SHELL, 24);
        let job = Job {
            script: script.as_bytes().to_vec(),
            arg0: b"sh".to_vec(),
            args: vec![b"a".to_vec(), b"b c".to_vec()],
            stdin: b"line one\nline two\n".to_vec(),
            budget: BUDGET,
            ..Job::default()
        };
        let ran = catch_unwind(AssertUnwindSafe(|| {
            pollster::block_on(shell.run(&host, job));
        }));
        assert!(ran.is_ok(), "the shell panicked on {script:?}");
    }
}

const JQ: &[&str] = &[
    ".",
    ".a",
    ".[0]",
    ".[]",
    ".[1:]",
    "..",
    "|",
    ",",
    " ",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    "\"s\"",
    "\"\\(.)\"",
    "1",
    "-1",
    "1e1000",
    "nan",
    "null",
    "true",
    "+",
    "-",
    "*",
    "/",
    "%",
    "==",
    "<",
    "and",
    "or",
    "not",
    "?",
    "//",
    "?//",
    "as $x",
    "$x",
    "$__loc__",
    "reduce ",
    "foreach ",
    "(.[]; 0; . + 1)",
    "if ",
    "then ",
    "elif ",
    "else ",
    "end",
    "try ",
    "catch ",
    "def f: ",
    "def g(a; $b): ",
    ";",
    "f",
    "g(1; 2)",
    "label $out",
    "break $out",
    "limit(3; ",
    "range(5)",
    "recurse",
    "paths",
    "tostream",
    "fromstream(",
    "input",
    "inputs",
    "splits(\"a\")",
    "test(\"a+\")",
    "sub(\"(?<x>a)\"; \"\\(.x)\")",
    "@base64",
    "@base64d",
    "@csv",
    "@tsv",
    "@sh",
    "@uri",
    "@json",
    "@html",
    "tojson",
    "fromjson",
    "getpath([\"a\"])",
    "setpath([0]; 1)",
    "del(.a)",
    "to_entries",
    "with_entries(.)",
    "group_by(.)",
    "sort_by(.a)",
    "min_by(.)",
    "implode",
    "explode",
    "ltrimstr(\"a\")",
    "splits",
    "ascii",
    "@text",
    "$ENV",
    "env",
    "strptime(\"%Y\")",
    "mktime",
    "gmtime",
    "todate",
    "strftime(\"%c\")",
    "getpath",
    "error",
    "halt_error",
    "input_line_number",
    "$__prog_args",
    "import \"a\" as a;",
    "include \"b\";",
    "|=",
    "+=",
    "//=",
    "=",
    "..|numbers",
    "[.[]|select(. > 1)]",
    "{a: 1, (\"b\"): 2, $x}",
    "{$__loc__}",
    ".[\"a\"]?",
    "getpath([1,2])?",
    "to_number",
    "tonumber",
    "tostring",
    "ltrimstr",
];

const JSON_INPUTS: &[&str] = &[
    "",
    "null",
    "1",
    "\"a\"",
    "[1,2,3]",
    "{\"a\":{\"b\":[1,{\"c\":null}]},\"d\":\"x\"}",
    "[{\"a\":1},{\"a\":\"2\"},null]",
    "1 2 3",
    "{\"a\":",
    "[1,",
    "\"\\u00e9\\ud83d\"",
    "1e400",
    "[[[[[[[[[[[]]]]]]]]]]]",
    "\u{feff}{}",
    "nan",
    "{\"a\":1,\"a\":2}",
];

#[test]
fn jq_filters() {
    let mut rng = Rng(0x5EED_0002);
    let options: &[&[&str]] = &[
        &["-c"],
        &["-r"],
        &["-n"],
        &["-s", "-c"],
        &["-e"],
        &["--stream", "-c"],
        &["--seq"],
        &["-S", "--tab"],
        &["-R"],
        &["-j", "--arg", "x", "v"],
    ];
    for _ in 0..CASES {
        let filter = soup(&mut rng, JQ, 12);
        let mut args = vec!["jq"];
        args.extend_from_slice(rng.pick(options));
        args.push(&filter);
        let input = rng.pick(JSON_INPUTS);
        survives("jq", &args, input.as_bytes());
    }
}

const REGEX: &[&str] = &[
    "a",
    "b",
    ".",
    "*",
    "+",
    "?",
    "\\+",
    "\\?",
    "|",
    "\\|",
    "(",
    ")",
    "\\(",
    "\\)",
    "{",
    "}",
    "\\{",
    "\\}",
    "1",
    ",",
    "2",
    "^",
    "$",
    "[",
    "]",
    "[^",
    "[:alpha:]",
    "[:",
    ":]",
    "[.",
    ".]",
    "[=",
    "=]",
    "-",
    "\\1",
    "\\2",
    "\\w",
    "\\W",
    "\\s",
    "\\b",
    "\\B",
    "\\<",
    "\\>",
    "\\`",
    "\\'",
    "\\n",
    "\\",
    "\u{e9}",
    "\\x41",
    "\\o",
    "\\d",
    "x{0,}",
    "{1,2}",
    "*?",
    "(?:",
    "(?<n>",
];

#[test]
fn sed_scripts_and_regexes() {
    let mut rng = Rng(0x5EED_0003);
    let commands: &[&str] = &[
        "p",
        "d",
        "n",
        "N",
        "D",
        "P",
        "G",
        "H",
        "g",
        "h",
        "x",
        "=",
        "l",
        "q",
        "Q",
        "z",
        "F",
        "s/",
        "/",
        "/g",
        "/2p",
        "/e",
        "/w /dev/stdout",
        "y/abc/xyz/",
        "y/a/",
        "{",
        "}",
        "!",
        "1",
        ",",
        "$",
        "3~2",
        "0,/a/",
        "/a/I",
        ",+2",
        ";",
        "\n",
        " ",
        "a\\\ntext",
        "i text",
        "c\\",
        "b end",
        ":end",
        "t",
        "T",
        "r x",
        "W y",
        "e",
        "v",
        "#n\n",
        "\\%a%",
    ];
    let flags: &[&[&str]] = &[&[], &["-n"], &["-E"], &["-z"], &["-s", "-n"], &["--posix"]];
    for _ in 0..CASES {
        let mut script = String::new();
        for _ in 0..1 + rng.below(4) {
            script.push_str(rng.pick(commands));
            if rng.chance(60) {
                script.push_str(&soup(&mut rng, REGEX, 6));
            }
        }
        let mut args = vec!["sed"];
        args.extend_from_slice(rng.pick(flags));
        args.push(&script);
        survives("sed", &args, b"abc\naab\n\xe9b\n\nzz");

        let pattern = soup(&mut rng, REGEX, 10);
        let grep_flags: &[&[&str]] = &[
            &[],
            &["-E"],
            &["-F"],
            &["-o"],
            &["-i", "-w"],
            &["-x", "-c"],
            &["-P"],
        ];
        let mut args = vec!["grep"];
        args.extend_from_slice(rng.pick(grep_flags));
        args.extend(["-e", &pattern]);
        survives("grep", &args, b"abc\naab\n\xe9b\n\nzz");
    }
}

#[test]
fn printf_formats() {
    let mut rng = Rng(0x5EED_0004);
    let pieces: &[&str] = &[
        "%",
        "%%",
        "-",
        "+",
        " ",
        "#",
        "0",
        "*",
        ".",
        "1",
        "9",
        "99999999999",
        "d",
        "i",
        "o",
        "u",
        "x",
        "X",
        "e",
        "E",
        "f",
        "g",
        "G",
        "a",
        "A",
        "c",
        "s",
        "b",
        "q",
        "\\",
        "\\0",
        "\\x",
        "\\u",
        "\\U0001F600",
        "\\c",
        "\\n",
        "text",
        "'",
        "$",
        "1$",
        "l",
        "h",
        "L",
        "z",
    ];
    let args_pool: &[&str] = &[
        "1", "-2", "0x1f", "'a", "\"b", "1.5e3", "abc", "", "\\n", "9e9999", "077",
    ];
    for _ in 0..CASES {
        let format = soup(&mut rng, pieces, 10);
        let mut args = vec!["printf", format.as_str()];
        for _ in 0..rng.below(4) {
            args.push(rng.pick(args_pool));
        }
        survives("printf", &args, b"");
    }
}

#[test]
fn compressed_and_encoded_input() {
    let mut rng = Rng(0x5EED_0005);
    let plain = b"hello hello hello, a line of text\n".repeat(40);
    let gz = run_with(
        &["gzip", "-c", "-n"],
        &plain,
        &VarList::default(),
        &Budget::default(),
    )
    .expect("gzip runs")
    .stdout;
    let b64 = run_with(&["base64"], &plain, &VarList::default(), &Budget::default())
        .expect("base64 runs")
        .stdout;
    for _ in 0..CASES {
        // A valid stream, cut short, with bytes changed, or with junk after it.
        let mut data = if rng.chance(50) {
            gz.clone()
        } else {
            b64.clone()
        };
        match rng.below(4) {
            0 => data.truncate(rng.below(data.len())),
            1 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(data.len());
                    data[at] = rng.next_u64() as u8;
                }
            }
            2 => data.extend((0..rng.below(40)).map(|_| rng.next_u64() as u8)),
            _ => data = (0..rng.below(200)).map(|_| rng.next_u64() as u8).collect(),
        }
        for args in [
            &["gunzip", "-c"][..],
            &["zcat"],
            &["base64", "-d"],
            &["base64", "-d", "-i"],
            &["basenc", "--z85", "-d"],
            &["base32", "-d"],
        ] {
            survives(args[0], args, &data);
        }
    }
}
