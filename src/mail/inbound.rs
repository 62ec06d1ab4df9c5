//! An inbound message as a script sees it: its variables (`FROM`, `SUBJECT`, `MAIL_*`...),
//! its text as stdin, its attachments as files (`cat attachment:NAME`).
//!
//! mail-parser does the MIME work (RFC 2047 words, RFC 2231 parameters, quoted-printable
//! and base64, charsets). It is lenient and never panics; a message it finds no header in
//! still becomes a Request, with the raw bytes as stdin and `PARSE_ERROR` saying why.

use mail_parser::{
    Address, Encoding, HeaderName, HeaderValue, MessageParser, MessagePart, MimeHeaders, PartType,
};

use super::{domain_of, message_ids};

/// What the envelope of a FIFO gets of one message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mail {
    /// `FROM`, `FROM_NAME`, `TO`, `CC`, `REPLY_TO`, `SUBJECT`, `MESSAGE_ID`, `DATE`,
    /// `IN_REPLY_TO`, `MAIL_*`, `ATTACHMENTS` (and `PARSE_ERROR` for a message that could
    /// not be read), in that order.
    pub vars: Vec<(String, String)>,
    /// The first text/plain part, else the first text/html part, else empty; in UTF-8,
    /// with `\n` line ends.
    pub stdin: Vec<u8>,
    /// The type of `stdin`: `text/plain; charset=utf-8`, `text/html; charset=utf-8` or
    /// empty.
    pub content_type: String,
    pub attachments: Vec<Attachment>,
    /// For the log and for replies.
    pub from: String,
    pub subject: String,
    pub thread: Thread,
}

/// One attachment: a part with a file name, a part marked `Content-Disposition:
/// attachment`, a part that is neither text/plain nor text/html (a nested message too,
/// whole), or a text part after the first of its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The file name (decoded), unique within the message; `attachment-N` when the part
    /// has none.
    pub name: String,
    /// `type/subtype`, lower case.
    pub content_type: String,
    /// The bytes, transfer-decoded (base64, quoted-printable), as sent.
    pub bytes: Vec<u8>,
}

/// What an answer to the message needs to know of it: its place in a thread, and whether
/// it was itself sent by a machine (RFC 3834).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Thread {
    pub message_id: String,
    /// `References`, then `In-Reply-To` when References leaves it out.
    pub references: Vec<String>,
    pub subject: String,
    /// `Auto-Submitted:` other than `no`, from outside the FIFOs' own domain: nothing is
    /// mailed automatically in answer to it.
    pub auto_submitted: bool,
    /// How many FIFOs mailed this on already, read from the ids of the own domain.
    pub hops: u32,
}

/// Headers that have a variable of their own instead of `MAIL_*`.
const NAMED: &[&str] = &[
    "cc",
    "date",
    "from",
    "in-reply-to",
    "message-id",
    "reply-to",
    "subject",
];

impl Mail {
    /// The bytes of attachment `name` (`cat attachment:NAME`).
    pub fn file(&self, name: &str) -> Option<&[u8]> {
        let file = self.attachments.iter().find(|a| a.name == name)?;
        Some(&file.bytes)
    }
}

