//! Running an envelope over one Request: the variables, the script, the templates and the
//! routing headers, up to the point where something must be sent. Sending, storing and
//! retrying are the Fifo object's (src/worker/fifo/).
//!
//! Order: the variables (CGI names and selectors from the caller, then the FIFO's own
//! variables, which the caller can never override, then the assignments in order), then
//! `Errors-To:` (so that every later failure can be reported), the script (stdin: the
//! incoming body; stdout: the outgoing body), the other headers (a header's `$(...)`
//! reads the outgoing body), and last `To:`, `Reply-To:` and `Method:`.

use crate::budget::Budget;
use crate::envelope::request::Incoming;
use crate::envelope::route::{is_hop_by_hop, is_routing, split_list, Destination};
use crate::envelope::Envelope;
use crate::error::Error;
use crate::host::Host;
use crate::shell::{Job, Outcome, Shell};

/// Fetches and FIFO calls one Request's script may make: enough for `xargs -n1 curl`
/// over a listing of a thousand keys. (Workers Paid allows 10,000 subrequests per
/// Request; the Free plan 50, which the platform enforces on its own.)
pub const MAX_SUBREQUESTS: u32 = 1_000;

/// What an envelope made of a Request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Steps spent, on everything.
    pub steps: u64,
    /// Where failures go (`Errors-To:`), as far as it could be worked out.
    pub errors_to: Vec<Destination>,
    /// What the script wrote to stderr (empty when it did not run).
    pub stderr: Vec<u8>,
    pub result: Result<Routed, Failure>,
}

/// The routed result of a Request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Routed {
    /// `To: -`: the script's output is the answer, CGI style.
    Answer {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// An outgoing request to each destination; the reply goes to `reply_to`.
    Send {
        outgoing: Outgoing,
        to: Vec<Destination>,
        reply_to: Vec<Destination>,
    },
}

/// The request that goes out to each destination of `To:`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Outgoing {
    pub method: String,
    pub headers: Vec<(String, String)>,
    #[serde(skip)]
    pub body: Vec<u8>,
}

/// Why a Request could not be routed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What failed: `script`, `step limit`, `template`, `destination`.
    pub what: &'static str,
    pub message: String,
}

impl Failure {
    fn new(what: &'static str, message: impl Into<String>) -> Self {
        Failure {
            what,
            message: message.into(),
        }
    }
}

/// Runs `envelope` over `req`. `selected` holds the selectors' values, `fifo_vars` the
/// FIFO's own variables, `limit` the step budget.
pub async fn run(
    shell: &mut Shell,
    host: &dyn Host,
    envelope: &Envelope,
    req: &Incoming,
    selected: Vec<(String, Vec<u8>)>,
    fifo_vars: &[(Vec<u8>, Vec<u8>)],
    limit: u64,
) -> Plan {
    let budget = Budget::new(limit);
    let (vars, errors_to) =
        match variables(shell, host, envelope, req, selected, fifo_vars, &budget).await {
            Ok(v) => v,
            Err(plan) => return plan,
        };
    let mut stderr = Vec::new();
    Plan {
        result: route(shell, host, envelope, req, &vars, &budget, &mut stderr).await,
        steps: budget.used(),
        errors_to,
        stderr,
    }
}

