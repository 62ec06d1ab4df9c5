//! `curl`: HTTP requests with curl 7.88's common options, each performed through the host
//! where it stands (see [`Ctx::http`]). Spends one step per URL and one per 64 bytes of
//! request and response bodies.

use data_encoding::BASE64;

use crate::builtins::Ctx;
use crate::error::{Result, Status};
use crate::host::{HttpRequest, HttpResponse};

const VERSION: &str = "7.88.1";

/// Where an answer's body goes (`-o`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Output {
    Stdout,
    Discard,
    /// A file: there is no file system to write it to.
    File(Vec<u8>),
}

#[derive(Debug, Clone)]
enum Data {
    /// `-d`: `@file` reads a file without its newlines.
    Ascii(Vec<u8>),
    Raw(Vec<u8>),
    /// `--data-binary`: `@file` reads a file as it is.
    Binary(Vec<u8>),
    UrlEncode(Vec<u8>),
    Json(Vec<u8>),
}

#[derive(Debug, Default)]
struct Opts {
    silent: bool,
    show_error: bool,
    fail: bool,
    fail_with_body: bool,
    include: bool,
    head: bool,
    location: bool,
    get: bool,
    verbose: bool,
    compressed: bool,
    method: Option<String>,
    headers: Vec<Vec<u8>>,
    data: Vec<Data>,
    forms: Vec<(Vec<u8>, bool)>,
    user: Option<Vec<u8>>,
    agent: Option<Vec<u8>>,
    referer: Option<Vec<u8>>,
    cookie: Option<Vec<u8>>,
    bearer: Option<Vec<u8>>,
    write_out: Option<Vec<u8>>,
    outputs: Vec<Output>,
    dump_header: Option<Output>,
    upload: Option<Vec<u8>>,
    urls: Vec<Vec<u8>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Flag,
    Value,
}

/// The options curl knows: (long name, short letter, takes a value).
const OPTIONS: &[(&str, Option<u8>, Kind)] = &[
    ("anyauth", None, Kind::Flag),
    ("basic", None, Kind::Flag),
    ("cacert", None, Kind::Value),
    ("capath", None, Kind::Value),
    ("compressed", None, Kind::Flag),
    ("connect-timeout", None, Kind::Value),
    ("connect-to", None, Kind::Value),
    ("cookie", Some(b'b'), Kind::Value),
    ("cookie-jar", Some(b'c'), Kind::Value),
    ("create-dirs", None, Kind::Flag),
    ("data", Some(b'd'), Kind::Value),
    ("data-ascii", None, Kind::Value),
    ("data-binary", None, Kind::Value),
    ("data-raw", None, Kind::Value),
    ("data-urlencode", None, Kind::Value),
    ("dump-header", Some(b'D'), Kind::Value),
    ("fail", Some(b'f'), Kind::Flag),
    ("fail-early", None, Kind::Flag),
    ("fail-with-body", None, Kind::Flag),
    ("form", Some(b'F'), Kind::Value),
    ("form-string", None, Kind::Value),
    ("get", Some(b'G'), Kind::Flag),
    ("globoff", Some(b'g'), Kind::Flag),
    ("head", Some(b'I'), Kind::Flag),
    ("header", Some(b'H'), Kind::Value),
    ("help", Some(b'h'), Kind::Flag),
    ("http1.0", Some(b'0'), Kind::Flag),
    ("http1.1", None, Kind::Flag),
    ("http2", None, Kind::Flag),
    ("include", Some(b'i'), Kind::Flag),
    ("insecure", Some(b'k'), Kind::Flag),
    ("ipv4", Some(b'4'), Kind::Flag),
    ("ipv6", Some(b'6'), Kind::Flag),
    ("json", None, Kind::Value),
    ("location", Some(b'L'), Kind::Flag),
    ("location-trusted", None, Kind::Flag),
    ("max-redirs", None, Kind::Value),
    ("max-time", Some(b'm'), Kind::Value),
    ("no-buffer", Some(b'N'), Kind::Flag),
    ("no-progress-meter", None, Kind::Flag),
    ("noproxy", None, Kind::Value),
    ("oauth2-bearer", None, Kind::Value),
    ("output", Some(b'o'), Kind::Value),
    ("path-as-is", None, Kind::Flag),
    ("progress-bar", Some(b'#'), Kind::Flag),
    ("proxy", Some(b'x'), Kind::Value),
    ("raw", None, Kind::Flag),
    ("referer", Some(b'e'), Kind::Value),
    ("remote-name", Some(b'O'), Kind::Flag),
    ("request", Some(b'X'), Kind::Value),
    ("resolve", None, Kind::Value),
    ("retry", None, Kind::Value),
    ("retry-all-errors", None, Kind::Flag),
    ("retry-delay", None, Kind::Value),
    ("retry-max-time", None, Kind::Value),
    ("show-error", Some(b'S'), Kind::Flag),
    ("silent", Some(b's'), Kind::Flag),
    ("tlsv1.2", None, Kind::Flag),
    ("tlsv1.3", None, Kind::Flag),
    ("upload-file", Some(b'T'), Kind::Value),
    ("url", None, Kind::Value),
    ("user", Some(b'u'), Kind::Value),
    ("user-agent", Some(b'A'), Kind::Value),
    ("verbose", Some(b'v'), Kind::Flag),
    ("version", Some(b'V'), Kind::Flag),
    ("write-out", Some(b'w'), Kind::Value),
];