/// Reads `raw`. `envelope_from` and `envelope_to` are the SMTP envelope's addresses;
/// `domain` is the FIFOs' own mail domain (for loops).
pub fn parse(raw: &[u8], envelope_from: &str, envelope_to: &str, domain: &str) -> Mail {
    let parser = MessageParser::new()
        .with_mime_headers()
        .header_address(HeaderName::From)
        .header_address(HeaderName::Cc)
        .header_address(HeaderName::ReplyTo)
        .header_text(HeaderName::Subject)
        .default_header_text();
    // mail-parser makes a header of any first line; a message is one when some header
    // has a name as RFC 5322 allows (printable ASCII but the colon).
    let field_name =
        |n: &str| !n.is_empty() && n.bytes().all(|b| (33..=126).contains(&b) && b != b':');
    let message = parser
        .parse(raw)
        .filter(|m| m.headers().iter().any(|h| field_name(header_name(&h.name))));
    let Some(message) = message else {
        return unparsed(raw, envelope_from, envelope_to);
    };

    let mut mail = Mail::default();
    let first_address = |name: HeaderName<'static>| match message.header(name) {
        Some(HeaderValue::Address(a)) => a.first().cloned(),
        _ => None,
    };
    let from = first_address(HeaderName::From);
    mail.from = from
        .as_ref()
        .and_then(|a| a.address.as_deref())
        .unwrap_or(envelope_from)
        .to_string();
    let from_name = from
        .as_ref()
        .and_then(|a| a.name.as_deref())
        .unwrap_or("")
        .to_string();
    let addresses = |name: HeaderName<'static>| match message.header(name) {
        Some(HeaderValue::Address(a)) => address_list(a),
        _ => String::new(),
    };
    let text = |name: &str| -> String {
        message
            .header_values(name)
            .next()
            .map(|v| header_text(v))
            .unwrap_or_default()
    };
    mail.subject = message.subject().unwrap_or("").to_string();
    let message_id = message_ids(&text("Message-ID")).into_iter().next();
    let in_reply_to = message_ids(&text("In-Reply-To"));
    let mut references = message_ids(&text("References"));
    for id in &in_reply_to {
        if !references.contains(id) {
            references.push(id.clone());
        }
    }

    let vars = &mut mail.vars;
    let mut set = |k: &str, v: String| vars.push((k.to_string(), v));
    set("FROM", mail.from.clone());
    set("FROM_NAME", from_name);
    set("TO", envelope_to.to_string());
    set("CC", addresses(HeaderName::Cc));
    set("REPLY_TO", addresses(HeaderName::ReplyTo));
    set("SUBJECT", mail.subject.clone());
    set("MESSAGE_ID", message_id.clone().unwrap_or_default());
    set("DATE", text("Date"));
    set("IN_REPLY_TO", in_reply_to.join(" "));
    let mut others: Vec<(String, String)> = Vec::new();
    for h in message.headers() {
        let name = header_name(&h.name);
        if NAMED.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            continue;
        }
        let var = format!("MAIL_{}", crate::envelope::request::var_name(name));
        let value = match &h.value {
            HeaderValue::Text(_) | HeaderValue::TextList(_) | HeaderValue::Address(_) => {
                header_text(&h.value)
            }
            _ => raw_header(raw, h.offset_start, h.offset_end),
        };
        match others.iter_mut().find(|(k, _)| *k == var) {
            // A header that comes several times (Received) is one variable, a line each.
            Some((_, v)) => {
                v.push('\n');
                v.push_str(&value);
            }
            None => others.push((var, value)),
        }
    }
    mail.vars.extend(others);

    let auto = text("Auto-Submitted").trim().to_ascii_lowercase();
    let own = |id: &str| domain_of(id).is_some_and(|d| d.eq_ignore_ascii_case(domain));
    let from_us = message_id.as_deref().is_some_and(own);
    let message_id = message_id.unwrap_or_default();
    mail.thread = Thread {
        hops: hops(&references, &message_id, domain),
        message_id,
        references,
        subject: mail.subject.clone(),
        auto_submitted: !auto.is_empty() && auto != "no" && !from_us,
    };

    let mut html: Option<usize> = None;
    for (i, part) in message.parts.iter().enumerate() {
        if part.is_multipart() {
            continue;
        }
        let ctype = content_type(part);
        let named = part.attachment_name().is_some();
        let disposed = part
            .content_disposition()
            .is_some_and(|d| d.ctype().eq_ignore_ascii_case("attachment"));
        let body_text = match &part.body {
            PartType::Text(t) if ctype == "text/plain" => Some(t),
            PartType::Html(t) if ctype == "text/html" => Some(t),
            _ => None,
        };
        // The first plain and the first HTML text are the message's text; any later
        // one is kept as an attachment, so nothing is lost.
        let first_of_its_kind = match ctype.as_str() {
            "text/plain" => mail.content_type.is_empty(),
            _ => html.is_none(),
        };
        match body_text {
            Some(t) if !named && !disposed && first_of_its_kind => {
                if ctype == "text/plain" {
                    mail.stdin = lf_line_ends(t);
                    mail.content_type = "text/plain; charset=utf-8".into();
                } else {
                    html = Some(i);
                }
            }
            _ => {
                let name = part
                    .attachment_name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("attachment-{}", mail.attachments.len() + 1));
                let name = unique(&mail.attachments, name.replace(['\t', '\n', '\r'], " "));
                mail.attachments.push(Attachment {
                    name,
                    content_type: ctype,
                    bytes: part_bytes(raw, part),
                });
            }
        }
    }
    if mail.content_type.is_empty() {
        if let Some(PartType::Html(t)) = html.map(|i| &message.parts[i].body) {
            mail.stdin = lf_line_ends(t);
            mail.content_type = "text/html; charset=utf-8".into();
        }
    }
    let listing: Vec<String> = mail
        .attachments
        .iter()
        .map(|a| format!("{}\t{}\t{}", a.name, a.content_type, a.bytes.len()))
        .collect();
    mail.vars.push(("ATTACHMENTS".into(), listing.join("\n")));
    mail
}

