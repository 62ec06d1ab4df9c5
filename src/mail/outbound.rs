//! A Request's result as a message: `To: ada@example.com` in an envelope sends the
//! script's output as mail, built here with mail-builder; the Worker hands the bytes to
//! the `send_email` binding.
//!
//! The message is From `NAME@DOMAIN` (or the envelope's `From:` within DOMAIN), carries
//! the envelope's other headers (`Subject:`, `Cc:`, `In-Reply-To:`, `References:`,
//! `X-...`), a Message-ID in DOMAIN, and `Auto-Submitted: auto-generated` (RFC 3834), so
//! that other robots do not answer it. A body that is text in UTF-8 is the text (or HTML
//! with `Content-Type: text/html`); any other body goes as an attachment.

use mail_builder::headers::address::Address;
use mail_builder::headers::content_type::ContentType;
use mail_builder::headers::date::Date;
use mail_builder::headers::message_id::MessageId;
use mail_builder::headers::raw::Raw;
use mail_builder::headers::text::Text;
use mail_builder::mime::{BodyPart, MimePart};
use mail_builder::MessageBuilder;

use super::domain_of;
use super::inbound::Thread;

/// One message to send.
#[derive(Debug, Clone, Default)]
pub struct Letter<'a> {
    /// The FIFO that sends it: its address is `fifo@domain`.
    pub fifo: &'a str,
    pub domain: &'a str,
    /// The one recipient (each address of `To:` is a delivery of its own).
    pub to: &'a str,
    /// The envelope's outgoing headers, expanded.
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
    /// `Reply-To:` addresses (the envelope's `Reply-To:` names where answers go).
    pub reply_to: Vec<String>,
    /// The message this one answers, when the Request came by mail.
    pub thread: Option<&'a Thread>,
    /// The Message-ID, from [`message_id`].
    pub message_id: String,
    /// Seconds since the epoch, for `Date:`.
    pub date: i64,
    /// `Subject:` when the envelope sets none.
    pub default_subject: &'a str,
}

/// What [`build`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The envelope sender: the From address.
    pub from: String,
    /// The whole message, 7-bit clean.
    pub raw: String,
}

/// Headers that the message gets from mkfifo alone, whatever the envelope says.
const OURS: &[&str] = &[
    "auto-submitted",
    "bcc",
    "content-disposition",
    "content-transfer-encoding",
    "content-type",
    "date",
    "from",
    "idempotency-key",
    "message-id",
    "mime-version",
    "received",
    "return-path",
    "sender",
    "to",
];

/// A Message-ID in the FIFOs' domain for delivery `seq` of Request `request_id`, that
/// says how many FIFOs the Request had passed (`hops`), so that a chain of FIFOs through
/// mail stops at the hop limit.
pub fn message_id(request_id: &str, seq: i64, hops: u32, domain: &str) -> String {
    format!("{request_id}.{seq}.h{hops}@{domain}")
}

/// The hop count of a [`message_id`], if the id is one.
pub fn hops_in_id(id: &str) -> Option<u32> {
    let (local, _) = id.rsplit_once('@')?;
    local.rsplit('.').next()?.strip_prefix('h')?.parse().ok()
}