/// The script's variables (CGI names, selectors, the FIFO's own, the assignments) and
/// where failures go; or the failed plan.
async fn variables(
    shell: &mut Shell,
    host: &dyn Host,
    envelope: &Envelope,
    req: &Incoming,
    selected: Vec<(String, Vec<u8>)>,
    fifo_vars: &[(Vec<u8>, Vec<u8>)],
    budget: &Budget,
) -> Result<(Vars, Vec<Destination>), Plan> {
    let mut vars = req.cgi_vars();
    vars.extend(selected.into_iter().map(|(k, v)| (k.into_bytes(), v)));
    vars.extend(fifo_vars.iter().cloned());
    for a in &envelope.assignments {
        match shell
            .expand(host, a.word.as_bytes(), &vars, &req.body, budget)
            .await
        {
            Ok(value) => vars.push((a.name.clone().into_bytes(), value)),
            Err(e) => {
                return Err(Plan {
                    steps: budget.used(),
                    errors_to: Vec::new(),
                    stderr: Vec::new(),
                    result: Err(expansion_failure(
                        &format!("line {}: {}", a.line, a.name),
                        e,
                    )),
                })
            }
        }
    }
    let mut errors_to = Vec::new();
    if let Some(template) = envelope.header("errors-to") {
        // A failure to work out Errors-To is itself reported nowhere: it stays in the log.
        if let Ok(list) = destinations(shell, host, template, &vars, &[], budget).await {
            errors_to = list;
        }
    }
    Ok((vars, errors_to))
}

type Vars = Vec<(Vec<u8>, Vec<u8>)>;

/// Whether the answer of `envelope` can go out as its script writes it: `To: -` with a
/// script, and no header of the answer (nor `Status:`) reads the output with `$(...)`.
pub fn streams_answer(envelope: &Envelope) -> bool {
    let reads_output = |v: &str| v.contains("$(") || v.contains('`');
    envelope.header("to").map(str::trim) == Some("-")
        && !envelope.script.trim().is_empty()
        && envelope
            .headers
            .iter()
            .filter(|h| !is_routing(&h.name) || h.name.eq_ignore_ascii_case("status"))
            .all(|h| !reads_output(&h.value))
}

/// Whether the Request's body can go into the script as it arrives: the answer streams,
/// and nothing else reads the body first (no selectors, no `$(...)` in an assignment).
pub fn streams_body(envelope: &Envelope) -> bool {
    streams_answer(envelope)
        && envelope.selectors.is_empty()
        && envelope
            .assignments
            .iter()
            .all(|a| !a.word.contains("$(") && !a.word.contains('`'))
}

/// A streamed answer's beginning: what the envelope says of it before the script runs,
/// and the script to run (see [`streams_answer`]).
pub struct Streamed {
    pub job: Job,
    pub status: Option<String>,
    pub headers: Vec<(String, String)>,
    pub errors_to: Vec<Destination>,
    /// Steps spent before the script.
    pub steps: u64,
}

/// Works out a streamed answer's headers and its script; or the failed plan.
pub async fn stream_answer(
    shell: &mut Shell,
    host: &dyn Host,
    envelope: &Envelope,
    req: &Incoming,
    selected: Vec<(String, Vec<u8>)>,
    fifo_vars: &[(Vec<u8>, Vec<u8>)],
    limit: u64,
) -> Result<Streamed, Plan> {
    let budget = Budget::new(limit);
    let (vars, errors_to) =
        variables(shell, host, envelope, req, selected, fifo_vars, &budget).await?;
    let failed = |f: Failure, errors_to: &[Destination]| Plan {
        steps: budget.used(),
        errors_to: errors_to.to_vec(),
        stderr: Vec::new(),
        result: Err(f),
    };
    let headers = match answer_headers(shell, host, envelope, &vars, &[], &budget).await {
        Ok(h) => h,
        Err(f) => return Err(failed(f, &errors_to)),
    };
    let status = match envelope.header("status") {
        Some(s) => match expand_text(shell, host, s, &vars, &[], &budget, "Status").await {
            Ok(s) => Some(s),
            Err(f) => return Err(failed(f, &errors_to)),
        },
        None => None,
    };
    Ok(Streamed {
        job: script_job(envelope, req, &vars, &budget),
        status,
        headers,
        errors_to,
        steps: budget.used(),
    })
}

