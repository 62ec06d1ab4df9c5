//! `curl` against the real curl: a small HTTP server runs in a thread, the real
//! `/usr/bin/curl` and the builtin make the same requests to it, and stdout plus exit
//! status must agree. The builtin's requests go through a minimal HTTP/1.1 client here,
//! standing in for the host's transport. Skipped when curl is not installed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::thread;

use mkfifo::builtins::testing::Session;
use mkfifo::host::{FixedHost, HttpRequest, HttpResponse};
use mkfifo::Budget;

/// A request as the server reads it: method, target, headers, body.
type Request = (String, String, Vec<(String, String)>, Vec<u8>);

/// Reads one request.
fn read_request(r: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.to_string(), v.trim().to_string()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some((method, target, headers, body))
}

/// The test server's answer: status, reason, headers, body.
fn route(
    method: &str,
    target: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> (u16, &'static str, Vec<(String, String)>, Vec<u8>) {
    let h = |k: &str, v: &str| (k.to_string(), v.to_string());
    if let Some(code) = target.strip_prefix("/status/") {
        let code: u16 = code.split('?').next().unwrap().parse().unwrap_or(500);
        let reason = match code {
            200 => "OK",
            201 => "Created",
            404 => "Not Found",
            500 => "Internal Server Error",
            503 => "Service Unavailable",
            _ => "Whatever",
        };
        return (
            code,
            reason,
            vec![h("Content-Type", "text/plain")],
            format!("status {code}\n").into_bytes(),
        );
    }
    if let Some(n) = target.strip_prefix("/redirect/") {
        let n: u32 = n.parse().unwrap_or(1);
        let to = if n > 1 {
            format!("/redirect/{}", n - 1)
        } else {
            "/echo?from=redirect".into()
        };
        return (302, "Found", vec![h("Location", &to)], Vec::new());
    }
    // Everything else echoes the request, headers sorted (transports order them freely).
    let mut hs: Vec<String> = headers
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("connection"))
        .map(|(k, v)| format!("{}: {v}", k.to_ascii_lowercase()))
        .collect();
    hs.sort();
    let mut out = format!("{method} {target}\n{}\n--\n", hs.join("\n")).into_bytes();
    out.extend_from_slice(body);
    (
        200,
        "OK",
        vec![
            h("Content-Type", "text/plain; charset=utf-8"),
            h("X-Custom", "Yes"),
            h("X-Multi", "a"),
            h("X-Multi", "b"),
        ],
        out,
    )
}

fn serve(listener: TcpListener) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        thread::spawn(move || {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut stream = stream;
            while let Some((method, target, headers, body)) = read_request(&mut reader) {
                let (code, reason, hs, out) = route(&method, &target, &headers, &body);
                let mut resp = format!("HTTP/1.1 {code} {reason}\r\n");
                for (k, v) in &hs {
                    resp.push_str(&format!("{k}: {v}\r\n"));
                }
                resp.push_str(&format!("Content-Length: {}\r\n\r\n", out.len()));
                let mut bytes = resp.into_bytes();
                if method != "HEAD" {
                    bytes.extend_from_slice(&out);
                }
                if stream.write_all(&bytes).is_err() {
                    break;
                }
            }
        });
    }
}

/// A minimal HTTP/1.1 client: the test's stand-in for the host's transport.
fn fetch(req: &HttpRequest) -> Result<HttpResponse, String> {
    let mut url = req.url.clone();
    for _ in 0..10 {
        let rest = url.strip_prefix("http://").ok_or("bad scheme")?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let port = authority.rsplit(':').next().unwrap_or("80");
        let mut stream = TcpStream::connect(authority).map_err(|_| {
            format!(
                "Failed to connect to 127.0.0.1 port {port} after 0 ms: Couldn't connect to server"
            )
        })?;
        let mut head = format!("{} {} HTTP/1.1\r\nHost: {authority}\r\n", req.method, path);
        for (k, v) in &req.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if !req.body.is_empty() {
            head.push_str(&format!("Content-Length: {}\r\n", req.body.len()));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&req.body);
        stream.write_all(&bytes).map_err(|e| e.to_string())?;
        let mut r = BufReader::new(stream);
        let mut line = String::new();
        r.read_line(&mut line).map_err(|e| e.to_string())?;
        let mut parts = line.trim_end().splitn(3, ' ');
        parts.next();
        let status: u16 = parts.next().unwrap_or("0").parse().unwrap_or(0);
        let reason = parts.next().unwrap_or("").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            r.read_line(&mut h).map_err(|e| e.to_string())?;
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (k, v) = h.split_once(':').ok_or("bad header")?;
            headers.push((k.to_string(), v.trim().to_string()));
        }
        let len: usize = headers
            .iter()
            .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; if req.method == "HEAD" { 0 } else { len }];
        r.read_exact(&mut body).map_err(|e| e.to_string())?;
        let location = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("location"))
            .map(|(_, v)| v.clone());
        match location {
            Some(loc) if req.follow_redirects && (300..400).contains(&status) => {
                url = format!("http://{authority}{loc}");
            }
            _ => {
                return Ok(HttpResponse {
                    status,
                    reason,
                    headers,
                    body,
                    url: if url == req.url { String::new() } else { url },
                })
            }
        }
    }
    Err("Maximum (10) redirects followed".into())
}