/// The outcome of parsing the command line.
enum Parsed {
    Run(Box<Opts>),
    /// Print this and exit with this status (`--help`, `--version`, bad usage).
    Done(Status),
}

fn usage(ctx: &mut Ctx<'_>, msg: &str) -> Parsed {
    ctx.stderr.extend_from_slice(
        format!("curl: {msg}\ncurl: try 'curl --help' or 'curl --manual' for more information\n")
            .as_bytes(),
    );
    Parsed::Done(2)
}

fn parse_args(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Parsed {
    let mut o = Opts::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if let Some(long) = arg.strip_prefix(b"--") {
            let s = String::from_utf8_lossy(long).into_owned();
            let mut negate = false;
            let found = OPTIONS.iter().find(|(n, _, _)| *n == s).or_else(|| {
                let base = s.strip_prefix("no-")?;
                let f = OPTIONS
                    .iter()
                    .find(|(n, _, k)| *n == base && *k == Kind::Flag);
                negate = f.is_some();
                f
            });
            let Some(&(name, _, kind)) = found else {
                return usage(ctx, &format!("option --{s}: is unknown"));
            };
            let value = if kind == Kind::Value {
                let Some(v) = args.get(i) else {
                    return usage(ctx, &format!("option --{name}: requires parameter"));
                };
                i += 1;
                Some(v.clone())
            } else {
                None
            };
            if let Err(code) = apply(ctx, &mut o, name, value, negate) {
                return Parsed::Done(code);
            }
            continue;
        }
        if arg.len() > 1 && arg[0] == b'-' {
            let mut j = 1;
            while j < arg.len() {
                let c = arg[j];
                j += 1;
                let shown = String::from_utf8_lossy(&[c]).into_owned();
                let Some(&(name, _, kind)) = OPTIONS.iter().find(|(_, s, _)| *s == Some(c)) else {
                    return usage(ctx, &format!("option -{shown}: is unknown"));
                };
                let value = if kind == Kind::Flag {
                    None
                } else if j < arg.len() {
                    let v = arg[j..].to_vec();
                    j = arg.len();
                    Some(v)
                } else if let Some(v) = args.get(i) {
                    i += 1;
                    Some(v.clone())
                } else {
                    return usage(ctx, &format!("option -{shown}: requires parameter"));
                };
                if let Err(code) = apply(ctx, &mut o, name, value, false) {
                    return Parsed::Done(code);
                }
            }
            continue;
        }
        o.urls.push(arg.clone());
    }
    Parsed::Run(Box::new(o))
}

fn output_of(v: &[u8]) -> Output {
    match v {
        b"-" => Output::Stdout,
        b"/dev/null" => Output::Discard,
        _ => Output::File(v.to_vec()),
    }
}