/// Builds the message; `Err` says what in the envelope makes it impossible.
pub fn build(letter: &Letter<'_>) -> Result<Built, String> {
    let header = |name: &str| {
        letter
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    let (from_name, from) = sender(letter.fifo, letter.domain, header("from"))?;
    let mut mail = MessageBuilder::new()
        .from(Address::new_address(from_name, from.clone()))
        .to(letter.to)
        .message_id(MessageId::new(letter.message_id.clone()))
        .date(Date::new(letter.date))
        .header("Auto-Submitted", Raw::new("auto-generated"));

    let subject = match (header("subject"), letter.thread) {
        (Some(s), _) => s.to_string(),
        (None, Some(t)) if !t.subject.is_empty() => reply_subject(&t.subject),
        (None, _) => letter.default_subject.to_string(),
    };
    mail = mail.subject(Text::new(subject));
    if let Some(cc) = header("cc") {
        mail = mail.cc(address_list(cc));
    }
    if !letter.reply_to.is_empty() {
        mail = mail.reply_to(Address::new_list(
            letter
                .reply_to
                .iter()
                .map(|a| Address::from(a.clone()))
                .collect(),
        ));
    }
    // A message that answers a message by mail joins its thread (RFC 5322 section 3.6.4).
    let (in_reply_to, references) = match letter.thread {
        Some(t) if !t.message_id.is_empty() => {
            let mut refs = t.references.clone();
            refs.push(t.message_id.clone());
            (vec![t.message_id.clone()], refs)
        }
        _ => (Vec::new(), Vec::new()),
    };
    // An id of another character set or with blank space cannot go into a header.
    let clean = |ids: Vec<String>| -> Vec<String> {
        ids.into_iter()
            .filter(|id| {
                id.bytes()
                    .all(|b| (33..=126).contains(&b) && b != b'<' && b != b'>')
            })
            .collect()
    };
    let in_reply_to = clean(header("in-reply-to").map_or(in_reply_to, super::message_ids));
    let references = clean(header("references").map_or(references, super::message_ids));
    if !in_reply_to.is_empty() {
        mail = mail.in_reply_to(MessageId::from(in_reply_to));
    }
    if !references.is_empty() {
        mail = mail.references(MessageId::from(references));
    }
    for (name, value) in letter.headers {
        let lower = name.to_ascii_lowercase();
        if OURS.contains(&lower.as_str())
            || ["subject", "cc", "in-reply-to", "references"].contains(&lower.as_str())
        {
            continue;
        }
        mail = mail.header(name.clone(), Text::new(value.clone()));
    }
    mail = mail.body(body_part(header("content-type"), letter.body));
    let raw = mail
        .write_to_vec()
        .map_err(|e| format!("the message could not be written: {e}"))?;
    let raw = String::from_utf8(raw)
        .ok()
        .filter(|r| r.is_ascii())
        .ok_or("an address is not in ASCII: the message cannot be written")?;
    Ok(Built { from, raw })
}

/// The From of a FIFO's message: `fifo@domain`, or the envelope's `From:` when that is
/// an address of the domain (a display name is kept).
pub fn sender(
    fifo: &str,
    domain: &str,
    from: Option<&str>,
) -> Result<(Option<String>, String), String> {
    let Some(from) = from.map(str::trim).filter(|f| !f.is_empty()) else {
        return Ok((None, format!("{fifo}@{domain}")));
    };
    let (name, addr) = match (from.find('<'), from.rfind('>')) {
        (Some(a), Some(b)) if a < b => {
            let name = from[..a].trim().trim_matches('"').trim();
            (
                (!name.is_empty()).then(|| name.to_string()),
                from[a + 1..b].trim(),
            )
        }
        _ => (None, from),
    };
    if domain_of(addr).as_deref() != Some(&domain.to_ascii_lowercase()) || addr.contains(' ') {
        return Err(format!(
            "From: {from}: a FIFO sends mail only from an address of {domain}"
        ));
    }
    Ok((name, addr.to_string()))
}

/// `Re: SUBJECT`, without piling up `Re:`s.
fn reply_subject(subject: &str) -> String {
    let lower = subject.to_ascii_lowercase();
    if lower.starts_with("re:") {
        subject.to_string()
    } else {
        format!("Re: {subject}")
    }
}

/// `a@x, B <b@y>` as an address list.
fn address_list(list: &str) -> Address<'static> {
    let items: Vec<Address<'static>> = crate::envelope::route::split_list(list)
        .into_iter()
        .map(|item| match (item.find('<'), item.rfind('>')) {
            (Some(a), Some(b)) if a < b => {
                let name = item[..a].trim().trim_matches('"').trim().to_string();
                let addr = item[a + 1..b].trim().to_string();
                Address::new_address((!name.is_empty()).then_some(name), addr)
            }
            _ => Address::new_address(None::<String>, item.to_string()),
        })
        .collect();
    Address::new_list(items)
}

