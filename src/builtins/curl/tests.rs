//! Unit tests of `curl`: the requests it asks the shell for, and what it prints for the
//! answers. Expected values come from curl 7.88.1 against a local Python http.server
//! that answered the same.

use crate::budget::Budget;
use crate::builtins::testing::Session;
use crate::host::{FixedHost, HttpRequest, HttpResponse};

struct Ran {
    status: i32,
    stdout: String,
    stderr: String,
    requests: Vec<HttpRequest>,
}

/// Runs curl as the shell would; `answer` gives the reply to each request it makes.
fn curl(
    args: &[&str],
    stdin: &[u8],
    answer: impl Fn(&HttpRequest) -> Result<HttpResponse, String> + 'static,
) -> Ran {
    let mut argv: Vec<Vec<u8>> = vec![b"curl".to_vec()];
    argv.extend(args.iter().map(|a| a.as_bytes().to_vec()));
    let host = FixedHost::default();
    let mut session = Session::new(&host);
    session.answer = Some(Box::new(answer));
    match session.run(&argv, stdin.to_vec(), &Budget::default()) {
        Ok(status) => Ran {
            status,
            stdout: String::from_utf8_lossy(&session.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&session.stderr).into_owned(),
            requests: session.requests.take(),
        },
        Err(e) => panic!("{e}"),
    }
}

/// What the test server answers: `/status/N` with "status N\n", anything else 200.
fn server(req: &HttpRequest) -> Result<HttpResponse, String> {
    if req.url.starts_with("http://127.0.0.1:1/") {
        return Err(
            "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server".into(),
        );
    }
    if req.url.contains("nonexistent.invalid") {
        return Err("Could not resolve host: nonexistent.invalid".into());
    }
    let (status, body) = match req.url.split("/status/").nth(1) {
        Some(code) => {
            let code: u16 = code.parse().unwrap();
            (code, format!("status {code}\n"))
        }
        None => (200, "ok\n".to_string()),
    };
    let body = if req.method == "HEAD" {
        String::new()
    } else {
        body
    };
    Ok(HttpResponse {
        status,
        reason: String::new(),
        headers: vec![
            ("Server".into(), "BaseHTTP/0.6 Python/3.11.7".into()),
            ("Date".into(), "Mon, 30 Nov 2026 03:08:20 GMT".into()),
            ("Content-Type".into(), "text/plain".into()),
            ("Content-Length".into(), "11".into()),
        ],
        body: body.into_bytes(),
        url: String::new(),
    })
}

const U: &str = "http://127.0.0.1:18931";

