//! Timings of the shell, natively (`cargo bench --profile native --bench shell`): a 5-stage pipeline per run, and a 30-line script parsed with and
//! without the parse cache. An argument keeps only the rows whose label contains it.

fn main() {
    use mkfifo::host::FixedHost;
    use mkfifo::shell::{Job, Shell};
    use std::time::Instant;

    fn per_run(only: &Option<String>, label: &str, n: u32, mut f: impl FnMut(u32)) {
        if only.as_deref().is_some_and(|o| !label.contains(o)) {
            return;
        }
        for i in 0..n / 10 {
            f(i);
        }
        let t = Instant::now();
        for i in 0..n {
            f(i);
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / f64::from(n);
        println!("{label:<48} {us:>9.2} us");
    }

    let only = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let host = FixedHost::default();
    let mut shell = Shell::new();
    let job = |script: &str| Job {
        script: script.as_bytes().to_vec(),
        arg0: b"sh".to_vec(),
        stdin: b"hello world\n".to_vec(),
        budget: 1_000_000,
        max_subrequests: 0,
        vars: vec![(b"HOME".to_vec(), b"/".to_vec())],
        ..Job::default()
    };
    for script in [
        "true",
        "echo a | cat | cat | cat | cat",
        "cat | sed s/o/0/ | grep w | cat | sha256sum",
        "x=1; y=\"$x $x\"; z=${y#1}; echo \"$z\" >/dev/null",
        "i=0; while [ $i -lt 100 ]; do i=$((i+1)); done",
        "f() { echo \"$1\"; }; for w in a b c d e f g h i j; do f $w; done >/dev/null",
    ] {
        let o = pollster::block_on(shell.run(&host, job(script)));
        assert_eq!(
            o.error,
            None,
            "{script}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        per_run(&only, &format!("run: {script:.40}"), 20_000, |_| {
            pollster::block_on(shell.run(&host, job(script)));
        });
    }

    let lines: Vec<String> = (0..30)
        .map(|i| match i % 5 {
            0 => format!("x{i}=\"${{HOME:-/}}/$(echo part{i})\""),
            1 => format!(
                "if [ \"$x{}\" = /x ]; then echo yes; else echo no; fi",
                i - 1
            ),
            2 => format!("for w in a b c; do case $w in a|b) echo \"$w{i}\";; *) :;; esac; done"),
            3 => format!("f{i}() {{ local v=$1; printf '%s\\n' \"${{v%%.*}}\" | sed s/a/A/; }}"),
            _ => format!("y{i}=$(( {i} * 3 + ${{#HOME}} )) && echo \"$y{i}\" | sed s/1/x/"),
        })
        .collect();
    let script = lines.join("\n");
    assert!(shell.check(script.as_bytes()).is_ok());
    per_run(&only, "parse 30-line script: cache hit", 100_000, |_| {
        let _ = shell.check(script.as_bytes());
    });
    per_run(&only, "parse 30-line script: parser alone", 20_000, |_| {
        let _ = mkfifo::shell::parse::Parser::parse_top(script.as_bytes());
    });
    per_run(&only, "parse 30-line script: cache miss", 20_000, |i| {
        let s = format!("{script}\n# {i}");
        let _ = shell.check(s.as_bytes());
    });
}
