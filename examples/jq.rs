//! Runs the jq builtin on stdin, for trying things by hand: `cargo run --example jq -- ARGS`.
use std::io::{Read, Write};

fn main() {
    let mut args: Vec<String> = vec!["jq".into()];
    args.extend(std::env::args().skip(1));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    match mkfifo::builtins::testing::run(&argv, &input) {
        Ok(r) => {
            let _ = std::io::stdout().write_all(&r.stdout);
            let _ = std::io::stderr().write_all(&r.stderr);
            eprintln!("[status {} steps {}]", r.status, r.steps);
            std::process::exit(r.status);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(99);
        }
    }
}