/// The job of the envelope's script.
fn script_job(
    envelope: &Envelope,
    req: &Incoming,
    vars: &[(Vec<u8>, Vec<u8>)],
    budget: &Budget,
) -> Job {
    Job {
        script: envelope.script.clone().into_bytes(),
        arg0: req.fifo.clone().into_bytes(),
        args: req.args.clone(),
        stdin: req.body.clone(),
        vars: vars.to_vec(),
        budget: budget.remaining(),
        max_subrequests: MAX_SUBREQUESTS,
    }
}

/// Why a script's run is a failure of the Request, if it is: the step limit, or a status
/// other than 0 (with the first of its stderr).
pub fn script_failure(outcome: &Outcome) -> Option<Failure> {
    if let Some(Error::StepLimit { limit }) = outcome.error {
        return Some(Failure::new(
            "step limit",
            format!("the script used up its {limit} steps"),
        ));
    }
    if outcome.status == 0 {
        return None;
    }
    let stderr = String::from_utf8_lossy(&outcome.stderr);
    let detail = stderr.trim_end();
    Some(Failure::new(
        "script",
        if detail.is_empty() {
            format!("the script exited with status {}", outcome.status)
        } else {
            format!("the script exited with status {}: {detail}", outcome.status)
        },
    ))
}

/// The envelope's headers for the outgoing request or the answer, expanded; a header's
/// `$(...)` reads `body`.
async fn answer_headers(
    shell: &mut Shell,
    host: &dyn Host,
    envelope: &Envelope,
    vars: &[(Vec<u8>, Vec<u8>)],
    body: &[u8],
    budget: &Budget,
) -> Result<Vec<(String, String)>, Failure> {
    let mut headers = Vec::new();
    for h in envelope
        .headers
        .iter()
        .filter(|h| !is_routing(&h.name) && !is_hop_by_hop(&h.name))
    {
        let value = shell
            .expand(host, h.value.as_bytes(), vars, body, budget)
            .await
            .map_err(|e| expansion_failure(&format!("line {}: {}", h.line, h.name), e))?;
        headers.push((h.name.clone(), header_value(&value)));
    }
    Ok(headers)
}

/// Runs the script and works out where its output goes; what the script wrote to stderr
/// goes to `stderr`, whether it failed or not.
async fn route(
    shell: &mut Shell,
    host: &dyn Host,
    envelope: &Envelope,
    req: &Incoming,
    vars: &[(Vec<u8>, Vec<u8>)],
    budget: &Budget,
    stderr: &mut Vec<u8>,
) -> Result<Routed, Failure> {
    let body = if envelope.script.trim().is_empty() {
        req.body.clone()
    } else {
        let outcome = shell
            .run(host, script_job(envelope, req, vars, budget))
            .await;
        let _ = budget.spend(outcome.steps);
        let failure = script_failure(&outcome);
        *stderr = outcome.stderr;
        if let Some(failure) = failure {
            return Err(failure);
        }
        outcome.stdout
    };
    let headers = answer_headers(shell, host, envelope, vars, &body, budget).await?;

    let to = match envelope.header("to") {
        Some(t) => destinations(shell, host, t, vars, &body, budget).await?,
        None => vec![Destination::Caller],
    };
    if to.is_empty() {
        return Err(Failure::new("destination", "To: names no destination"));
    }
    if to == [Destination::Caller] {
        let status = match envelope.header("status") {
            Some(s) => Some(expand_text(shell, host, s, vars, &body, budget, "Status").await?),
            None => None,
        };
        return Ok(cgi_answer(status.as_deref(), headers, body));
    }
    if to.contains(&Destination::Caller) {
        return Err(Failure::new(
            "destination",
            "To: - cannot be mixed with other destinations",
        ));
    }
    let reply_to = match envelope.header("reply-to") {
        Some(r) => destinations(shell, host, r, vars, &body, budget).await?,
        None => Vec::new(),
    };
    let method = match envelope.header("method") {
        Some(m) => expand_text(shell, host, m, vars, &body, budget, "Method")
            .await?
            .trim()
            .to_ascii_uppercase(),
        None if body.is_empty() => "GET".into(),
        None => "POST".into(),
    };
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(Failure::new(
            "template",
            format!("Method: '{method}' is not an HTTP method"),
        ));
    }
    Ok(Routed::Send {
        outgoing: Outgoing {
            method,
            headers,
            body,
        },
        to,
        reply_to,
    })
}

