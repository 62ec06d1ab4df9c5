//! The streaming engine end to end, natively: pipeline stages that run together, readers
//! that stop early, and builtins that wait on a real local HTTP server where they stand.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

use mkfifo::host::FixedHost;
use mkfifo::native::NativeHost;
use mkfifo::shell::{Job, Outcome, Shell};

fn job(script: &str, stdin: &str, budget: u64) -> Job {
    Job {
        script: script.as_bytes().to_vec(),
        arg0: b"sh".to_vec(),
        stdin: stdin.as_bytes().to_vec(),
        budget,
        max_subrequests: 2_000,
        ..Job::default()
    }
}

fn run(script: &str) -> Outcome {
    pollster::block_on(Shell::new().run(&FixedHost::default(), job(script, "", 10_000_000)))
}

fn text(o: &Outcome) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A local HTTP/1.1 server that answers `GET /N` with `body N\n` and counts requests.
fn server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let seen = seen.clone();
            thread::spawn(move || {
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut conn = conn;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let mut length = 0;
                    loop {
                        let mut h = String::new();
                        reader.read_line(&mut h).unwrap();
                        if h.trim_end().is_empty() {
                            break;
                        }
                        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    seen.fetch_add(1, Ordering::SeqCst);
                    let answer = format!("body {}\n", target.trim_start_matches('/'));
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
                        answer.len()
                    );
                    if conn.write_all(head.as_bytes()).is_err()
                        || conn.write_all(answer.as_bytes()).is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    (base, count)
}

#[test]
fn a_reader_that_stops_ends_its_writer() {
    let o = run("yes | head -n1");
    assert_eq!((o.status, text(&o).as_str()), (0, "y\n"));
    // yes fills the pipe and its own buffer once (64 KiB each), as GNU yes would, then stops.
    assert!(o.steps < 200_000, "yes | head -n1 took {} steps", o.steps);

    let o = run("seq 1000000000 | head -n1");
    assert_eq!((o.status, text(&o).as_str()), (0, "1\n"));
    assert!(o.steps < 200_000, "seq | head -n1 took {} steps", o.steps);

    // A shell's own echo ends its stage on a broken pipe, as SIGPIPE ends a subshell.
    let o = run("while :; do echo y; done | head -n2; echo $?");
    assert_eq!(text(&o), "y\ny\n0\n");

    // The writer's status is 141, as a process killed by SIGPIPE.
    let o = run("set -o pipefail; yes | head -n1; echo $?");
    assert_eq!(text(&o), "y\n141\n");
}

#[test]
fn stages_run_together_and_the_last_status_wins() {
    assert_eq!(
        text(&run("printf 'a\\nb\\n' | { read x; echo \"[$x]\"; cat; }")),
        "[a]\nb\n"
    );
    let o = run("false | true; echo $?; true | false; echo $?");
    assert_eq!(text(&o), "0\n1\n");
    // Each stage is a subshell: its assignments do not reach the shell.
    assert_eq!(text(&run("x=1; echo | x=2; echo $x")), "1\n");
    // More than a pipe holds flows through every stage.
    let o = run("seq 200000 | cat | tr 0 o | wc -l");
    assert_eq!(text(&o).trim(), "200000");
}

#[test]
fn step_counts_are_the_same_on_every_run() {
    let steps: Vec<u64> = (0..3)
        .map(|_| run("seq 100000 | sed 's/1/one/' | grep -c one | cat").steps)
        .collect();
    assert!(steps.windows(2).all(|w| w[0] == w[1]), "{steps:?}");
    // The limit is exact: a budget one short of what the script needs stops it.
    let need = steps[0];
    let script = "seq 100000 | sed 's/1/one/' | grep -c one | cat";
    let enough = pollster::block_on(Shell::new().run(&FixedHost::default(), job(script, "", need)));
    assert_eq!((enough.status, enough.steps), (0, need));
    let short =
        pollster::block_on(Shell::new().run(&FixedHost::default(), job(script, "", need - 1)));
    assert_eq!(short.status, mkfifo::shell::STEP_LIMIT_STATUS);
}

/// A stage's words are expanded once, whichever way the stage runs: 6,400 bytes of
/// expansion are 100 steps (one per 64 bytes) in a stage that is a function, a builtin run
/// as a light stage, or a builtin under `set -x` (which runs it in a shell of its own).
#[test]
fn a_stage_spends_its_expansion_once() {
    for (options, stage) in [("", "f"), ("", "true"), ("set -x; ", "true")] {
        let steps = |arg: &str| {
            let script =
                format!("{options}x=$(printf '%06400d' 0); f() {{ true; }}; {stage} {arg} | cat");
            run(&script).steps
        };
        assert_eq!(steps("\"$x\"") - steps("\"\""), 100, "{options}{stage}");
    }
}

#[test]
fn xargs_runs_each_command_once_with_what_it_needs() {
    let (base, count) = server();
    let urls: String = (1..=5).map(|i| format!("{base}/{i}\n")).collect();
    let script = "xargs cat";
    let o = pollster::block_on(Shell::new().run(&NativeHost, job(script, &urls, 1_000_000)));
    assert_eq!(o.status, 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(text(&o), "body 1\nbody 2\nbody 3\nbody 4\nbody 5\n");
    assert_eq!(count.load(Ordering::SeqCst), 5);

    let many: String = (1..=200).map(|i| format!("{base}/{i}\n")).collect();
    let o = pollster::block_on(
        Shell::new().run(&NativeHost, job("xargs -n1 curl -s", &many, 1_000_000)),
    );
    assert_eq!(o.status, 0, "{}", String::from_utf8_lossy(&o.stderr));
    let want: String = (1..=200).map(|i| format!("body {i}\n")).collect();
    assert_eq!(text(&o), want);
    assert_eq!(count.load(Ordering::SeqCst), 205, "one fetch per URL");
}

#[test]
fn xargs_p_runs_commands_side_by_side() {
    let (base, count) = server();
    let urls: String = (1..=50).map(|i| format!("{base}/{i}\n")).collect();
    let o = pollster::block_on(
        Shell::new().run(&NativeHost, job("xargs -P 4 -n1 curl -s", &urls, 1_000_000)),
    );
    assert_eq!(o.status, 0, "{}", String::from_utf8_lossy(&o.stderr));
    let mut got: Vec<String> = text(&o).lines().map(str::to_string).collect();
    got.sort();
    let mut want: Vec<String> = (1..=50).map(|i| format!("body {i}")).collect();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(count.load(Ordering::SeqCst), 50);
    // A failing command makes the status 123; the others still run.
    let o = run("printf '1\\n2\\n3\\n' | xargs -P 2 -n1 test 2 !=");
    assert_eq!(o.status, 123);
    let o = run("printf 'a\\nb\\nc\\n' | xargs -P 3 -n1 echo");
    assert_eq!(text(&o), "a\nb\nc\n");
}
