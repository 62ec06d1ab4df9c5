//! `mkfifo-sh`: the project's shell and builtins on the command line.
//!
//! ```text
//! mkfifo-sh [--budget N] [--steps] [--subrequests N] -c SCRIPT [ARG0 [ARG...]]
//! mkfifo-sh [OPTIONS] [-s] [ARG...]        (the script comes from stdin)
//! mkfifo-sh --batch                         (JSON lines in and out, for the tests)
//! ```
//!
//! The process's environment becomes the script's (exported) variables; the exit status
//! is the script's. In `--batch` mode every input line is a case
//! `{"script": B64, "stdin": B64, "env": {NAME: B64}, "args": [B64], "budget": N}` run on
//! one long-lived shell, and every output line is
//! `{"status": N, "stdout": B64, "stderr": B64, "steps": N, "error": STR|null}`.

// The Worker's allocator (crates/small-alloc), so that native figures are the Worker's.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: small_alloc::SmallAlloc = small_alloc::SmallAlloc;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    cli::main();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use std::io::{BufRead, Read, Write};
    use std::os::unix::ffi::OsStrExt;

    use base64::engine::general_purpose::STANDARD as B64;
    use base64::Engine;
    use mkfifo::budget::DEFAULT_LIMIT;
    use mkfifo::host::LocalFuture;
    use mkfifo::native::{NativeHost, ProcessStdin};
    use mkfifo::shell::{Job, Outcome, Shell};
    use mkfifo::stream::{join_stages, Out, Pipe, Stdin};

    const USAGE: &str = "usage: mkfifo-sh [--budget N] [--steps] [--subrequests N] [-c SCRIPT [ARG0 [ARG...]] | -s [ARG...]]\n       mkfifo-sh --batch";

    /// Subrequests a script may make when `--subrequests` does not say.
    const DEFAULT_SUBREQUESTS: u32 = 50;

    fn fail(msg: &str) -> ! {
        eprintln!("mkfifo-sh: {msg}\n{USAGE}");
        std::process::exit(2);
    }

    pub fn main() {
        let args: Vec<Vec<u8>> = std::env::args_os()
            .skip(1)
            .map(|a| a.as_bytes().to_vec())
            .collect();
        let mut budget = DEFAULT_LIMIT;
        let mut show_steps = false;
        let mut subrequests = DEFAULT_SUBREQUESTS;
        let mut i = 0;
        let number = |v: Option<&Vec<u8>>, what: &str| -> u64 {
            v.and_then(|v| std::str::from_utf8(v).ok()?.parse().ok())
                .unwrap_or_else(|| fail(&format!("{what} needs a number")))
        };
        while i < args.len() {
            match args[i].as_slice() {
                b"--budget" => {
                    i += 1;
                    budget = number(args.get(i), "--budget");
                }
                b"--subrequests" => {
                    i += 1;
                    subrequests =
                        u32::try_from(number(args.get(i), "--subrequests")).unwrap_or(u32::MAX);
                }
                b"--steps" => show_steps = true,
                b"--batch" => return batch(),
                _ => break,
            }
            i += 1;
        }
        let rest = &args[i..];
        let mut job = Job {
            budget,
            max_subrequests: subrequests,
            arg0: b"sh".to_vec(),
            vars: std::env::vars_os()
                .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
                .collect(),
            ..Job::default()
        };
        let mut stdin = None;
        match rest.first().map(Vec::as_slice) {
            Some(b"-c") => {
                let Some(script) = rest.get(1) else {
                    fail("-c needs a script")
                };
                job.script = script.clone();
                if let Some(a0) = rest.get(2) {
                    job.arg0 = a0.clone();
                }
                job.args = rest.get(3..).map(<[Vec<u8>]>::to_vec).unwrap_or_default();
                stdin = Some(Stdin::outside(Box::new(ProcessStdin)));
            }
            first => {
                let params = if first == Some(b"-s") {
                    &rest[1..]
                } else {
                    rest
                };
                if let Some(p) = params
                    .first()
                    .filter(|p| p.starts_with(b"-") && p.len() > 1)
                {
                    fail(&format!("unknown option {}", String::from_utf8_lossy(p)));
                }
                if first.is_some() && first != Some(b"-s") {
                    fail("there is no file system: give the script with -c or on stdin");
                }
                job.args = params.to_vec();
                if std::io::stdin().read_to_end(&mut job.script).is_err() {
                    fail("cannot read the script from stdin");
                }
            }
        }
        let stdin = stdin.unwrap_or_default();
        let mut shell = Shell::new();
        // The script's stdout is a pipe that this process drains to its own stdout as the
        // script writes, so output flows and memory stays bounded.
        let pipe = Pipe::new();
        let script = shell.run_streams(&NativeHost, job, stdin, Out::Pipe(pipe.clone()));
        let drain = async {
            let output = Stdin::pipe(pipe.clone());
            let mut so = std::io::stdout().lock();
            while let Ok(Some(chunk)) = output.read().await {
                if so.write_all(&chunk).and_then(|()| so.flush()).is_err() {
                    // Our reader has gone: the script's next write is a broken pipe.
                    output.close();
                    break;
                }
            }
            None
        };
        let stages: [LocalFuture<'_, Option<_>>; 2] =
            [Box::pin(async { Some(script.await) }), Box::pin(drain)];
        let mut ran = pollster::block_on(join_stages(stages));
        let out = ran.swap_remove(0).expect("the script's outcome");
        let mut se = std::io::stderr().lock();
        let _ = se.write_all(&out.stderr);
        if show_steps {
            let _ = writeln!(se, "steps: {}", out.steps);
        }
        let _ = se.flush();
        std::process::exit(out.status & 0xff);
    }

    #[derive(serde::Deserialize)]
    struct Case {
        script: String,
        #[serde(default)]
        stdin: String,
        #[serde(default)]
        env: std::collections::BTreeMap<String, String>,
        #[serde(default)]
        args: Vec<String>,
        budget: Option<u64>,
        subrequests: Option<u32>,
    }

    fn decode(s: &str) -> Result<Vec<u8>, String> {
        B64.decode(s).map_err(|e| format!("bad base64: {e}"))
    }

    fn job_of(line: &str) -> Result<Job, String> {
        let case: Case = serde_json::from_str(line).map_err(|e| format!("bad case: {e}"))?;
        let mut vars: Vec<(Vec<u8>, Vec<u8>)> = vec![
            (b"LC_ALL".to_vec(), b"C".to_vec()),
            (b"TZ".to_vec(), b"UTC".to_vec()),
            (b"HOME".to_vec(), b"/nonexistent".to_vec()),
            (b"PATH".to_vec(), b"/usr/local/bin:/usr/bin:/bin".to_vec()),
        ];
        for (k, v) in &case.env {
            let v = decode(v)?;
            match vars.iter_mut().find(|(n, _)| n == k.as_bytes()) {
                Some(slot) => slot.1 = v,
                None => vars.push((k.as_bytes().to_vec(), v)),
            }
        }
        Ok(Job {
            script: decode(&case.script)?,
            arg0: b"sh".to_vec(),
            args: case
                .args
                .iter()
                .map(|a| decode(a))
                .collect::<Result<_, _>>()?,
            stdin: decode(&case.stdin)?,
            vars,
            budget: case.budget.unwrap_or(DEFAULT_LIMIT),
            max_subrequests: case.subrequests.unwrap_or(DEFAULT_SUBREQUESTS),
        })
    }

    fn batch() {
        let stdin = std::io::stdin();
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let mut shell = Shell::new();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if line.trim().is_empty() {
                continue;
            }
            let result = match job_of(&line) {
                Err(e) => Outcome {
                    status: 2,
                    stdout: Vec::new(),
                    stderr: e.into_bytes(),
                    steps: 0,
                    error: None,
                },
                Ok(job) => {
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        pollster::block_on(shell.run(&NativeHost, job))
                    }));
                    match run {
                        Ok(o) => o,
                        Err(p) => {
                            shell = Shell::new();
                            let msg = p
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| p.downcast_ref::<String>().cloned())
                                .unwrap_or_default();
                            Outcome {
                                status: 70,
                                stdout: Vec::new(),
                                stderr: format!("mkfifo-sh: panic: {msg}").into_bytes(),
                                steps: 0,
                                error: Some(mkfifo::Error::Fatal(format!("panic: {msg}"))),
                            }
                        }
                    }
                }
            };
            let json = serde_json::json!({
                "status": result.status,
                "stdout": B64.encode(&result.stdout),
                "stderr": B64.encode(&result.stderr),
                "steps": result.steps,
                "error": result.error.map(|e| e.to_string()),
            });
            let _ = writeln!(out, "{json}");
            let _ = out.flush();
        }
    }
}
