//! Mail: an inbound message made into what a script sees ([`inbound`]), and the result of a
//! Request made into a message to send ([`outbound`]). Plain Rust on mail-parser and
//! mail-builder; the Worker's glue (the `send_email` binding, the log) is in `worker/fifo/`.

pub mod inbound;
pub mod outbound;

/// How many Message-IDs of the FIFOs' own domain a message may carry in `References` and
/// `In-Reply-To` (each FIFO that mails on adds one) before it is taken for a loop: the
/// same limit as for a chain of FIFOs (`MAX_HOPS` of the Worker).
pub const MAX_MAIL_HOPS: u32 = 16;

/// `<id@domain>` ids in a header's text, without the angle brackets.
pub fn message_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let Some(len) = rest[start + 1..].find('>') else {
            break;
        };
        let id = rest[start + 1..start + 1 + len].trim();
        if !id.is_empty() {
            ids.push(id.to_string());
        }
        rest = &rest[start + 2 + len..];
    }
    if ids.is_empty() && !text.contains('<') {
        // Some senders leave the brackets out of a lone id.
        let bare = text.trim();
        if !bare.is_empty() && !bare.contains(char::is_whitespace) {
            ids.push(bare.to_string());
        }
    }
    ids
}

/// The domain of an address or a Message-ID (`local@domain`), lower-cased.
pub fn domain_of(id: &str) -> Option<String> {
    id.rsplit_once('@').map(|(_, d)| d.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_with_and_without_brackets() {
        assert_eq!(message_ids("<a@x> <b@y>"), vec!["a@x", "b@y"]);
        assert_eq!(message_ids(" a@x "), vec!["a@x"]);
        assert_eq!(message_ids("<a@x"), Vec::<String>::new());
        assert_eq!(message_ids(""), Vec::<String>::new());
        assert_eq!(
            domain_of("r1.2@Mkfifo.Example"),
            Some("mkfifo.example".into())
        );
    }
}