/// Runs the builtin as the shell would, performing each request it asks for.
fn ours(args: &[String], stdin: &[u8]) -> (i32, Vec<u8>) {
    let mut argv: Vec<Vec<u8>> = vec![b"curl".to_vec()];
    argv.extend(args.iter().map(|a| a.as_bytes().to_vec()));
    let host = FixedHost::default();
    let mut session = Session::new(&host);
    // Each request is made once: a test server's answer to it does not change.
    let cache: RefCell<HashMap<HttpRequest, Result<HttpResponse, String>>> = RefCell::default();
    session.answer = Some(Box::new(move |req: &HttpRequest| {
        cache
            .borrow_mut()
            .entry(req.clone())
            .or_insert_with(|| fetch(req))
            .clone()
    }));
    let status = session
        .run(&argv, stdin.to_vec(), &Budget::default())
        .unwrap_or_else(|e| panic!("{e}"));
    (status, std::mem::take(&mut session.stdout))
}

fn real(args: &[String], stdin: &[u8]) -> (i32, Vec<u8>) {
    let mut child = Command::new("curl")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), out.stdout)
}

#[test]
fn same_as_real_curl() {
    if Command::new("curl").arg("--version").output().is_err() {
        eprintln!("curl is not installed: skipped");
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || serve(listener));
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_port = closed.local_addr().unwrap().port();
    drop(closed);
    let u = format!("http://127.0.0.1:{port}");
    let cases: Vec<(Vec<String>, &[u8])> = vec![
        (vec!["-s".into(), format!("{u}/echo")], b""),
        (vec!["-si".into(), format!("{u}/echo?a=1&b=2")], b""),
        (vec!["-sI".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "-X".into(), "DELETE".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "-XPATCH".into(), "-d".into(), "x=1".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "-d".into(), "a=1".into(), "-d".into(), "b=2".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "-d".into(), "@-".into(), format!("{u}/echo")], b"line1\r\nline2\n"),
        (vec!["-s".into(), "--data-binary".into(), "@-".into(), format!("{u}/echo")], b"line1\r\nline2\n"),
        (vec!["-s".into(), "--data-raw".into(), "@x".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "--data-urlencode".into(), "q=a b&c/d".into(), "--data-urlencode".into(), "x@-".into(), format!("{u}/echo")], b"caf\xc3\xa9\n"),
        (vec!["-s".into(), "-G".into(), "-d".into(), "a=1".into(), "--data-urlencode".into(), "b=x y".into(), format!("{u}/echo?z=0")], b""),
        (vec!["-s".into(), "-H".into(), "X-Token: abc".into(), "-H".into(), "Accept:".into(), "-H".into(), "X-Empty;".into(), "-H".into(), "Content-Type: text/plain".into(), "-d".into(), "hi".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "-u".into(), "me:secret".into(), "-A".into(), "agent/1".into(), "-e".into(), "http://ref/".into(), "-b".into(), "k=v".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "--json".into(), "{\"a\":1}".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "--compressed".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), format!("{u}/status/404")], b""),
        (vec!["-sf".into(), format!("{u}/status/404")], b""),
        (vec!["-sSf".into(), format!("{u}/status/500")], b""),
        (vec!["-sfi".into(), format!("{u}/status/404")], b""),
        (vec!["-s".into(), "--fail-with-body".into(), format!("{u}/status/503")], b""),
        (vec!["-s".into(), "-o".into(), "/dev/null".into(), "-w".into(), "%{http_code} %{response_code} %{content_type} %{size_download} %{url_effective} %{method} %{size_header} %{size_request} %{num_headers} %{exitcode}\\n".into(), format!("{u}/status/201")], b""),
        (vec!["-s".into(), "-w".into(), "%header{x-multi}|%header{content-type}|%{header_json}\\n".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "-d".into(), "abc".into(), "-o".into(), "/dev/null".into(), "-w".into(), "%{size_request} %{size_upload}\\n".into(), format!("{u}/echo")], b""),
        (vec!["-s".into(), "-w".into(), "%{http_code} %{redirect_url}\\n".into(), format!("{u}/redirect/1")], b""),
        (vec!["-sL".into(), "-w".into(), "%{http_code} %{url_effective}\\n".into(), format!("{u}/redirect/3")], b""),
        (vec!["-s".into(), format!("{u}/status/200"), format!("{u}/echo"), "-w".into(), "[%{http_code}]\\n".into()], b""),
        (vec!["-sf".into(), format!("{u}/status/404"), format!("{u}/status/200")], b""),
        (vec!["-sf".into(), format!("{u}/status/200"), format!("{u}/status/500")], b""),
        (vec!["-s".into(), "-w".into(), "%{http_code} %{exitcode}\\n".into(), format!("http://127.0.0.1:{closed_port}/")], b""),
        (vec!["-s".into(), format!("127.0.0.1:{port}/status/200")], b""),
        (vec!["-s".into(), "-I".into(), "-d".into(), "x".into(), format!("{u}/echo")], b""),
        (vec!["-s".into()], b""),
        (vec!["-s".into(), "--bogus-option".into(), format!("{u}/echo")], b""),
    ];
    let mut failures = Vec::new();
    for (args, stdin) in &cases {
        let want = real(args, stdin);
        let got = ours(args, stdin);
        if want != got {
            failures.push(format!(
                "curl {args:?}\n  real: {} {:?}\n  ours: {} {:?}",
                want.0,
                String::from_utf8_lossy(&want.1),
                got.0,
                String::from_utf8_lossy(&got.1)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