/// A message in which no header could be found: the raw bytes are the text.
fn unparsed(raw: &[u8], envelope_from: &str, envelope_to: &str) -> Mail {
    let why = if raw.is_empty() {
        "the message is empty"
    } else {
        "no header found: this is not a mail message"
    };
    Mail {
        vars: vec![
            ("FROM".into(), envelope_from.to_string()),
            ("TO".into(), envelope_to.to_string()),
            ("ATTACHMENTS".into(), String::new()),
            ("PARSE_ERROR".into(), why.into()),
        ],
        stdin: raw.to_vec(),
        content_type: "application/octet-stream".into(),
        from: envelope_from.to_string(),
        ..Mail::default()
    }
}

/// How many FIFOs a message has passed through, by the ids of the own domain it carries:
/// each FIFO that mails in answer adds one to `References`, and each Message-ID of ours
/// says the count of the message it was (`...hN@domain`, see
/// [`super::outbound::message_id`]).
fn hops(references: &[String], message_id: &str, domain: &str) -> u32 {
    let own = |id: &str| domain_of(id).is_some_and(|d| d.eq_ignore_ascii_case(domain));
    let counted = references.iter().filter(|id| own(id)).count() as u32;
    let stated = std::iter::once(message_id)
        .chain(references.iter().map(String::as_str))
        .filter(|id| own(id))
        .filter_map(super::outbound::hops_in_id)
        .max()
        .unwrap_or(0);
    counted.max(stated)
}

fn header_name<'a>(name: &'a HeaderName<'_>) -> &'a str {
    match name {
        HeaderName::Other(n) => n.as_ref(),
        n => n.as_static_str(),
    }
}