/// The body: UTF-8 text as the message's text (HTML for `text/html`), anything else as
/// an attachment of the type the envelope gave it.
fn body_part(content_type: Option<&str>, body: &[u8]) -> MimePart<'static> {
    let ctype = content_type
        .and_then(|c| c.split(';').next())
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty());
    let text = std::str::from_utf8(body).ok();
    let is_text = ctype.as_deref().is_none_or(|c| c.starts_with("text/"));
    match (text, is_text) {
        (Some(t), true) => {
            let ctype = match ctype.as_deref() {
                Some("text/html") => "text/html",
                Some(c) if c != "text/plain" => c,
                _ => "text/plain",
            };
            MimePart::new(
                ContentType::new(ctype.to_string()).attribute("charset", "utf-8"),
                BodyPart::Text(t.to_string().into()),
            )
        }
        _ => {
            let ctype = ctype.unwrap_or_else(|| "application/octet-stream".into());
            let name = format!("body{}", extension(&ctype));
            let file = MimePart::new(
                ContentType::new(ctype),
                BodyPart::Binary(body.to_vec().into()),
            )
            .attachment(name);
            // Inside multipart/mixed, where mail readers look for attachments.
            MimePart::new(
                ContentType::new("multipart/mixed"),
                BodyPart::Multipart(vec![file]),
            )
        }
    }
}

/// A file name extension for a body of type `ctype`.
fn extension(ctype: &str) -> &'static str {
    match ctype {
        "application/json" => ".json",
        "application/pdf" => ".pdf",
        "application/gzip" => ".gz",
        "application/zip" => ".zip",
        "application/xml" => ".xml",
        "image/png" => ".png",
        "image/jpeg" => ".jpg",
        "image/gif" => ".gif",
        c if c.starts_with("text/") => ".txt",
        _ => ".bin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letter<'a>(headers: &'a [(String, String)], body: &'a [u8]) -> Letter<'a> {
        Letter {
            fifo: "movies",
            domain: "mkfifo.example",
            to: "ada@example.com",
            headers,
            body,
            message_id: message_id("r1", 0, 0, "mkfifo.example"),
            date: 1_790_000_000,
            default_subject: "movies",
            ..Letter::default()
        }
    }

    #[test]
    fn ids_carry_the_hop_count() {
        let id = message_id("abc", 2, 5, "mkfifo.example");
        assert_eq!(id, "abc.2.h5@mkfifo.example");
        assert_eq!(hops_in_id(&id), Some(5));
        assert_eq!(hops_in_id("x@example.com"), None);
    }

    #[test]
    fn senders_stay_in_the_domain() {
        assert_eq!(
            sender("movies", "mkfifo.example", None),
            Ok((None, "movies@mkfifo.example".into()))
        );
        assert_eq!(
            sender(
                "movies",
                "mkfifo.example",
                Some("Films <films@MKFIFO.example>")
            ),
            Ok((Some("Films".into()), "films@MKFIFO.example".into()))
        );
        assert!(sender("movies", "mkfifo.example", Some("me@gmail.com")).is_err());
    }

    #[test]
    fn text_and_binary_bodies() {
        let h = vec![("Subject".to_string(), "Grüße".to_string())];
        let built = build(&letter(&h, "héllo\n".as_bytes())).unwrap();
        assert_eq!(built.from, "movies@mkfifo.example");
        assert!(
            built.raw.contains("Message-ID: <r1.0.h0@mkfifo.example>"),
            "{}",
            built.raw
        );
        assert!(built.raw.contains("Auto-Submitted: auto-generated"));
        assert!(built.raw.is_ascii());
        let binary = build(&letter(&[], &[0, 255, 1])).unwrap();
        assert!(
            binary.raw.contains("filename=\"body.bin\""),
            "{}",
            binary.raw
        );
    }
}
