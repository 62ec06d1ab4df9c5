//! The `jq` builtin under its limits: the step budget is exact and stops runaway filters,
//! values are capped in size, and deep recursion stops before the stack (wasm has about
//! 1 MiB) runs out. Expected outputs come from jq 1.7.1.

use mkfifo::builtins::testing::{run, run_with, Ran};
use mkfifo::builtins::VarList;
use mkfifo::{Budget, Error};

fn jq(args: &[&str], stdin: &str) -> Ran {
    let mut argv = vec!["jq"];
    argv.extend_from_slice(args);
    run(&argv, stdin.as_bytes()).expect("jq runs")
}

fn jq_budget(args: &[&str], stdin: &str, limit: u64) -> Result<Ran, Error> {
    let mut argv = vec!["jq"];
    argv.extend_from_slice(args);
    let budget = Budget::new(limit);
    run_with(&argv, stdin.as_bytes(), &VarList::default(), &budget)
}

/// Runs `f` on a thread with the stack the Workers runtime gives wasm.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no stack overflow")
}

#[test]
fn runaway_filters_stop_at_the_budget() {
    for prog in [
        "repeat(1)",
        "[range(1e9)]",
        "def f: f; f",
        "[limit(1e9; repeat(1))] | length",
        "reduce range(1e12) as $x (0; .+1)",
        "[recurse(. + 1)] | length",
        "last(range(1e12))",
        "until(false; .)",
        "[while(true; .)] | length",
        "[.[]?] as $x | label $out | foreach range(1e12) as $i (0; .+1; empty)",
    ] {
        let r = jq_budget(&["-n", prog], "", 200_000);
        assert!(
            matches!(r, Err(Error::StepLimit { limit: 200_000 })),
            "{prog}: {r:?}"
        );
    }
}