/// A header's decoded text (RFC 2047 words decoded, lines unfolded).
fn header_text(value: &HeaderValue<'_>) -> String {
    match value {
        HeaderValue::Text(t) => t.trim().to_string(),
        HeaderValue::TextList(l) => l.join(", "),
        HeaderValue::Address(a) => a
            .iter()
            .map(|addr| match (&addr.name, &addr.address) {
                (Some(n), Some(a)) => format!("{n} <{a}>"),
                (None, Some(a)) => a.to_string(),
                (Some(n), None) => n.to_string(),
                (None, None) => String::new(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

/// The addresses of an address header, comma-separated, without display names.
fn address_list(a: &Address<'_>) -> String {
    a.iter()
        .filter_map(|addr| addr.address.as_deref())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The header's text as written, unfolded.
fn raw_header(raw: &[u8], start: u32, end: u32) -> String {
    let bytes = raw.get(start as usize..end as usize).unwrap_or_default();
    let text = String::from_utf8_lossy(bytes);
    text.split(['\r', '\n'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `type/subtype` of a part, lower case; text/plain when it has none (RFC 2045).
fn content_type(part: &MessagePart<'_>) -> String {
    match part.content_type() {
        Some(ct) => match ct.subtype() {
            Some(sub) => format!("{}/{}", ct.ctype(), sub).to_ascii_lowercase(),
            None => ct.ctype().to_ascii_lowercase(),
        },
        None if part.is_message() => "message/rfc822".into(),
        None => "text/plain".into(),
    }
}

/// A part's bytes as sent, transfer-decoded. mail-parser converts text parts to UTF-8,
/// and keeps a part it could not decode to its boundary (a message cut short) as it is:
/// those are decoded again from the raw message, to their end.
fn part_bytes(raw: &[u8], part: &MessagePart<'_>) -> Vec<u8> {
    if !part.is_text() && !part.is_encoding_problem {
        return part.contents().to_vec();
    }
    let body = raw
        .get(part.offset_body as usize..part.offset_end as usize)
        .unwrap_or_default();
    // A part that could not be decoded has no encoding of record: its header says.
    let encoding = match part.content_transfer_encoding().map(str::trim) {
        Some(e) if e.eq_ignore_ascii_case("base64") => Encoding::Base64,
        Some(e) if e.eq_ignore_ascii_case("quoted-printable") => Encoding::QuotedPrintable,
        _ => part.encoding,
    };
    let decoded = match encoding {
        Encoding::Base64 => mail_parser::decoders::base64::base64_decode(body),
        Encoding::QuotedPrintable => {
            mail_parser::decoders::quoted_printable::quoted_printable_decode(body)
        }
        Encoding::None => Some(body.to_vec()),
    };
    decoded.unwrap_or_else(|| part.contents().to_vec())
}

/// Text with CRLF line ends as a script reads it: LF.
fn lf_line_ends(text: &str) -> Vec<u8> {
    if !text.contains('\r') {
        return text.as_bytes().to_vec();
    }
    text.replace("\r\n", "\n").into_bytes()
}

/// `name`, or `name (2)`, `name (3)`... when an earlier attachment has it.
fn unique(taken: &[Attachment], name: String) -> String {
    if !taken.iter().any(|a| a.name == name) {
        return name;
    }
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name.as_str(), ""),
    };
    (2..)
        .map(|n| format!("{stem} ({n}){ext}"))
        .find(|c| !taken.iter().any(|a| &a.name == c))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the README's "Mail in", as it says.
    #[test]
    fn the_readme_example() {
        let raw = "From: =?utf-8?q?Ada_Lovel=C3=A6ce?= <ada@example.com>\r\n\
            To: tickets@mkfifo.example\r\n\
            Subject: =?iso-8859-1?q?Imprimante_en_feu_=E0_Paris?=\r\n\
            Message-ID: <42@example.com>\r\n\
            Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
            --b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThe printer is on fire.\r\n\
            --b\r\nContent-Type: image/jpeg; name=\"fire.jpg\"\r\n\
            Content-Transfer-Encoding: base64\r\n\r\n/9j/4AAQSkZJRg==\r\n--b--\r\n";
        let mail = parse(
            raw.as_bytes(),
            "ada@example.com",
            "tickets@mkfifo.example",
            "mkfifo.example",
        );
        let vars: Vec<(&str, &str)> = mail
            .vars
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            vars,
            [
                ("FROM", "ada@example.com"),
                ("FROM_NAME", "Ada Lovel\u{e6}ce"),
                ("TO", "tickets@mkfifo.example"),
                ("CC", ""),
                ("REPLY_TO", ""),
                ("SUBJECT", "Imprimante en feu \u{e0} Paris"),
                ("MESSAGE_ID", "42@example.com"),
                ("DATE", ""),
                ("IN_REPLY_TO", ""),
                ("MAIL_TO", "tickets@mkfifo.example"),
                ("MAIL_CONTENT_TYPE", "multipart/mixed; boundary=\"b\""),
                ("ATTACHMENTS", "fire.jpg\timage/jpeg\t10"),
            ]
        );
        assert_eq!(mail.stdin, b"The printer is on fire.");
    }
}
