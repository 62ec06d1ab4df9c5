//! jq-path selectors against the reference jq 1.7.1: generated JSON bodies and paths;
//! a string's value must equal `jq -r` (less the newline), anything else `jq -c`, and
//! null, a missing key or a jq error the empty string.
//!
//! The reference is found through MKFIFO_REF_PATH (a `:`-separated list of directories)
//! or at `.ref/jq/bin/jq`; without it the test says so and passes.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use mkfifo::envelope::{Selector, Selectors};
use mkfifo::seeded::Rng;

fn reference_jq() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var("MKFIFO_REF_PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect();
    dirs.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ref/jq/bin"));
    let jq = dirs
        .into_iter()
        .map(|d| d.join("jq"))
        .find(|p| p.is_file())?;
    let out = Command::new(&jq).arg("--version").output().ok()?;
    (out.stdout.starts_with(b"jq-1.7.1")).then_some(jq)
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "1.0",
    "1.10",
    "0.0",
    "-0.0",
    "1e2",
    "1E+2",
    "1e-2",
    "1.5e300",
    "1e1000",
    "-1e1000",
    "1e-1000",
    "3.0e10",
    "0.00001",
    "1e-5",
    "1e-7",
    "1e17",
    "12345678901234567",
    "100000000000000000001",
    "123456789012345678901234567890.5",
    "1.7976931348623157e308",
    "0e5",
    "0e-7",
    "0.000",
    "123.456e-10",
    "10e-1",
    "12e1",
    "9007199254740993",
    "-12.5",
    "2.5E-3",
    "0.1",
    "1e+0",
    "5e-324",
];

/// Pieces of JSON string content (as written inside the quotes). Raw control
/// characters are not JSON; `\u0000` is avoided because `jq --raw-output0` refuses it.
const PIECES: &[&str] = &[
    "a",
    "b",
    "key",
    "x y",
    "é",
    "日本",
    "😀",
    "\\n",
    "\\t",
    "\\\"",
    "\\\\",
    "\\/",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\u001f",
    "\\u007f",
    "\\u0080",
    "\\udc00",
    "\\b",
    "\\f",
    "\\r",
    "",
    "0",
    "-",
    "'",
    "$",
    "%",
    "&",
    "<",
    ">",
    "\u{2028}",
    "\u{7f}",
    "\u{fffd}",
];

const KEYS: &[&str] = &[
    "a",
    "b",
    "id",
    "name",
    "full_name",
    "_x",
    "A1",
    "order id",
    "é",
    "",
    "x.y",
    "[0]",
    "\\\"q\\\"",
    "if",
    "and",
    "1",
    "a\\nb",
    "\\u00e9",
    "k k",
];

fn gen_string(rng: &mut Rng, bad_utf8: bool) -> Vec<u8> {
    let mut s = Vec::new();
    for _ in 0..rng.below(5) {
        s.extend_from_slice(rng.pick(PIECES).as_bytes());
        if bad_utf8 && rng.chance(10) {
            let bad: &[&[u8]] = &[
                b"\xff",
                b"\xc0\x80",
                b"\xed\xa0\x80",
                b"\xe2\x82",
                b"\xf4\x90\x80\x80",
                b"\x80",
            ];
            let piece: &[u8] = rng.pick(bad);
            s.extend_from_slice(piece);
        }
    }
    s
}

fn ws(rng: &mut Rng, out: &mut Vec<u8>) {
    if rng.chance(15) {
        let blanks: &[&[u8]] = &[b" ", b"\n", b"\t ", b"\r\n  "];
        let blank: &[u8] = rng.pick(blanks);
        out.extend_from_slice(blank);
    }
}

/// A generated value; strings and keys hold JSON string contents as written.
enum Value {
    Scalar(Vec<u8>),
    Str(Vec<u8>),
    Arr(Vec<Value>),
    Obj(Vec<(Vec<u8>, Value)>),
}

fn gen_value(rng: &mut Rng, depth: u32, bad_utf8: bool) -> Value {
    let kind = match depth {
        // Mostly containers at the top, so that paths have somewhere to go.
        0 if rng.chance(90) => 4 + rng.below(4),
        0..=3 => rng.below(10),
        _ => [0, 1, 2, 3, 8, 9][rng.below(6)],
    };
    match kind {
        0 => Value::Scalar(rng.pick(NUMBERS).as_bytes().to_vec()),
        1 | 8 | 9 => Value::Str(gen_string(rng, bad_utf8)),
        2 => {
            let words: &[&[u8]] = &[b"true", b"false", b"null"];
            Value::Scalar(rng.pick(words).to_vec())
        }
        3 => Value::Scalar(
            (rng.next_u64() as i64 >> rng.below(60))
                .to_string()
                .into_bytes(),
        ),
        4..=6 => Value::Obj(
            (0..rng.below(6))
                .map(|_| {
                    let key = if rng.chance(10) {
                        gen_string(rng, bad_utf8)
                    } else {
                        rng.pick(KEYS).as_bytes().to_vec()
                    };
                    (key, gen_value(rng, depth + 1, bad_utf8))
                })
                .collect(),
        ),
        _ => Value::Arr(
            (0..rng.below(6))
                .map(|_| gen_value(rng, depth + 1, bad_utf8))
                .collect(),
        ),
    }
}

fn write(rng: &mut Rng, v: &Value, out: &mut Vec<u8>) {
    ws(rng, out);
    match v {
        Value::Scalar(s) => out.extend_from_slice(s),
        Value::Str(s) => {
            out.push(b'"');
            out.extend_from_slice(s);
            out.push(b'"');
        }
        Value::Arr(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(rng, item, out);
            }
            ws(rng, out);
            out.push(b']');
        }
        Value::Obj(entries) => {
            out.push(b'{');
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                ws(rng, out);
                out.push(b'"');
                out.extend_from_slice(k);
                out.push(b'"');
                ws(rng, out);
                out.push(b':');
                write(rng, item, out);
            }
            ws(rng, out);
            out.push(b'}');
        }
    }
    ws(rng, out);
}

