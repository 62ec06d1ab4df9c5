//! Runs `date` with a frozen clock, for checking clock-relative date strings against GNU
//! date under libfaketime (`tests/diff/date_frozen.py`). Each stdin line is a JSON array
//! `[TZ or null, now_seconds, stdin_latin1, "date", args...]`; each output line is
//! `{"status", "stdout", "stderr"}` with bytes as Latin-1 characters.

use std::io::BufRead;

use mkfifo::builtins::testing::Session;
use mkfifo::builtins::VarList;
use mkfifo::host::{FixedHost, Timestamp};
use mkfifo::Budget;

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin is readable");
        let v: Vec<serde_json::Value> = serde_json::from_str(&line).expect("a JSON array");
        let mut vars = VarList::default();
        if let Some(tz) = v[0].as_str() {
            vars.0.push((b"TZ".to_vec(), tz.as_bytes().to_vec()));
        }
        let secs = v[1].as_i64().unwrap_or(0);
        let host = FixedHost {
            now: Timestamp { secs, nanos: 0 },
        };
        let stdin: Vec<u8> = v[2]
            .as_str()
            .unwrap_or("")
            .chars()
            .map(|c| c as u32 as u8)
            .collect();
        let args: Vec<Vec<u8>> = v[3..]
            .iter()
            .map(|a| a.as_str().unwrap_or("").as_bytes().to_vec())
            .collect();
        let mut session = Session::new(&host);
        let result = session.run_vars(&args, stdin, &vars, &Budget::default());
        let mut err = std::mem::take(&mut session.stderr);
        let status = result.unwrap_or_else(|e| {
            err.extend_from_slice(format!("ERROR {e}").as_bytes());
            99
        });
        let out = std::mem::take(&mut session.stdout);
        let r =
            serde_json::json!({"status": status, "stdout": latin1(&out), "stderr": latin1(&err)});
        println!("{r}");
    }
}
