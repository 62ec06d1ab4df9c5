//! The sign-in message: a one-time link to the address that asked for it.

use crate::mail::outbound::{self, Built, Letter};

/// The local part of the sender, `noreply@DOMAIN` (a reserved name: no FIFO gets the
/// answers to it).
pub const SENDER: &str = "noreply";

/// The subject of every sign-in message.
pub const SUBJECT: &str = "Your mkfifo sign-in link";

/// The message that carries `link` to `to`. `id` makes its Message-ID unique.
pub fn signin(
    to: &str,
    link: &str,
    site: &str,
    domain: &str,
    id: &str,
    now_s: i64,
) -> Result<Built, String> {
    let body = format!(
        "Someone, hopefully you, asked to sign in to mkfifo at {site} as {to}.\n\
         \n\
         Open this link to sign in:\n\
         \n\
         {link}\n\
         \n\
         It works once, within 15 minutes. If you did not ask for it, you can ignore\n\
         this message: nothing happens without the link.\n"
    );
    let headers = vec![("From".to_string(), format!("mkfifo <{SENDER}@{domain}>"))];
    outbound::build(&Letter {
        fifo: SENDER,
        domain,
        to,
        headers: &headers,
        body: body.as_bytes(),
        message_id: outbound::message_id(id, 0, 0, domain),
        date: now_s,
        default_subject: SUBJECT,
        ..Letter::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_carries_the_link() {
        let link = format!(
            "https://mkfifo.example/_/signin/{}.{}",
            "a".repeat(64),
            "b".repeat(43)
        );
        let built = signin(
            "ada@example.com",
            &link,
            "https://mkfifo.example",
            "mkfifo.example",
            "r1",
            1_700_000_000,
        )
        .unwrap();
        assert_eq!(built.from, "noreply@mkfifo.example");
        let parsed = mail_parser::MessageParser::default()
            .parse(built.raw.as_bytes())
            .unwrap();
        assert_eq!(parsed.subject(), Some(SUBJECT));
        let text = parsed.body_text(0).unwrap();
        assert!(text.contains(&link), "{text}");
        assert!(text.contains("ada@example.com"));
        assert_eq!(
            parsed.header_raw("Auto-Submitted").map(str::trim),
            Some("auto-generated")
        );
    }
}
