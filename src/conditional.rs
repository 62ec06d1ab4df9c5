//! Conditional GET (RFC 9110, section 13): whether an answer with an `ETag` or a
//! `Last-Modified` may be answered `304 Not Modified` to a request with `If-None-Match`
//! or `If-Modified-Since`, and the strong entity tag a FIFO gives its answers when its
//! envelope says `ETag: auto`.

use sha2::{Digest, Sha256};

/// The envelope header value that asks for a computed entity tag.
pub const AUTO: &str = "auto";

/// The header fields a `304` keeps of the answer it stands for (RFC 9110, 15.4.5).
pub const KEPT_BY_304: [&str; 7] = [
    "cache-control",
    "content-location",
    "date",
    "etag",
    "expires",
    "last-modified",
    "vary",
];

/// A strong entity tag of `body`: the first 128 bits of its SHA-256, in hex.
pub fn etag_of(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// Replaces an `ETag: auto` of `headers` by the tag of `body`; an answer whose body is not
/// known whole (it streams) loses the header instead.
pub fn resolve_auto_etag(headers: &mut Vec<(String, String)>, body: Option<&[u8]>) {
    let auto = |(k, v): &(String, String)| {
        k.eq_ignore_ascii_case("etag") && v.trim().eq_ignore_ascii_case(AUTO)
    };
    if !headers.iter().any(auto) {
        return;
    }
    headers.retain(|h| !auto(h));
    if let Some(body) = body {
        headers.push(("ETag".into(), etag_of(body)));
    }
}

/// What a request asks of a conditional GET.
#[derive(Debug, Default, Clone)]
pub struct Conditions {
    pub if_none_match: Option<String>,
    pub if_modified_since: Option<String>,
}

impl Conditions {
    /// Whether an answer `status` with `etag` and `last_modified`, to a `method` request
    /// with these conditions, is to be a `304`. Only a `200` to a GET or a HEAD can be.
    pub fn not_modified(
        &self,
        method: &str,
        status: u16,
        etag: Option<&str>,
        last_modified: Option<&str>,
    ) -> bool {
        if status != 200 || !(method == "GET" || method == "HEAD") {
            return false;
        }
        // If-None-Match wins; If-Modified-Since counts only without it (13.2.2).
        if let Some(list) = &self.if_none_match {
            return etag.is_some_and(|tag| none_match_fails(list, tag));
        }
        match (&self.if_modified_since, last_modified) {
            (Some(since), Some(modified)) => match (http_date(since), http_date(modified)) {
                (Some(since), Some(modified)) => modified <= since,
                _ => false,
            },
            _ => false,
        }
    }
}

/// Whether `If-None-Match: list` names `tag` (by the weak comparison: `W/` is ignored),
/// or is `*`.
fn none_match_fails(list: &str, tag: &str) -> bool {
    let opaque = |t: &str| {
        let t = t.trim();
        t.strip_prefix("W/").unwrap_or(t).to_string()
    };
    let tag = opaque(tag);
    list.trim() == "*" || list.split(',').any(|t| opaque(t) == tag)
}

/// Seconds since 1970 of an HTTP-date, in any of its three forms (RFC 9110, 5.6.7):
/// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`,
/// `Sun Nov  6 08:49:37 1994`.
pub fn http_date(text: &str) -> Option<i64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (day, month, year, time) = match words.as_slice() {
        [_, day, month, year, time, "GMT"] => (*day, *month, year.parse::<i64>().ok()?, *time),
        [_, dmy, time, "GMT"] => {
            let mut parts = dmy.split('-');
            let (day, month, yy) = (parts.next()?, parts.next()?, parts.next()?);
            let yy: i64 = yy.parse().ok()?;
            // Two-digit years: those more than 50 years ahead are in the past (5.6.7).
            let year = if yy >= 70 { 1900 + yy } else { 2000 + yy };
            (day, month, year, *time)
        }
        [_, month, day, time, year] => (*day, *month, year.parse::<i64>().ok()?, *time),
        _ => return None,
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let mut hms = time.split(':').map(|n| n.parse::<i64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if hms.next().is_some() || h > 23 || m > 59 || s > 60 || !(1..=31).contains(&day) {
        return None;
    }
    let days = crate::calendar::days_from_civil(year, month, day)?;
    if crate::calendar::civil_from_days(days) != (year, month as u32, day as u32) {
        return None; // 31 Feb
    }
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asks(inm: Option<&str>, ims: Option<&str>) -> Conditions {
        Conditions {
            if_none_match: inm.map(str::to_string),
            if_modified_since: ims.map(str::to_string),
        }
    }

    #[test]
    fn the_three_date_forms_are_one_time() {
        let t = http_date("Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(t, Some(784111777));
        assert_eq!(http_date("Sunday, 06-Nov-94 08:49:37 GMT"), t);
        assert_eq!(http_date("Sun Nov  6 08:49:37 1994"), t);
        assert_eq!(http_date("Sun, 06 Nov 1994 08:49:37 UTC"), None);
        assert_eq!(http_date("Sun, 31 Feb 1994 08:49:37 GMT"), None);
        assert_eq!(http_date("yesterday"), None);
        assert_eq!(http_date(""), None);
    }

    #[test]
    fn if_none_match_compares_weakly_and_wins() {
        let tag = Some("\"abc\"");
        assert!(asks(Some("\"abc\""), None).not_modified("GET", 200, tag, None));
        assert!(asks(Some("W/\"abc\""), None).not_modified("HEAD", 200, tag, None));
        assert!(asks(Some("\"x\", \"abc\""), None).not_modified("GET", 200, tag, None));
        assert!(asks(Some("*"), None).not_modified("GET", 200, tag, None));
        assert!(!asks(Some("\"abd\""), None).not_modified("GET", 200, tag, None));
        assert!(!asks(Some("\"abc\""), None).not_modified("POST", 200, tag, None));
        assert!(!asks(Some("\"abc\""), None).not_modified("GET", 201, tag, None));
        assert!(!asks(Some("\"abc\""), None).not_modified("GET", 200, None, None));
        // An If-None-Match that fails is not rescued by If-Modified-Since.
        let old = "Sun, 06 Nov 1994 08:49:37 GMT";
        let c = asks(Some("\"other\""), Some("Mon, 07 Nov 1994 08:49:37 GMT"));
        assert!(!c.not_modified("GET", 200, tag, Some(old)));
    }

    #[test]
    fn if_modified_since_compares_times() {
        let modified = Some("Sun, 06 Nov 1994 08:49:37 GMT");
        let at = |since| asks(None, Some(since)).not_modified("GET", 200, None, modified);
        assert!(at("Sun, 06 Nov 1994 08:49:37 GMT"));
        assert!(at("Mon, 07 Nov 1994 00:00:00 GMT"));
        assert!(!at("Sun, 06 Nov 1994 08:49:36 GMT"));
        assert!(!at("not a date"));
        assert!(!asks(None, None).not_modified("GET", 200, Some("\"a\""), modified));
    }

    #[test]
    fn auto_etags_are_the_hash_of_a_whole_body() {
        let mut h = vec![("ETag".to_string(), " Auto ".to_string())];
        resolve_auto_etag(&mut h, Some(b"hello"));
        assert_eq!(h, vec![("ETag".into(), etag_of(b"hello"))]);
        assert_eq!(etag_of(b"hello"), "\"2cf24dba5fb0a30e26e83b2ac5b9e29e\"");
        let mut streamed = vec![("etag".to_string(), "auto".to_string())];
        resolve_auto_etag(&mut streamed, None);
        assert!(streamed.is_empty());
        let mut own = vec![("ETag".to_string(), "\"v2\"".to_string())];
        resolve_auto_etag(&mut own, None);
        assert_eq!(own, vec![("ETag".into(), "\"v2\"".into())]);
    }
}