/// Applies one option; `Err` is the exit status of an option that ends the run.
fn apply(
    ctx: &mut Ctx<'_>,
    o: &mut Opts,
    name: &str,
    value: Option<Vec<u8>>,
    negate: bool,
) -> std::result::Result<(), Status> {
    let on = !negate;
    let v = value.unwrap_or_default();
    match name {
        "silent" => o.silent = on,
        "show-error" => o.show_error = on,
        "fail" => o.fail = on,
        "fail-with-body" => o.fail_with_body = on,
        "include" => o.include = on,
        "head" => o.head = on,
        "location" | "location-trusted" => o.location = on,
        "get" => o.get = on,
        "verbose" => o.verbose = on,
        "compressed" => o.compressed = on,
        "request" => o.method = Some(String::from_utf8_lossy(&v).into_owned()),
        "header" => o.headers.push(v),
        "data" | "data-ascii" => o.data.push(Data::Ascii(v)),
        "data-raw" => o.data.push(Data::Raw(v)),
        "data-binary" => o.data.push(Data::Binary(v)),
        "data-urlencode" => o.data.push(Data::UrlEncode(v)),
        "json" => o.data.push(Data::Json(v)),
        "form" => o.forms.push((v, false)),
        "form-string" => o.forms.push((v, true)),
        "user" => o.user = Some(v),
        "user-agent" => o.agent = Some(v),
        "referer" => o.referer = Some(v),
        "cookie" => o.cookie = Some(v),
        "oauth2-bearer" => o.bearer = Some(v),
        "write-out" => o.write_out = Some(v),
        "output" => o.outputs.push(output_of(&v)),
        "remote-name" => o.outputs.push(Output::File(b"-O".to_vec())),
        "dump-header" => o.dump_header = Some(output_of(&v)),
        "upload-file" => o.upload = Some(v),
        "url" => o.urls.push(v),
        "help" => {
            ctx.stdout.extend_from_slice(HELP);
            return Err(0);
        }
        "version" => {
            ctx.stdout.extend_from_slice(
                format!("curl {VERSION} (mkfifo)\nProtocols: http https\n").as_bytes(),
            );
            return Err(0);
        }
        // Accepted and without effect here: the host's transport decides.
        _ => {}
    }
    Ok(())
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let o = match parse_args(ctx, &args[1..]) {
        Parsed::Run(o) => o,
        Parsed::Done(code) => return Ok(code),
    };
    if o.urls.is_empty() {
        return Ok(match usage(ctx, "no URL specified!") {
            Parsed::Done(c) => c,
            Parsed::Run(_) => 2,
        });
    }
    let has_data = !o.data.is_empty() || !o.forms.is_empty();
    if o.head && has_data && !o.get {
        ctx.stderr.extend_from_slice(
            b"Warning: You can only select one HTTP request method! You asked for both POST \nWarning: (using -d, --data or -F, --form) and HEAD (using -I, --head).\n",
        );
        return Ok(2);
    }
    let body = request_body(ctx, &o).await?;
    let mut status = 0;
    for (n, url) in o.urls.iter().enumerate() {
        ctx.io.budget.spend(1)?;
        let output = o.outputs.get(n).cloned().unwrap_or(Output::Stdout);
        status = transfer(ctx, &o, url, &body, &output).await?;
    }
    Ok(status)
}

/// The body of the requests and its default Content-Type, from -d, --json, -F or -T.
struct Body {
    data: Vec<u8>,
    content_type: Option<String>,
    /// --json's Accept header.
    json: bool,
}

async fn read_file(ctx: &mut Ctx<'_>, name: &[u8]) -> Result<Option<Vec<u8>>> {
    Ok(match ctx.open(name).await? {
        Ok(b) => Some(b.to_vec()),
        Err(_) => None,
    })
}

async fn request_body(ctx: &mut Ctx<'_>, o: &Opts) -> Result<Body> {
    if let Some(file) = &o.upload {
        let data = read_file(ctx, file).await?.unwrap_or_default();
        ctx.io.budget.spend_bytes(data.len())?;
        return Ok(Body {
            data,
            content_type: None,
            json: false,
        });
    }
    if !o.forms.is_empty() {
        return form_body(ctx, o).await;
    }
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut json = false;
    for d in &o.data {
        let part = match d {
            Data::Ascii(v) | Data::Binary(v) | Data::Json(v) => {
                let (keep_newlines, v) = (!matches!(d, Data::Ascii(_)), v);
                if matches!(d, Data::Json(_)) {
                    json = true;
                }
                match v.strip_prefix(b"@") {
                    Some(file) => match read_file(ctx, file).await? {
                        Some(mut data) => {
                            if !keep_newlines {
                                data.retain(|&b| b != b'\r' && b != b'\n');
                            }
                            data
                        }
                        None => {
                            let msg = format!(
                                "Warning: Couldn't read data from file \"{}\", this makes an \nWarning: empty POST.\n",
                                String::from_utf8_lossy(file)
                            );
                            ctx.stderr.extend_from_slice(msg.as_bytes());
                            Vec::new()
                        }
                    },
                    None => v.clone(),
                }
            }
            Data::Raw(v) => v.clone(),
            Data::UrlEncode(v) => url_encode_item(ctx, v).await?,
        };
        parts.push(part);
    }
    let data = parts.join(&b'&');
    ctx.io.budget.spend_bytes(data.len())?;
    let content_type = if json {
        Some("application/json".to_string())
    } else if !o.data.is_empty() {
        Some("application/x-www-form-urlencoded".to_string())
    } else {
        None
    };
    Ok(Body {
        data,
        content_type,
        json,
    })
}