/// Expands each destination of a list and reads it.
async fn destinations(
    shell: &mut Shell,
    host: &dyn Host,
    template: &str,
    vars: &[(Vec<u8>, Vec<u8>)],
    stdin: &[u8],
    budget: &Budget,
) -> Result<Vec<Destination>, Failure> {
    let mut list = Vec::new();
    for part in split_list(template) {
        let text = expand_text(shell, host, part, vars, stdin, budget, "a destination").await?;
        list.push(Destination::parse(&text).map_err(|m| Failure::new("destination", m))?);
    }
    Ok(list)
}

async fn expand_text(
    shell: &mut Shell,
    host: &dyn Host,
    template: &str,
    vars: &[(Vec<u8>, Vec<u8>)],
    stdin: &[u8],
    budget: &Budget,
    what: &str,
) -> Result<String, Failure> {
    let value = shell
        .expand(host, template.as_bytes(), vars, stdin, budget)
        .await
        .map_err(|e| expansion_failure(what, e))?;
    Ok(header_value(&value))
}

fn expansion_failure(what: &str, e: Error) -> Failure {
    match e {
        Error::StepLimit { limit } => {
            Failure::new("step limit", format!("{what}: used up the {limit} steps"))
        }
        e => Failure::new("template", format!("{what}: {e}")),
    }
}

/// A header value from expanded bytes: line breaks become spaces (a value can never start
/// a header of its own), other bytes pass as Latin-1 would not: invalid UTF-8 is replaced.
fn header_value(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .replace(['\r', '\n'], " ")
        .trim()
        .to_string()
}

/// The answer of `To: -`. Output that starts with a CGI response field (`Status:`,
/// `Content-Type:` or `Location:`, RFC 3875) has a header block up to the first blank
/// line; any other output is all body. The script's fields win over the envelope's.
pub fn cgi_answer(
    envelope_status: Option<&str>,
    mut headers: Vec<(String, String)>,
    out: Vec<u8>,
) -> Routed {
    let mut status = envelope_status.and_then(parse_status);
    let mut body = out;
    if starts_with_cgi_field(&body) {
        if let Some((head, rest)) = split_head(&body) {
            for line in head.split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let text = String::from_utf8_lossy(line);
                let Some((name, value)) = text.split_once(':') else {
                    continue;
                };
                let (name, value) = (name.trim(), value.trim());
                if name.eq_ignore_ascii_case("status") {
                    status = parse_status(value).or(status);
                } else if name.eq_ignore_ascii_case("content-length") {
                    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
                        headers.retain(|(k, _)| k != crate::protocol::LENGTH);
                        headers.push((crate::protocol::LENGTH.into(), value.to_string()));
                    }
                } else if !is_hop_by_hop(name) {
                    headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
                    headers.push((name.to_string(), value.to_string()));
                }
            }
            body = rest;
        }
    }
    let has_location = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("location"));
    let status = status.unwrap_or(if has_location { 302 } else { 200 });
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        headers.push(("Content-Type".into(), "text/plain; charset=utf-8".into()));
    }
    Routed::Answer {
        status,
        headers,
        body,
    }
}

fn starts_with_cgi_field(out: &[u8]) -> bool {
    let head = &out[..out.len().min(16)];
    let lower = head.to_ascii_lowercase();
    [&b"status:"[..], b"content-type:", b"location:"]
        .iter()
        .any(|f| lower.starts_with(f))
}