/// A key as a jq path step, in one of jq's spellings.
fn key_step(rng: &mut Rng, key: &str) -> String {
    let ident = key
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && key.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    // Keys are JSON string contents; their escapes are jq's too.
    let quoted = format!("\"{key}\"");
    match rng.below(3) {
        0 if ident => format!(".{key}"),
        0 | 1 => format!(".{quoted}"),
        _ => format!("[{quoted}]"),
    }
}

fn index() -> impl FnMut(&mut Rng) -> i64 {
    |rng: &mut Rng| rng.below(9) as i64 - 4
}

/// A path that mostly follows the value (existing keys and indexes), sometimes not.
fn gen_path(rng: &mut Rng, root: &Value) -> String {
    let mut p = String::from(".");
    let mut cur = Some(root);
    let mut first = true;
    for _ in 0..1 + rng.below(6) {
        let container = matches!(cur, Some(Value::Arr(_) | Value::Obj(_)));
        if cur.is_some() && !container && rng.chance(85) {
            break;
        }
        let mut idx = index();
        let (step, next) = match cur {
            Some(Value::Obj(entries)) if !entries.is_empty() && rng.chance(85) => {
                let (k, v) = &entries[rng.below(entries.len())];
                match std::str::from_utf8(k) {
                    Ok(k) => (key_step(rng, k), Some(v)),
                    Err(_) => (key_step(rng, "a"), None),
                }
            }
            Some(Value::Arr(items)) if !items.is_empty() && rng.chance(85) => {
                let i = rng.below(items.len());
                let step = if rng.chance(30) {
                    format!("[{}]", i as i64 - items.len() as i64)
                } else {
                    format!("[{i}]")
                };
                (step, items.get(i))
            }
            _ => match rng.below(10) {
                0..=3 => {
                    let key = rng.pick(KEYS);
                    (key_step(rng, key), None)
                }
                4..=5 => (format!("[{}]", idx(rng)), None),
                6 => (format!("[{}:]", idx(rng)), None),
                7 => (format!("[:{}]", idx(rng)), None),
                _ => (format!("[{}:{}]", idx(rng), idx(rng)), None),
            },
        };
        cur = next;
        if first && step.starts_with('.') {
            p = step;
        } else {
            if !first && step.starts_with('[') && !step.contains(':') && rng.chance(20) {
                p.push('.');
            }
            p.push_str(&step);
        }
        first = false;
        if rng.chance(5) {
            p.push('?');
        }
    }
    p
}

const ERR: &str = "__select_test_error__";

fn run_jq(jq: &PathBuf, flag: &str, program: &str, input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(jq)
        .args([flag, program])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run jq");
    // jq may stop reading early (a bad program); its status tells.
    let _ = child.stdin.take().expect("stdin").write_all(input);
    let out = child.wait_with_output().expect("jq output");
    assert!(
        out.status.success(),
        "jq {flag} {program} failed on {:?}: {}",
        String::from_utf8_lossy(input),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn jq_paths_match_jq_1_7_1() {
    let Some(jq) = reference_jq() else {
        // Straight to stderr: the test harness would hide an eprintln! of a passing test.
        let _ = std::io::stderr().write_all(
            b"SKIPPED jq_paths_match_jq_1_7_1: reference jq 1.7.1 not found (set MKFIFO_REF_PATH or install .ref/jq/bin/jq)\n",
        );
        return;
    };
    let mut rng = Rng(0x005E_ED5E_1EC7);
    let (mut cases, mut strings, mut empty) = (0, 0, 0);
    for doc_no in 0..500 {
        let value = gen_value(&mut rng, 0, doc_no % 4 == 3);
        let mut doc = Vec::new();
        write(&mut rng, &value, &mut doc);
        let mut paths: Vec<String> = (0..24).map(|_| gen_path(&mut rng, &value)).collect();
        paths.push(".".into());
        let program = paths
            .iter()
            .map(|p| format!("first((try ({p}) catch \"{ERR}\"), \"{ERR}\")"))
            .collect::<Vec<_>>()
            .join(", ");
        let compact = run_jq(&jq, "-c", &program, &doc);
        let raw = run_jq(&jq, "--raw-output0", &program, &doc);
        let compact: Vec<&[u8]> = compact.split(|&c| c == b'\n').collect();
        let raw: Vec<&[u8]> = raw.split(|&c| c == 0).collect();
        assert!(compact.len() > paths.len() && raw.len() > paths.len());
        let list: Vec<Selector> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| Selector {
                var: format!("v{i}"),
                selector: p.clone(),
                line: 1,
                column: 1,
            })
            .collect();
        let selectors = Selectors::compile(&list).expect("paths compile");
        let got = selectors.select(Some("application/json"), &doc, "");
        for (i, path) in paths.iter().enumerate() {
            let c = compact[i];
            let want: &[u8] = if c == format!("\"{ERR}\"").as_bytes() || c == b"null" {
                empty += 1;
                b""
            } else if c.starts_with(b"\"") {
                strings += 1;
                raw[i]
            } else {
                c
            };
            assert_eq!(
                String::from_utf8_lossy(&got[i].1),
                String::from_utf8_lossy(want),
                "path {path} on {}",
                String::from_utf8_lossy(&doc)
            );
            assert_eq!(got[i].1, want, "bytes of {path}");
            cases += 1;
        }
    }
    eprintln!("{cases} paths compared with jq 1.7.1: {strings} strings, {empty} null or errors, the rest other values");
    assert!(cases > 5000);
}