/// `--data-urlencode`: `content`, `=content`, `name=content`, `@file`, `name@file`.
async fn url_encode_item(ctx: &mut Ctx<'_>, v: &[u8]) -> Result<Vec<u8>> {
    let eq = v.iter().position(|&b| b == b'=');
    let at = v.iter().position(|&b| b == b'@');
    let (name, content): (&[u8], Vec<u8>) = match (eq, at) {
        (Some(e), _) if at.is_none_or(|a| e < a) => (&v[..e], v[e + 1..].to_vec()),
        (_, Some(a)) => {
            let data = read_file(ctx, &v[a + 1..]).await?.unwrap_or_default();
            (&v[..a], data)
        }
        _ => (&[][..], v.to_vec()),
    };
    let mut out = Vec::new();
    if !name.is_empty() {
        out.extend_from_slice(name);
        out.push(b'=');
    }
    out.extend_from_slice(&url_encode(&content));
    Ok(out)
}

fn url_encode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(b),
            b' ' => out.push(b'+'),
            _ => out.extend_from_slice(format!("%{b:02X}").as_bytes()),
        }
    }
    out
}

/// One part of a form: name, file name, contents.
type FormPart = (Vec<u8>, Option<Vec<u8>>, Vec<u8>);

/// `-F name=value`, `-F name=<file` (contents), `-F name=@file` (an uploaded file). The
/// boundary is derived from the contents, so a rerun makes the same request.
async fn form_body(ctx: &mut Ctx<'_>, o: &Opts) -> Result<Body> {
    let mut parts: Vec<FormPart> = Vec::new();
    for (spec, literal) in &o.forms {
        let eq = spec.iter().position(|&b| b == b'=').unwrap_or(spec.len());
        let name = spec[..eq].to_vec();
        let value = spec.get(eq + 1..).unwrap_or_default();
        let part = if *literal {
            (name, None, value.to_vec())
        } else if let Some(file) = value.strip_prefix(b"<") {
            (name, None, read_file(ctx, file).await?.unwrap_or_default())
        } else if let Some(file) = value.strip_prefix(b"@") {
            let file = file.split(|&b| b == b';').next().unwrap_or_default();
            let data = read_file(ctx, file).await?.unwrap_or_default();
            (name, Some(file.to_vec()), data)
        } else {
            (name, None, value.to_vec())
        };
        parts.push(part);
    }
    // FNV-1a over the parts: a boundary that is the same on every run.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (n, f, d) in &parts {
        for b in n.iter().chain(f.iter().flatten()).chain(d.iter()) {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let boundary = format!("------------------------{h:016x}");
    let mut data = Vec::new();
    for (name, file, content) in &parts {
        data.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        data.extend_from_slice(b"Content-Disposition: form-data; name=\"");
        data.extend_from_slice(name);
        data.push(b'"');
        if let Some(f) = file {
            data.extend_from_slice(b"; filename=\"");
            data.extend_from_slice(f);
            data.push(b'"');
        }
        data.extend_from_slice(b"\r\n\r\n");
        data.extend_from_slice(content);
        data.extend_from_slice(b"\r\n");
    }
    data.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    ctx.io.budget.spend_bytes(data.len())?;
    Ok(Body {
        data,
        content_type: Some(format!("multipart/form-data; boundary={boundary}")),
        json: false,
    })
}

/// A URL as curl sends it: `http://` when there is no scheme, `/` when there is no path.
fn normalize_url(url: &[u8]) -> std::result::Result<String, (Status, String)> {
    let bad = || (3, "URL using bad/illegal format or missing URL".to_string());
    let s = std::str::from_utf8(url).map_err(|_| bad())?;
    if s.is_empty() || s.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(bad());
    }
    let (scheme, rest) = match s.find("://") {
        Some(p) => (s[..p].to_ascii_lowercase(), &s[p + 3..]),
        None => ("http".to_string(), s),
    };
    if scheme != "http" && scheme != "https" {
        return Err((
            1,
            format!(
                "Protocol \"{}\" not supported or disabled in libcurl",
                &s[..s.find("://").unwrap_or(0)]
            ),
        ));
    }
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if host_end == 0 {
        return Err(bad());
    }
    let (authority, tail) = rest.split_at(host_end);
    let tail = tail.split('#').next().unwrap_or_default();
    let path = if tail.starts_with('/') {
        tail.to_string()
    } else {
        format!("/{tail}")
    };
    Ok(format!("{scheme}://{authority}{path}"))
}

fn header_name(line: &[u8]) -> &[u8] {
    let end = line
        .iter()
        .position(|&b| b == b':' || b == b';')
        .unwrap_or(line.len());
    line[..end].trim_ascii()
}

