//! jq 1.7.1's own test files run against the `jq` builtin.
//!
//! The files come from jq's distribution (`share/jq/tests/*.test`); set `JQ_TESTS` to
//! their folder, else `.ref/jq/share/jq/tests` under the repository is used. A case is a
//! program line, an input line and the expected output lines, compared as JSON values
//! the way jq's `--run-tests` compares them; `%%FAIL` cases expect a compile error. The
//! pass rate of each file is printed, the failures go to `target/jq-suite.failed`, and
//! each file must pass at least its floor in `FLOORS` (a file that is missing, or a case
//! that panics, fails the test).

use std::path::PathBuf;

use mkfifo::builtins::{testing, VarList};
use mkfifo::jq::json::Reader;
use mkfifo::jq::value::equal;
use mkfifo::jq::Val;

struct Case {
    line: usize,
    program: String,
    input: String,
    expected: Vec<String>,
    fail: bool,
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if l.trim().is_empty() || l.starts_with('#') {
            i += 1;
            continue;
        }
        let start = i + 1;
        let fail = l.starts_with("%%FAIL");
        if fail {
            i += 1;
        }
        let program = lines.get(i).copied().unwrap_or_default().to_string();
        i += 1;
        let input = if fail {
            String::new()
        } else {
            let s = lines.get(i).copied().unwrap_or_default().to_string();
            i += 1;
            s
        };
        let mut expected = Vec::new();
        while i < lines.len() && !lines[i].trim().is_empty() {
            if !lines[i].starts_with('#') || fail {
                expected.push(lines[i].to_string());
            }
            i += 1;
        }
        cases.push(Case {
            line: start,
            program,
            input,
            expected,
            fail,
        });
    }
    cases
}

fn values(text: &str) -> Option<Vec<Val>> {
    let mut r = Reader::new(text.as_bytes());
    let mut out = Vec::new();
    while let Some(v) = r.next_value() {
        out.push(v.ok()?);
    }
    Some(out)
}

/// Runs one case; `Err` says why it failed.
fn check(case: &Case) -> Result<(), String> {
    // jq's own runner has PAGER=less in its environment (man.test uses it)
    let vars = VarList(vec![(b"PAGER".to_vec(), b"less".to_vec())]);
    let budget = mkfifo::Budget::default();
    let ran = testing::run_with(
        &["jq", "-c", "--", &case.program],
        case.input.as_bytes(),
        &vars,
        &budget,
    )
    .map_err(|e| format!("run failed: {e}"))?;
    if case.fail {
        if ran.status != 3 {
            return Err(format!(
                "expected a compile error, got status {} out {:?}",
                ran.status,
                ran.stdout_str()
            ));
        }
        return Ok(());
    }
    let got = values(&ran.stdout_str())
        .ok_or_else(|| format!("unparsable output {:?}", ran.stdout_str()))?;
    let mut want = Vec::new();
    for e in &case.expected {
        want.extend(values(e).ok_or_else(|| format!("unparsable expectation {e:?}"))?);
    }
    let same = got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| equal(g, w));
    if !same || (ran.status != 0 && ran.status != 5) {
        return Err(format!(
            "want {:?}\n  got {:?} status {} stderr {:?}",
            case.expected,
            ran.stdout_str(),
            ran.status,
            ran.stderr_str()
        ));
    }
    Ok(())
}

/// Each of jq's test files and the fewest of its cases that must pass (`None`: all).
/// jq.test's 12 others need modules, which need files; onig.test's other is an empty
/// capture of a repeated group that Oniguruma reports (docs/jq.md).
const FLOORS: &[(&str, Option<usize>)] = &[
    ("jq", Some(435)),
    ("man", None),
    ("base64", None),
    ("onig", Some(39)),
    ("manonig", None),
    ("optional", None),
];

#[test]
fn jq_suites() {
    let dir = std::env::var_os("JQ_TESTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ref/jq/share/jq/tests")
        });
    if !dir.is_dir() {
        eprintln!(
            "\n*** SKIPPED: jq's test files are not at {} (set JQ_TESTS) ***\n",
            dir.display()
        );
        return;
    }
    let mut report = String::new();
    let mut summary = Vec::new();
    let mut below = Vec::new();
    for &(name, floor) in FLOORS {
        let path = dir.join(format!("{name}.test"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            below.push(format!("{name}.test is missing from {}", dir.display()));
            continue;
        };
        let cases = parse_cases(&text);
        let mut pass = 0;
        for case in &cases {
            let r = std::panic::catch_unwind(|| check(case)).unwrap_or_else(|_| {
                below.push(format!("{name}.test:{}: panic", case.line));
                Err("panic".into())
            });
            match r {
                Ok(()) => pass += 1,
                Err(why) => report.push_str(&format!(
                    "{name}.test:{}: {}\n  input {:?}\n  {why}\n\n",
                    case.line, case.program, case.input
                )),
            }
        }
        let rate = pass as f64 / cases.len().max(1) as f64;
        let need = floor.unwrap_or(cases.len());
        if pass < need {
            below.push(format!("{name}.test: {pass} cases pass, fewer than {need}"));
        }
        summary.push(format!(
            "{name}.test: {pass}/{} ({:.1}%)",
            cases.len(),
            rate * 100.0
        ));
    }
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/jq-suite.failed");
    let _ = std::fs::write(&out, &report);
    eprintln!("{}\nfailures: {}", summary.join("\n"), out.display());
    assert!(below.is_empty(), "{}", below.join("\n"));
}
