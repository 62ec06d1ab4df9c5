//! Routing headers: where a Request's result, its destination's reply and its failures go.
//!
//! `To:`, `Reply-To:` and `Errors-To:` hold comma-separated destinations. The list is split
//! before its parts are expanded, so a value from the caller (`To: https://x/?q=$title`)
//! can never add a destination of its own.

use crate::names::is_fifo_name;

/// One destination.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "target", rename_all = "lowercase")]
pub enum Destination {
    /// `-`: the caller (CGI style for `To:`, streamed back for `Reply-To:`).
    Caller,
    /// An HTTP or HTTPS URL.
    Url(String),
    /// An email address.
    Email(String),
    /// Another FIFO, by name.
    Fifo(String),
}

impl Destination {
    /// Reads one expanded destination; `Err` says what is wrong with it.
    pub fn parse(text: &str) -> Result<Destination, String> {
        let t = text.trim();
        if t == "-" {
            return Ok(Destination::Caller);
        }
        let lower = t.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            if t.bytes()
                .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
            {
                return Err(format!(
                    "'{t}' is not a URL: it has spaces or control characters"
                ));
            }
            return Ok(Destination::Url(t.to_string()));
        }
        if let Some(addr) = email_address(t) {
            return Ok(Destination::Email(addr));
        }
        if is_fifo_name(t) {
            return Ok(Destination::Fifo(t.to_string()));
        }
        if t.is_empty() {
            return Err("an empty destination".into());
        }
        Err(format!(
            "'{t}' is not a destination: use a URL, an email address, a FIFO name or -"
        ))
    }

    /// The destination as written in a report or the log.
    pub fn describe(&self) -> String {
        match self {
            Destination::Caller => "-".into(),
            Destination::Url(u) => u.clone(),
            Destination::Email(a) => a.clone(),
            Destination::Fifo(f) => f.clone(),
        }
    }
}

/// `local@domain` or `Name <local@domain>`: the address, or `None`.
fn email_address(t: &str) -> Option<String> {
    let addr = match (t.find('<'), t.rfind('>')) {
        (Some(a), Some(b)) if a < b => &t[a + 1..b],
        _ => t,
    };
    let (local, domain) = addr.trim().split_once('@')?;
    let ok = |s: &str| {
        !s.is_empty()
            && !s
                .bytes()
                .any(|b| b.is_ascii_whitespace() || b == b'<' || b == b'>' || b == b',')
    };
    (ok(local) && ok(domain) && !domain.contains('@')).then(|| addr.trim().to_string())
}

/// Splits a header's template at the commas that separate destinations: not inside
/// `$(...)`, `${...}`, backquotes or quotes.
pub fn split_list(template: &str) -> Vec<&str> {
    let b = template.as_bytes();
    let mut parts = Vec::new();
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        match (quote, c) {
            (_, b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"' | b'`') if depth > 0 || c == b'`' => quote = Some(c),
            (None, b'$') if matches!(b.get(i + 1), Some(b'(' | b'{')) => {
                depth += 1;
                i += 1;
            }
            (None, b'(' | b'{') if depth > 0 => depth += 1,
            (None, b')' | b'}') if depth > 0 => depth -= 1,
            (None, b',') if depth == 0 => {
                parts.push(&template[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&template[start.min(template.len())..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Headers that describe one connection, never forwarded (RFC 9110 section 7.6.1), plus
/// the ones the runtime sets itself.
pub fn is_hop_by_hop(name: &str) -> bool {
    const HOP: &[&str] = &[
        "connection",
        "content-length",
        "host",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    ];
    let lower = name.to_ascii_lowercase();
    HOP.contains(&lower.as_str())
}

/// Headers of the envelope that steer mkfifo instead of going out with the request.
pub fn is_routing(name: &str) -> bool {
    const ROUTING: &[&str] = &[
        "errors-to",
        "method",
        "reply-to",
        "schedule",
        "status",
        "to",
    ];
    let lower = name.to_ascii_lowercase();
    ROUTING.contains(&lower.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations() {
        assert_eq!(Destination::parse(" - "), Ok(Destination::Caller));
        assert_eq!(
            Destination::parse("https://x.test/a?b=1"),
            Ok(Destination::Url("https://x.test/a?b=1".into()))
        );
        assert_eq!(
            Destination::parse("me@example.com"),
            Ok(Destination::Email("me@example.com".into()))
        );
        assert_eq!(
            Destination::parse("Me <me@example.com>"),
            Ok(Destination::Email("me@example.com".into()))
        );
        assert_eq!(
            Destination::parse("my-movies"),
            Ok(Destination::Fifo("my-movies".into()))
        );
        assert!(Destination::parse("https://x.test/a b").is_err());
        assert!(Destination::parse("Not_A_Name").is_err());
        assert!(Destination::parse("").is_err());
    }

    #[test]
    fn splitting_keeps_expansions_whole() {
        assert_eq!(split_list("a, b ,c"), vec!["a", "b", "c"]);
        assert_eq!(
            split_list("https://x/$(echo a,b), me@x.test"),
            vec!["https://x/$(echo a,b)", "me@x.test"]
        );
        assert_eq!(split_list("${X:-a,b},c"), vec!["${X:-a,b}", "c"]);
        assert_eq!(split_list("`echo a,b`,c"), vec!["`echo a,b`", "c"]);
        assert_eq!(
            split_list("$(printf '%s' ')'),c"),
            vec!["$(printf '%s' ')')", "c"]
        );
        assert_eq!(split_list(""), Vec::<&str>::new());
    }

    #[test]
    fn header_kinds() {
        assert!(is_hop_by_hop("Transfer-Encoding"));
        assert!(!is_hop_by_hop("Authorization"));
        assert!(is_routing("Reply-To"));
        assert!(!is_routing("X-Signature"));
    }
}