/// The request headers as curl sends them (Host and Content-Length are the transport's).
fn request_headers(o: &Opts, body: &Body) -> Vec<(String, String)> {
    let custom = |name: &str| {
        o.headers
            .iter()
            .any(|h| header_name(h).eq_ignore_ascii_case(name.as_bytes()))
    };
    let text = |v: &[u8]| String::from_utf8_lossy(v).into_owned();
    let mut out: Vec<(String, String)> = Vec::new();
    let add = |out: &mut Vec<(String, String)>, name: &str, value: String| {
        if !custom(name) {
            out.push((name.to_string(), value));
        }
    };
    if let Some(u) = &o.user {
        let cred = if u.contains(&b':') {
            u.clone()
        } else {
            [u.as_slice(), b":"].concat()
        };
        add(
            &mut out,
            "Authorization",
            format!("Basic {}", BASE64.encode(&cred)),
        );
    } else if let Some(t) = &o.bearer {
        add(&mut out, "Authorization", format!("Bearer {}", text(t)));
    }
    add(
        &mut out,
        "User-Agent",
        o.agent
            .as_ref()
            .map_or_else(|| format!("curl/{VERSION}"), |a| text(a)),
    );
    if !body.json {
        add(&mut out, "Accept", "*/*".into());
    }
    if let Some(r) = &o.referer {
        add(&mut out, "Referer", text(r));
    }
    if o.compressed {
        add(
            &mut out,
            "Accept-Encoding",
            "deflate, gzip, br, zstd".into(),
        );
    }
    if let Some(c) = &o.cookie {
        if c.contains(&b'=') {
            add(&mut out, "Cookie", text(c));
        }
    }
    if body.json {
        add(&mut out, "Content-Type", "application/json".into());
        add(&mut out, "Accept", "application/json".into());
    }
    for h in &o.headers {
        let name = header_name(h);
        if name.is_empty() {
            continue;
        }
        let rest = &h[name.len().min(h.len())..];
        let rest = rest.trim_ascii_start();
        match rest.first() {
            Some(b':') => {
                let value = rest[1..].trim_ascii();
                if !value.is_empty() {
                    out.push((text(name), text(value)));
                }
            }
            Some(b';') if rest[1..].trim_ascii().is_empty() => {
                out.push((text(name), String::new()))
            }
            _ => {}
        }
    }
    if let Some(ct) = &body.content_type {
        if !custom("Content-Type") && !body.json && !o.get {
            out.push(("Content-Type".into(), ct.clone()));
        }
    }
    out
}

/// curl's exit code for a transport failure, from the host's message.
fn error_code(msg: &str) -> Status {
    let m = msg.to_ascii_lowercase();
    if m.contains("resolve") || m.contains("lookup") || m.contains("dns") {
        6
    } else if m.contains("connect") {
        7
    } else if m.contains("timed out") || m.contains("timeout") {
        28
    } else if m.contains("redirect") {
        47
    } else if m.contains("certificate") {
        60
    } else if m.contains("ssl") || m.contains("tls") {
        35
    } else {
        56
    }
}

/// curl's own words for a failure to resolve or to connect; the host's otherwise.
fn curl_message(code: Status, url: &str, msg: &str) -> String {
    let authority = url.split("://").nth(1).unwrap_or("");
    let authority = &authority[..authority.find('/').unwrap_or(authority.len())];
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = match authority.rfind(':') {
        Some(p) if !authority[p + 1..].contains(']') => (&authority[..p], &authority[p + 1..]),
        _ => (
            authority,
            if url.starts_with("https") {
                "443"
            } else {
                "80"
            },
        ),
    };
    match code {
        6 => format!("Could not resolve host: {host}"),
        7 if !msg.starts_with("Failed to connect") => {
            format!(
                "Failed to connect to {host} port {port} after 0 ms: Couldn't connect to server"
            )
        }
        _ => msg.to_string(),
    }
}

fn complain(ctx: &mut Ctx<'_>, o: &Opts, code: Status, msg: &str) {
    if !o.silent || o.show_error {
        ctx.stderr
            .extend_from_slice(format!("curl: ({code}) {msg}\n").as_bytes());
    }
}

/// What `-w` may read about one transfer.
struct Done<'a> {
    url: &'a str,
    method: &'a str,
    request: &'a HttpRequest,
    response: Option<&'a HttpResponse>,
    exit: Status,
    error: Option<String>,
    output: &'a Output,
}