fn headers(r: &HttpRequest) -> Vec<(&str, &str)> {
    r.headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

#[test]
fn post_form_data() {
    let r = curl(
        &["-s", "-d", "a=1", "-d", "b=2", &format!("{U}/echo")],
        b"",
        server,
    );
    let req = &r.requests[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.body, b"a=1&b=2");
    assert_eq!(
        headers(req),
        [
            ("User-Agent", "curl/7.88.1"),
            ("Accept", "*/*"),
            ("Content-Type", "application/x-www-form-urlencoded")
        ]
    );
    assert_eq!((r.status, r.stdout.as_str()), (0, "ok\n"));
}

#[test]
fn data_from_stdin_and_urlencoded() {
    let stdin = b"l1\r\nl2\n\n";
    let r = curl(&["-s", "-d", "@-", U], stdin, server);
    assert_eq!(r.requests[0].body, b"l1l2");
    let r = curl(&["-s", "--data-binary", "@-", U], stdin, server);
    assert_eq!(r.requests[0].body, stdin);
    let r = curl(
        &[
            "-s",
            "--data-urlencode",
            "a b&c",
            "--data-urlencode",
            "n=x y",
            "--data-urlencode",
            "=\u{e9}",
            "--data-urlencode",
            "f@-",
            U,
        ],
        stdin,
        server,
    );
    assert_eq!(
        String::from_utf8_lossy(&r.requests[0].body),
        "a+b%26c&n=x+y&%C3%A9&f=l1%0D%0Al2%0A%0A"
    );
    let r = curl(&["-s", "--data-raw", "@x", U], b"", server);
    assert_eq!(r.requests[0].body, b"@x");
}

#[test]
fn get_with_data_and_methods() {
    let r = curl(
        &["-s", "-G", "-d", "a=1", &format!("{U}/echo?x=1")],
        b"",
        server,
    );
    assert_eq!(r.requests[0].url, format!("{U}/echo?x=1&a=1"));
    assert_eq!(r.requests[0].method, "GET");
    assert!(r.requests[0].body.is_empty());
    let r = curl(&["-s", "-X", "PUT", "-d", "x", U], b"", server);
    assert_eq!(
        (r.requests[0].method.as_str(), r.requests[0].url.as_str()),
        ("PUT", "http://127.0.0.1:18931/")
    );
    let r = curl(&["-s", "127.0.0.1:18931/status/200"], b"", server);
    assert_eq!(r.requests[0].url, format!("{U}/status/200"));
}

#[test]
fn custom_headers_and_auth() {
    let r = curl(
        &[
            "-s",
            "-H",
            "X-A: 1",
            "-H",
            "Accept:",
            "-H",
            "User-Agent: me",
            "-H",
            "X-Empty;",
            "-H",
            "Content-Type: text/foo",
            "-d",
            "z",
            U,
        ],
        b"",
        server,
    );
    assert_eq!(
        headers(&r.requests[0]),
        [
            ("X-A", "1"),
            ("User-Agent", "me"),
            ("X-Empty", ""),
            ("Content-Type", "text/foo")
        ]
    );
    let r = curl(
        &["-s", "-u", "user:pa:ss", "-A", "ag", "-e", "ref", U],
        b"",
        server,
    );
    assert_eq!(
        headers(&r.requests[0]),
        [
            ("Authorization", "Basic dXNlcjpwYTpzcw=="),
            ("User-Agent", "ag"),
            ("Accept", "*/*"),
            ("Referer", "ref")
        ]
    );
    let r = curl(&["-s", "--json", "{\"a\":1}", U], b"", server);
    assert_eq!(
        headers(&r.requests[0]),
        [
            ("User-Agent", "curl/7.88.1"),
            ("Content-Type", "application/json"),
            ("Accept", "application/json")
        ]
    );
}

#[test]
fn include_head_and_fail() {
    let r = curl(&["-si", &format!("{U}/status/404")], b"", server);
    assert_eq!(
        r.stdout,
        "HTTP/1.1 404 Not Found\r\nServer: BaseHTTP/0.6 Python/3.11.7\r\nDate: Mon, 30 Nov 2026 03:08:20 GMT\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nstatus 404\n"
    );
    assert_eq!(r.status, 0);
    let r = curl(&["-sI", &format!("{U}/status/200")], b"", server);
    assert_eq!(r.requests[0].method, "HEAD");
    assert!(r.stdout.ends_with("Content-Length: 11\r\n\r\n"));
    let r = curl(&["-f", &format!("{U}/status/404")], b"", server);
    assert_eq!((r.status, r.stdout.as_str()), (22, ""));
    assert_eq!(
        r.stderr,
        "curl: (22) The requested URL returned error: 404\n"
    );
    let r = curl(&["-sf", &format!("{U}/status/500")], b"", server);
    assert_eq!((r.status, r.stderr.as_str()), (22, ""));
    let r = curl(
        &["-s", "--fail-with-body", &format!("{U}/status/503")],
        b"",
        server,
    );
    assert_eq!((r.status, r.stdout.as_str()), (22, "status 503\n"));
    let r = curl(
        &[
            "-sSf",
            &format!("{U}/status/404"),
            &format!("{U}/status/200"),
            "-w",
            "%{http_code}\\n",
        ],
        b"",
        server,
    );
    assert_eq!((r.status, r.stdout.as_str()), (0, "404\nstatus 200\n200\n"));
}

#[test]
fn write_out() {
    let r = curl(
        &["-s", "-o", "/dev/null", "-w",
          "%{http_code} %{content_type} %{size_download} %{url_effective} %{method} %{size_header} %{size_request} %{num_headers}\\n%{header_json}\\n",
          &format!("{U}/status/201")],
        b"",
        server,
    );
    assert_eq!(
        r.stdout,
        "201 text/plain 11 http://127.0.0.1:18931/status/201 GET 143 89 4\n{\"server\":[\"BaseHTTP/0.6 Python/3.11.7\"],\n\"date\":[\"Mon, 30 Nov 2026 03:08:20 GMT\"],\n\"content-type\":[\"text/plain\"],\n\"content-length\":[\"11\"]\n}\n"
    );
    let r = curl(
        &[
            "-s",
            "-w",
            "%{size_request} %{size_upload}\\n",
            "-o",
            "/dev/null",
            "-d",
            "a=1",
            &format!("{U}/echo"),
        ],
        b"",
        server,
    );
    assert_eq!(r.stdout, "155 3\n");
    let r = curl(
        &["-s", "-w", "%{bogus}|%%", "-o", "/dev/null", U],
        b"",
        server,
    );
    assert_eq!(r.stdout, "|%");
    assert_eq!(r.stderr, "curl: unknown --write-out variable: 'bogus'\n");
}

#[test]
fn transport_errors() {
    let r = curl(
        &[
            "-sS",
            "-w",
            "[%{http_code}|%{exitcode}]\\n",
            "http://127.0.0.1:1/",
        ],
        b"",
        server,
    );
    assert_eq!((r.status, r.stdout.as_str()), (7, "[000|7]\n"));
    assert_eq!(
        r.stderr,
        "curl: (7) Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server\n"
    );
    let r = curl(&["-s", "http://nonexistent.invalid/"], b"", server);
    assert_eq!((r.status, r.stderr.as_str()), (6, ""));
    let r = curl(&["-sS", "ftp2://x/"], b"", server);
    assert_eq!(r.status, 1);
    assert_eq!(
        r.stderr,
        "curl: (1) Protocol \"ftp2\" not supported or disabled in libcurl\n"
    );
    let r = curl(&["-s"], b"", server);
    assert_eq!(r.status, 2);
    let r = curl(&["-s", "-o", "x.txt", U], b"", server);
    assert_eq!((r.status, r.requests.len()), (23, 0));
    let r = curl(&["--bogus", U], b"", server);
    assert_eq!(r.status, 2);
    assert_eq!(r.stderr, "curl: option --bogus: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n");
}

#[test]
fn multipart_is_the_same_on_a_rerun() {
    let r = curl(
        &["-s", "-F", "a=1", "-F", "b=<-", U],
        b"stdin data\n",
        server,
    );
    let req = &r.requests[0];
    let ct = &req
        .headers
        .iter()
        .find(|(k, _)| k == "Content-Type")
        .unwrap()
        .1;
    let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
    let body = String::from_utf8_lossy(&req.body);
    assert_eq!(
        body,
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\nstdin data\n\r\n--{boundary}--\r\n")
    );
    assert_eq!(r.status, 0);
}
