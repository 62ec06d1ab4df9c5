//! The session cookie, `mkfifo_session`: read from `Cookie:`, written with `Set-Cookie:`.

/// The cookie's name.
pub const NAME: &str = "mkfifo_session";

/// The value of cookie [`NAME`] in a `Cookie:` header (RFC 6265 section 5.4), if any.
pub fn session(header: &str) -> Option<&str> {
    header.split(';').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name.trim() == NAME).then(|| value.trim().trim_matches('"'))
    })
}

/// `Set-Cookie:` for a session that lasts `max_age_s` seconds.
pub fn set(value: &str, max_age_s: i64) -> String {
    format!("{NAME}={value}; Max-Age={max_age_s}; Path=/; HttpOnly; Secure; SameSite=Lax")
}

/// `Set-Cookie:` that ends the session in the browser.
pub fn clear() -> String {
    set("", 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_session_among_others() {
        assert_eq!(session("mkfifo_session=abc.def"), Some("abc.def"));
        assert_eq!(session("a=1; mkfifo_session=x.y; b=2"), Some("x.y"));
        assert_eq!(session("a=1;mkfifo_session=\"x.y\""), Some("x.y"));
        assert_eq!(session("xmkfifo_session=1; other=2"), None);
        assert_eq!(session(""), None);
        assert_eq!(session("mkfifo_session"), None);
    }

    #[test]
    fn writes_with_the_attributes() {
        let c = set("v", 60);
        for part in [
            "mkfifo_session=v",
            "Max-Age=60",
            "Path=/",
            "HttpOnly",
            "Secure",
            "SameSite=Lax",
        ] {
            assert!(c.split("; ").any(|p| p == part), "{part} in {c}");
        }
        assert!(clear().starts_with("mkfifo_session=; Max-Age=0;"));
    }
}