/// The header block and the body, split at the first blank line (LF or CRLF).
fn split_head(out: &[u8]) -> Option<(&[u8], Vec<u8>)> {
    let mut i = 0;
    while i < out.len() {
        if out[i] == b'\n' {
            let next = &out[i + 1..];
            if next.starts_with(b"\n") {
                return Some((&out[..i], next[1..].to_vec()));
            }
            if next.starts_with(b"\r\n") {
                return Some((&out[..i], next[2..].to_vec()));
            }
        }
        i += 1;
    }
    Some((out, Vec::new()))
}

/// `404`, `404 Not Found`: the status code, when it is one.
fn parse_status(s: &str) -> Option<u16> {
    let code: u16 = s.split_whitespace().next()?.parse().ok()?;
    (200..=599).contains(&code).then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::parse;
    use crate::host::FixedHost;

    fn request(body: &str) -> Incoming {
        Incoming {
            fifo: "test".into(),
            request_id: "r1".into(),
            method: "POST".into(),
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.as_bytes().to_vec(),
            ..Default::default()
        }
    }

    fn plan(
        envelope: &str,
        req: &Incoming,
        selected: &[(&str, &str)],
        fifo_vars: &[(&str, &str)],
    ) -> Plan {
        let env = parse(envelope).unwrap();
        let selected = selected
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect();
        let fifo_vars: Vec<_> = fifo_vars
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect();
        let mut shell = Shell::new();
        pollster::block_on(run(
            &mut shell,
            &FixedHost::default(),
            &env,
            req,
            selected,
            &fifo_vars,
            100_000,
        ))
    }

    #[test]
    fn cgi_answers_with_status_and_headers() {
        let p = plan("To: -\nX-Kind: $REQUEST_METHOD\n\necho 'Status: 201 Created'; echo 'X-Extra: 1'; echo; cat\n", &request("hi"), &[], &[]);
        let Ok(Routed::Answer {
            status,
            headers,
            body,
        }) = p.result
        else {
            panic!("{p:?}")
        };
        assert_eq!(status, 201);
        assert_eq!(body, b"hi");
        assert!(headers.contains(&("X-Kind".into(), "POST".into())));
        assert!(headers.contains(&("X-Extra".into(), "1".into())));
        assert!(p.steps > 0);
    }

    #[test]
    fn a_told_length_is_kept_for_the_entry_module() {
        let p = plan(
            "To: -\n\nprintf 'Content-Type: a/b\\nContent-Length: 12\\n\\n'\n",
            &request(""),
            &[],
            &[],
        );
        let Ok(Routed::Answer { headers, .. }) = p.result else {
            panic!("{p:?}")
        };
        assert!(headers.contains(&(crate::protocol::LENGTH.into(), "12".into())));
        assert!(!headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-length")));
        let p = plan(
            "To: -\n\nprintf 'Content-Type: a/b\\nContent-Length: 1x\\n\\n'\n",
            &request(""),
            &[],
            &[],
        );
        let Ok(Routed::Answer { headers, .. }) = p.result else {
            panic!("{p:?}")
        };
        assert!(!headers.iter().any(|(k, _)| k == crate::protocol::LENGTH));
    }

    #[test]
    fn plain_output_is_all_body() {
        let p = plan(
            "To: -\nStatus: 202\n\necho 'Note: not a header'; echo; echo x\n",
            &request(""),
            &[],
            &[],
        );
        let Ok(Routed::Answer { status, body, .. }) = p.result else {
            panic!("{p:?}")
        };
        assert_eq!(status, 202);
        assert_eq!(body, b"Note: not a header\n\nx\n");
    }

    #[test]
    fn sends_with_templates_and_selectors() {
        let env = "To: https://api.test/movies/$id, other-fifo\nMethod: put\nX-Sig: $(cat; printf %s \"$id\")\nAuthorization: Bearer $TOKEN\n\ncat; echo\n";
        let p = plan(env, &request("{}"), &[("id", "42")], &[("TOKEN", "secret")]);
        let Ok(Routed::Send {
            outgoing,
            to,
            reply_to,
        }) = p.result
        else {
            panic!("{p:?}")
        };
        assert_eq!(
            to,
            vec![
                Destination::Url("https://api.test/movies/42".into()),
                Destination::Fifo("other-fifo".into())
            ]
        );
        assert!(reply_to.is_empty());
        assert_eq!(outgoing.method, "PUT");
        assert_eq!(outgoing.body, b"{}\n");
        assert!(
            outgoing.headers.contains(&("X-Sig".into(), "{} 42".into())),
            "{:?}",
            outgoing.headers
        );
        assert!(outgoing
            .headers
            .contains(&("Authorization".into(), "Bearer secret".into())));
    }

    #[test]
    fn callers_cannot_override_fifo_variables_or_add_destinations() {
        // A selector named like a FIFO variable loses; a comma in a value stays in the URL.
        let env = "To: https://api.test/?q=$q\n\nprintf %s \"$TOKEN\"\n";
        let p = plan(
            env,
            &request(""),
            &[("TOKEN", "from-caller"), ("q", "a,evil-fifo")],
            &[("TOKEN", "owner")],
        );
        let Ok(Routed::Send { outgoing, to, .. }) = p.result else {
            panic!("{p:?}")
        };
        assert_eq!(outgoing.body, b"owner");
        assert_eq!(
            to,
            vec![Destination::Url("https://api.test/?q=a,evil-fifo".into())]
        );
        // A value that would make the URL invalid is refused, not passed on.
        let p = plan(env, &request(""), &[("q", "a b")], &[]);
        assert_eq!(p.result.unwrap_err().what, "destination");
    }

    #[test]
    fn values_are_never_reparsed() {
        let p = plan(
            "To: -\n\nprintf '%s' \"$x\"\n",
            &request(""),
            &[("x", "$(echo pwned); `id`")],
            &[],
        );
        let Ok(Routed::Answer { body, .. }) = p.result else {
            panic!("{p:?}")
        };
        assert_eq!(body, b"$(echo pwned); `id`");
    }

    #[test]
    fn failures_are_reported_with_errors_to() {
        let p = plan(
            "To: https://x.test/\nErrors-To: ops@example.com, ops-fifo\n\necho bad >&2; exit 3\n",
            &request(""),
            &[],
            &[],
        );
        assert_eq!(
            p.errors_to,
            vec![
                Destination::Email("ops@example.com".into()),
                Destination::Fifo("ops-fifo".into())
            ]
        );
        let Err(f) = p.result else { panic!() };
        assert_eq!(f.what, "script");
        assert_eq!(f.message, "the script exited with status 3: bad");
        assert_eq!(p.stderr, b"bad\n");
    }

    #[test]
    fn stderr_is_kept_when_the_script_succeeds() {
        let p = plan(
            "To: -\n\necho out; echo oops >&2; echo more >&2\n",
            &request(""),
            &[],
            &[],
        );
        let Ok(Routed::Answer { body, .. }) = p.result else {
            panic!("{p:?}")
        };
        assert_eq!(body, b"out\n");
        assert_eq!(p.stderr, b"oops\nmore\n");
    }

    #[test]
    fn step_limit_is_a_failure() {
        let p = plan("To: -\n\nwhile :; do :; done\n", &request(""), &[], &[]);
        assert_eq!(p.result.unwrap_err().what, "step limit");
        assert_eq!(p.steps, 100_000);
    }

    #[test]
    fn bad_destinations_fail() {
        let p = plan(
            "To: $where\n",
            &request(""),
            &[("where", "Not a Place")],
            &[],
        );
        assert_eq!(p.result.unwrap_err().what, "destination");
        let p = plan("To: -, x-fifo\n", &request(""), &[], &[]);
        assert_eq!(p.result.unwrap_err().what, "destination");
    }
}