#[test]
fn the_budget_is_exact() {
    for (args, stdin) in [
        (&["-c", "[.[] | . * 2] | add"][..], "[1,2,3,4,5,6,7,8,9,10]"),
        (
            &["-n", "[range(100)] | map(tostring) | join(\",\") | length"][..],
            "",
        ),
        (
            &["-c", "to_entries | map(.value) | sort"][..],
            r#"{"b":2,"a":1,"c":[3]}"#,
        ),
        (
            &["-c", "def f: if . > 0 then . - 1 | f else . end; 50 | f"][..],
            "null",
        ),
        (&["."][..], r#"{"a":[1,2,{"b":"x"}],"c":"y"}"#),
    ] {
        let full = jq_budget(args, stdin, 10_000_000).expect("runs");
        assert_eq!(full.status, 0, "{args:?}");
        let need = full.steps;
        let exact = jq_budget(args, stdin, need).expect("runs with exactly its steps");
        assert_eq!(exact.stdout, full.stdout, "{args:?}");
        let short = jq_budget(args, stdin, need - 1);
        assert!(
            matches!(short, Err(Error::StepLimit { .. })),
            "{args:?}: {short:?}"
        );
    }
}

#[test]
fn values_are_capped() {
    let r = jq(&["-n", r#""x" * 1e9 | length"#], "");
    assert_eq!(r.status, 5);
    assert!(
        r.stderr_str()
            .starts_with("jq: error: cannot allocate memory"),
        "{}",
        r.stderr_str()
    );
    let r = jq_budget(&["-n", "[range(1e8)] | length"], "", u64::MAX).expect("runs");
    assert_eq!(r.status, 5);
}

#[test]
fn deep_recursion_stops_cleanly() {
    small_stack(|| {
        for prog in ["def f: [f]; f", "def f: 1 + f; f", "def f: (f | .a), 1; f"] {
            let r = jq(&["-n", prog], "");
            assert_eq!(r.status, 5, "{prog}");
            assert!(
                r.stderr_str().contains("cannot allocate memory"),
                "{prog}: {}",
                r.stderr_str()
            );
        }
    });
}

#[test]
fn deep_values_print_and_free_without_recursion() {
    small_stack(|| {
        // jq prints values nested past 256 levels as <skipped: too deep>
        let r = jq(&["-nc", "reduce range(300) as $i (null; [.])"], "");
        assert_eq!(r.status, 0);
        let out = r.stdout_str();
        assert!(out.starts_with(&"[".repeat(257)), "{}", &out[..300]);
        assert!(out.contains("<skipped: too deep>"));
        // a value nested 200000 deep is built, measured and dropped on a small stack
        let r = jq(
            &[
                "-n",
                "reduce range(200000) as $i (null; [.]) | tojson | length",
            ],
            "",
        );
        assert_eq!(r.stdout_str(), "533\n");
    });
}

#[test]
fn input_nesting_is_limited_like_jq() {
    let ok = format!("{}{}", "[".repeat(256), "]".repeat(256));
    assert_eq!(jq(&["-c", "length"], &ok).stdout_str(), "1\n");
    let deep = format!("{}{}", "[".repeat(10000), "]".repeat(10000));
    let r = jq(&["-c", "length"], &deep);
    assert_eq!(r.status, 5);
    assert_eq!(
        r.stderr_str(),
        "jq: parse error: Exceeds depth limit for parsing at line 1, column 257\n"
    );
}

#[test]
fn compiled_programs_are_cached() {
    use mkfifo::jq::Cache;
    let mut cache = Cache::default();
    let globals = ["$ENV".to_string(), "$ARGS".to_string()];
    let a = cache.get(".a", &globals).expect("compiles");
    let b = cache.get(".a", &globals).expect("compiles");
    assert!(std::rc::Rc::ptr_eq(&a, &b));
    let mut more = globals.to_vec();
    more.push("$x".into());
    let c = cache.get(".a", &more).expect("compiles");
    assert!(!std::rc::Rc::ptr_eq(&a, &c));
}

#[test]
fn object_keys_count_toward_the_nesting_limit() {
    // jq's parser holds each object's key on its stack while the value is read
    let deep = format!("{}1{}", r#"{"a":"#.repeat(129), "}".repeat(129));
    let r = jq(&["-c", "."], &deep);
    assert_eq!(r.status, 5);
    assert_eq!(
        r.stderr_str(),
        "jq: parse error: Exceeds depth limit for parsing at line 1, column 641\n"
    );
    let ok = format!("{}1{}", r#"{"a":"#.repeat(128), "}".repeat(128));
    assert_eq!(jq(&["-c", "."], &ok).status, 0);
}

/// `.` copies arrays and objects straight from the input text; a comment keeps the
/// program the same but takes the general path. Both must spend the same steps, and
/// stop at the same place under every budget.
#[test]
fn copying_spends_what_the_general_path_spends() {
    let big = format!(
        "[{}]",
        (0..300)
            .map(|i| format!(r#"{{"id":{i},"name":"item-{i}","tags":["a","b"],"p":{i}.25}}"#))
            .collect::<Vec<_>>()
            .join(",")
    );
    let inputs = [
        r#"{"a":[1,2,{"b":"x"}],"c":"y"}"#.to_string(),
        "[1] [2,3]\n{\"a\":null}  []{}".to_string(),
        r#"[1] {"a":1,"a":2} [3]"#.to_string(),
        r#"[1,{"a":"b"}] [2 3] [4]"#.to_string(),
        "\"s\" [1] 2 [\"\\u00e9\\n\", 1E+2, 100000000000000000000]".to_string(),
        "[1,2".to_string(),
        big,
    ];
    for stdin in &inputs {
        for opts in [
            &["-c"][..],
            &[][..],
            &["--tab"][..],
            &["-e", "--indent", "3"][..],
        ] {
            let run = |prog: &str, limit: u64| {
                let mut args = opts.to_vec();
                args.push(prog);
                let r = jq_budget(&args, stdin, limit);
                format!("{r:?}")
            };
            let full = jq_budget(&[opts, &["."]].concat(), stdin, 10_000_000).expect("runs");
            let general = jq_budget(&[opts, &["#\n."]].concat(), stdin, 10_000_000).expect("runs");
            assert_eq!(full.steps, general.steps, "{opts:?} {stdin}");
            assert_eq!(full.stdout, general.stdout, "{opts:?} {stdin}");
            let step = (full.steps / 40).max(1);
            let mut limit = 1;
            while limit <= full.steps + 1 {
                assert_eq!(
                    run(".", limit),
                    run("#\n.", limit),
                    "{opts:?} {limit} {stdin}"
                );
                limit += if limit + 20 > full.steps { 1 } else { step };
            }
        }
    }
}