async fn transfer(
    ctx: &mut Ctx<'_>,
    o: &Opts,
    raw_url: &[u8],
    body: &Body,
    output: &Output,
) -> Result<Status> {
    let mut url = match normalize_url(raw_url) {
        Ok(u) => u,
        Err((code, msg)) => {
            complain(ctx, o, code, &msg);
            return Ok(code);
        }
    };
    if o.get && !body.data.is_empty() {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&String::from_utf8_lossy(&body.data));
        if url.bytes().any(|b| b <= b' ') {
            complain(ctx, o, 3, "URL using bad/illegal format or missing URL");
            return Ok(3);
        }
    }
    if let Output::File(_) = output {
        complain(ctx, o, 23, "Failure writing output to destination");
        return Ok(23);
    }
    let method = if let Some(m) = &o.method {
        m.clone()
    } else if o.head {
        "HEAD".into()
    } else if o.upload.is_some() {
        "PUT".into()
    } else if (!o.data.is_empty() || !o.forms.is_empty()) && !o.get {
        "POST".into()
    } else {
        "GET".into()
    };
    let send_body = if o.get { Vec::new() } else { body.data.clone() };
    let request = HttpRequest {
        method: method.clone(),
        url: url.clone(),
        headers: request_headers(o, body),
        body: send_body,
        follow_redirects: o.location,
    };
    if o.verbose {
        verbose_request(ctx, &request);
    }
    // The body goes to stdout as it comes, unless -w asks for what is known at the end.
    let streamed = o.write_out.is_none() && *output == Output::Stdout;
    let (answer, mut body_stream) = if streamed {
        match ctx.http_stream(request.clone()).await? {
            Ok((resp, body)) => (Ok(resp), Some(body)),
            Err(e) => (Err(e), None),
        }
    } else {
        (ctx.http(request.clone()).await?, None)
    };
    let mut done = Done {
        url: &url,
        method: &method,
        request: &request,
        response: None,
        exit: 0,
        error: None,
        output,
    };
    let resp = match &answer {
        Err(msg) => {
            let code = error_code(msg);
            let msg = &curl_message(code, &url, msg);
            complain(ctx, o, code, msg);
            done.exit = code;
            done.error = Some(msg.clone());
            write_out(ctx, o, &done).await?;
            return Ok(code);
        }
        Ok(r) => r.clone(),
    };
    ctx.io.budget.spend_bytes(resp.body.len())?;
    done.response = Some(&resp);
    if o.verbose {
        verbose_response(ctx, &resp);
    }
    let failed = (o.fail || o.fail_with_body) && resp.status >= 400;
    let head = header_block(&resp);
    if let Some(Output::Stdout) = o.dump_header {
        ctx.stdout.extend_from_slice(&head);
    }
    let mut sink: Vec<u8> = Vec::new();
    if o.include || o.head {
        sink.extend_from_slice(&head);
    }
    let wants_body = !o.head && (!failed || o.fail_with_body);
    if wants_body {
        sink.extend_from_slice(&resp.body);
    }
    if *output == Output::Stdout {
        ctx.stdout.extend_from_slice(&sink);
    }
    if let (Some(body), true) = (body_stream.take(), wants_body) {
        // Counted as one whole body would be, however the platform cuts it.
        let mut meter = crate::budget::ByteMeter::default();
        loop {
            match body.read().await {
                Ok(Some(chunk)) => {
                    meter.add(ctx.io.budget, chunk.len())?;
                    ctx.stdout.extend_from_slice(&chunk);
                    ctx.flush_some().await?;
                }
                Ok(None) => {
                    meter.finish(ctx.io.budget)?;
                    break;
                }
                // The connection failed in the middle of the body.
                Err(crate::error::Error::Fatal(why)) => {
                    let msg = format!("Failure when receiving data from the peer: {why}");
                    complain(ctx, o, 56, &msg);
                    return Ok(56);
                }
                Err(e) => return Err(e),
            }
        }
    }
    let code = if failed {
        let msg = format!("The requested URL returned error: {}", resp.status);
        complain(ctx, o, 22, &msg);
        done.error = Some(msg);
        22
    } else {
        0
    };
    done.exit = code;
    write_out(ctx, o, &done).await?;
    Ok(code)
}

/// The standard reason phrase, for a transport that does not give the server's.
fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Payload Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        417 => "Expectation Failed",
        418 => "I'm a teapot",
        422 => "Unprocessable Entity",
        425 => "Too Early",
        426 => "Upgrade Required",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

