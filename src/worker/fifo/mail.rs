//! Mail in the Fifo object: an inbound message read into its Request, and a delivery to
//! an address sent through the `send_email` binding (`MAIL`). The MIME work is in
//! `crate::mail`; this is the runtime's part.

use std::rc::Rc;

use worker::Env;

use super::deliver::{Answer, Attempt, Stored};
use super::store::Delivery;
use super::Fifo;
use crate::envelope::run::Failure as RunFailure;
use crate::envelope::{Destination, Incoming, Source};
use crate::mail::{inbound, outbound};
use crate::worker::host::now_ms;
use crate::worker::mailer::{self, domain};

impl Fifo {
    /// Reads the message of a mail Request, once: its variables, text and attachments,
    /// and how many FIFOs it has passed through.
    pub(super) fn read_mail(&self, req: &mut Incoming) {
        if req.source != Source::Email || req.mail.is_some() {
            return;
        }
        let mail = inbound::parse(&req.body, &req.mail_from, &req.mail_to, &domain(&self.env));
        req.hops = req.hops.max(mail.thread.hops);
        req.method = "MAIL".into();
        req.mail = Some(Rc::new(mail));
    }
}

/// Benchmarks only (`MKFIFO_FAULTS=1`): the test route's `&repeat=N` reads the message N
/// times in all, so that the time of one reading shows as the difference of N and 1.
pub(super) const BENCH_REPEAT: &str = "x-mkfifo-bench-repeat";

impl Fifo {
    /// Reads the message again as many times as the benchmark asked for.
    pub(super) fn read_mail_again(&self, req: &worker::Request, incoming: &mut Incoming) {
        if incoming.source != Source::Email || !self.settings.faults {
            return;
        }
        let times: u32 = req
            .headers()
            .get(BENCH_REPEAT)
            .ok()
            .flatten()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        for _ in 1..times.min(100) {
            incoming.mail = None;
            self.read_mail(incoming);
        }
    }
}

/// Why a message is refused when its `To: -` script fails: the first line the script
/// wrote to stderr, else the failure itself.
pub(super) fn reject_reason(failure: &RunFailure) -> String {
    let detail = match failure.message.split_once(": ") {
        Some((head, rest)) if failure.what == "script" && head.starts_with("the script exited") => {
            rest
        }
        _ => failure.message.as_str(),
    };
    detail.lines().next().unwrap_or("").trim().to_string()
}

/// Sends delivery `d` to address `to` as a message.
pub(super) async fn send(
    env: &Env,
    d: &Delivery,
    to: &str,
    stored: &Stored,
    body: &[u8],
) -> Attempt {
    if stored.thread.as_ref().is_some_and(|t| t.auto_submitted) {
        return Attempt::Failed(
            format!("{to}: not sent: the Request came from an automatic message (Auto-Submitted, RFC 3834)"),
            false,
        );
    }
    let domain = domain(env);
    let report;
    let (body, subject): (&[u8], String) = match d.purpose.as_str() {
        "report" => {
            report = report_text(body, &domain);
            (
                report.as_bytes(),
                format!("FIFO {} failed on Request {}", stored.fifo, d.request_id),
            )
        }
        "reply" => (
            body,
            format!("Reply to Request {} of FIFO {}", d.request_id, stored.fifo),
        ),
        _ => (body, format!("From FIFO {}", stored.fifo)),
    };
    let headers = match d.purpose.as_str() {
        // A report is text whatever the failed request was.
        "report" => Vec::new(),
        _ => stored.outgoing.headers.clone(),
    };
    let reply_to: Vec<String> = serde_json::from_str::<Vec<Destination>>(&d.reply_to)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|dest| match dest {
            Destination::Email(a) => Some(a),
            Destination::Fifo(name) => Some(format!("{name}@{domain}")),
            _ => None,
        })
        .collect();
    let letter = outbound::Letter {
        fifo: &stored.fifo,
        domain: &domain,
        to,
        headers: &headers,
        body,
        reply_to,
        thread: stored.thread.as_ref(),
        message_id: outbound::message_id(&d.request_id, d.seq, stored.hops, &domain),
        date: now_ms().div_euclid(1000),
        default_subject: &subject,
    };
    let built = match outbound::build(&letter) {
        Ok(b) => b,
        Err(e) => return Attempt::Failed(format!("{to}: {e}"), false),
    };
    match mailer::send(env, &built, to).await {
        Ok(()) => Attempt::Answered(Answer {
            status: 202,
            content_type: None,
            body: Vec::new(),
        }),
        Err(e) => Attempt::Failed(format!("{to}: {}", e.why), !e.lasting),
    }
}

/// A failure report as a short text: what failed, the Request, where its log entry is.
fn report_text(json: &[u8], domain: &str) -> String {
    let v: serde_json::Value = serde_json::from_slice(json).unwrap_or_default();
    let field = |k: &str| v[k].as_str().unwrap_or("").to_string();
    let (fifo, id) = (field("fifo"), field("request_id"));
    let mut text = format!(
        "FIFO {fifo} could not finish Request {id}.\n\n{}\n",
        field("error")
    );
    if let Some(status) = v["status"].as_u64() {
        text.push_str(&format!("The destination answered {status}.\n"));
    }
    text.push_str(&format!(
        "\nThe log entry: https://{domain}/_/api/fifos/{fifo}/log/{id}\n"
    ));
    text
}