/// The status line and headers as `-i` prints them.
fn header_block(resp: &HttpResponse) -> Vec<u8> {
    let phrase = if resp.reason.is_empty() {
        reason(resp.status)
    } else {
        &resp.reason
    };
    let mut out = format!("HTTP/1.1 {} {}\r\n", resp.status, phrase).into_bytes();
    for (k, v) in &resp.headers {
        out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out
}

fn request_size(r: &HttpRequest) -> usize {
    let path = r
        .url
        .find("://")
        .and_then(|p| r.url[p + 3..].find('/').map(|q| &r.url[p + 3 + q..]))
        .unwrap_or("/");
    let host = r
        .url
        .find("://")
        .map(|p| {
            let rest = &r.url[p + 3..];
            &rest[..rest.find('/').unwrap_or(rest.len())]
        })
        .unwrap_or("");
    let mut n = format!("{} {} HTTP/1.1\r\nHost: {}\r\n", r.method, path, host).len();
    for (k, v) in &r.headers {
        n += k.len() + v.len() + 4;
    }
    if !r.body.is_empty() {
        n += format!("Content-Length: {}\r\n", r.body.len()).len();
    }
    // curl counts the body it sent, too.
    n + 2 + r.body.len()
}

fn verbose_request(ctx: &mut Ctx<'_>, r: &HttpRequest) {
    let mut s = format!("> {} {} HTTP/1.1\r\n", r.method, r.url);
    for (k, v) in &r.headers {
        s.push_str(&format!("> {k}: {v}\r\n"));
    }
    s.push_str(">\r\n");
    ctx.stderr.extend_from_slice(s.as_bytes());
}

fn verbose_response(ctx: &mut Ctx<'_>, r: &HttpResponse) {
    for line in header_block(r).split(|&b| b == b'\n') {
        if !line.is_empty() {
            ctx.stderr.extend_from_slice(b"< ");
            ctx.stderr.extend_from_slice(line);
            ctx.stderr.push(b'\n');
        }
    }
}

/// A `Location` resolved against the URL it came from.
fn resolve_location(base: &str, loc: &str) -> String {
    if loc.contains("://") {
        return loc.to_string();
    }
    let scheme_end = base.find("://").map_or(0, |p| p + 3);
    let host_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |p| scheme_end + p);
    if let Some(rest) = loc.strip_prefix("//") {
        return format!("{}{rest}", &base[..scheme_end]);
    }
    if loc.starts_with('/') {
        return format!("{}{loc}", &base[..host_end]);
    }
    let path = &base[host_end..];
    let path = path.split('?').next().unwrap_or("/");
    let dir = &path[..path.rfind('/').map_or(0, |p| p + 1)];
    format!("{}{dir}{loc}", &base[..host_end])
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// `-w FORMAT` after one transfer.
async fn write_out(ctx: &mut Ctx<'_>, o: &Opts, d: &Done<'_>) -> Result<()> {
    let Some(fmt) = &o.write_out else {
        return Ok(());
    };
    let fmt = match fmt.strip_prefix(b"@") {
        Some(file) => read_file(ctx, file).await?.unwrap_or_default(),
        None => fmt.clone(),
    };
    let mut to_stderr = false;
    let mut out: Vec<u8> = Vec::new();
    let mut err: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let buf = if to_stderr { &mut err } else { &mut out };
        let c = fmt[i];
        if c == b'\\' && i + 1 < fmt.len() {
            match fmt[i + 1] {
                b'n' => buf.push(b'\n'),
                b'r' => buf.push(b'\r'),
                b't' => buf.push(b'\t'),
                b'\\' => buf.push(b'\\'),
                other => buf.extend_from_slice(&[b'\\', other]),
            }
            i += 2;
            continue;
        }
        if c != b'%' {
            buf.push(c);
            i += 1;
            continue;
        }
        if fmt.get(i + 1) == Some(&b'%') {
            buf.push(b'%');
            i += 2;
            continue;
        }
        let rest = &fmt[i + 1..];
        if let Some(inner) = rest.strip_prefix(b"header{") {
            if let Some(end) = inner.iter().position(|&b| b == b'}') {
                let name = String::from_utf8_lossy(&inner[..end]).into_owned();
                // curl prints the first header of that name.
                if let Some(v) = d.response.and_then(|r| r.header(&name)) {
                    buf.extend_from_slice(v.as_bytes());
                }
                i += 1 + 7 + end + 1;
                continue;
            }
        }
        if let Some(inner) = rest.strip_prefix(b"{") {
            if let Some(end) = inner.iter().position(|&b| b == b'}') {
                let var = String::from_utf8_lossy(&inner[..end]).into_owned();
                i += 2 + end + 1;
                match var.as_str() {
                    "stderr" => to_stderr = true,
                    "stdout" => to_stderr = false,
                    _ => match variable(&var, d) {
                        Some(v) => buf.extend_from_slice(v.as_bytes()),
                        None => ctx.stderr.extend_from_slice(
                            format!("curl: unknown --write-out variable: '{var}'\n").as_bytes(),
                        ),
                    },
                }
                continue;
            }
        }
        buf.push(b'%');
        i += 1;
    }
    ctx.stdout.extend_from_slice(&out);
    ctx.stderr.extend_from_slice(&err);
    Ok(())
}

fn variable(var: &str, d: &Done<'_>) -> Option<String> {
    let r = d.response;
    let code = r.map_or(0, |r| r.status);
    let effective = r
        .map(|r| {
            if r.url.is_empty() {
                d.url
            } else {
                r.url.as_str()
            }
        })
        .unwrap_or(d.url);
    let redirects = usize::from(r.is_some_and(|r| !r.url.is_empty() && r.url != d.url));
    let redirect_url = r.and_then(|r| {
        if (300..400).contains(&r.status) {
            r.header("location").map(|l| resolve_location(effective, l))
        } else {
            None
        }
    });
    let content_type = r.and_then(|r| r.header("content-type")).unwrap_or("");
    let scheme = if effective.starts_with("https") {
        "HTTPS"
    } else {
        "HTTP"
    };
    Some(match var {
        "http_code" | "response_code" => format!("{code:03}"),
        "content_type" => content_type.to_string(),
        "size_download" => r.map_or(0, |r| r.body.len()).to_string(),
        "size_header" => r.map_or(0, |r| header_block(r).len()).to_string(),
        "size_request" => request_size(d.request).to_string(),
        "size_upload" => d.request.body.len().to_string(),
        "url_effective" => effective.to_string(),
        "url" => d.url.to_string(),
        "method" => d.method.to_string(),
        "num_redirects" => redirects.to_string(),
        "redirect_url" => redirect_url.unwrap_or_default(),
        "exitcode" => d.exit.to_string(),
        "errormsg" => d.error.clone().unwrap_or_default(),
        "scheme" => scheme.to_string(),
        "http_version" => if r.is_some() { "1.1" } else { "0" }.to_string(),
        "num_headers" => r.map_or(0, |r| r.headers.len()).to_string(),
        "num_connects" => usize::from(r.is_some()).to_string(),
        "filename_effective" => match d.output {
            Output::Stdout => String::new(),
            Output::Discard => "/dev/null".into(),
            Output::File(f) => String::from_utf8_lossy(f).into_owned(),
        },
        "ssl_verify_result"
        | "proxy_ssl_verify_result"
        | "urlnum"
        | "speed_download"
        | "speed_upload"
        | "num_certs"
        | "http_connect" => "0".into(),
        "time_total" | "time_connect" | "time_namelookup" | "time_pretransfer"
        | "time_starttransfer" | "time_redirect" | "time_appconnect" => "0.000000".into(),
        "header_json" => header_json(r),
        "json" => {
            let mut m = serde_json::Map::new();
            m.insert("content_type".into(), content_type.into());
            m.insert(
                "errormsg".into(),
                d.error.clone().map_or(serde_json::Value::Null, Into::into),
            );
            m.insert("exitcode".into(), d.exit.into());
            m.insert("http_code".into(), code.into());
            m.insert("method".into(), d.method.into());
            m.insert("num_redirects".into(), redirects.into());
            m.insert("response_code".into(), code.into());
            m.insert("scheme".into(), scheme.into());
            m.insert("size_download".into(), r.map_or(0, |r| r.body.len()).into());
            m.insert("url".into(), d.url.into());
            m.insert("url_effective".into(), effective.into());
            serde_json::Value::Object(m).to_string()
        }
        _ => return None,
    })
}

/// `%{header_json}`: the response headers by lower-case name, values in arrays.
fn header_json(r: Option<&HttpResponse>) -> String {
    let Some(r) = r else {
        return "{}".into();
    };
    let mut names: Vec<String> = Vec::new();
    for (k, _) in &r.headers {
        let k = k.to_ascii_lowercase();
        if !names.contains(&k) {
            names.push(k);
        }
    }
    let entries: Vec<String> = names
        .iter()
        .map(|n| {
            let vals: Vec<String> = r
                .headers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case(n))
                .map(|(_, v)| json_str(v))
                .collect();
            format!("{}:[{}]", json_str(n), vals.join(","))
        })
        .collect();
    format!("{{{}\n}}", entries.join(",\n"))
}

const HELP: &[u8] = b"Usage: curl [options...] <url>
 -d, --data <data>          HTTP POST data
 -f, --fail                 Fail fast with no output on HTTP errors
 -h, --help <category>      Get help for commands
 -i, --include              Include protocol response headers in the output
 -o, --output <file>        Write to file instead of stdout
 -O, --remote-name          Write output to a file named as the remote file
 -s, --silent               Silent mode
 -T, --upload-file <file>   Transfer local FILE to destination
 -u, --user <user:password> Server user and password
 -A, --user-agent <name>    Send User-Agent <name> to server
 -v, --verbose              Make the operation more talkative
 -V, --version              Show version number and quit
";

#[cfg(test)]
mod tests;
