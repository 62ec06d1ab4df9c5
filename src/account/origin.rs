//! The same-origin rule for writes authorized by the session cookie.
//!
//! A browser sends the cookie with any request to the site, also from a form or script of
//! another site (SameSite=Lax still lets a top-level POST of a form through in some
//! browsers' compatibility modes, and a same-site sibling is not same-origin). So a write
//! with the cookie must come from the site itself: `Sec-Fetch-Site: same-origin` (or `none`,
//! typed by the person), else an `Origin` equal to the site's. A request with neither is
//! not from a browser that could be tricked (every browser in use sends `Origin` on a POST),
//! and is let through, as a command-line client with the cookie would be.

/// Why a write with the cookie is refused, or `None` when it may go on. `site` is the
/// origin the request came to (`https://HOST`).
pub fn cross_site(site: &str, origin: Option<&str>, fetch_site: Option<&str>) -> Option<String> {
    match fetch_site.map(str::trim) {
        Some("same-origin" | "none") => return None,
        Some(other) => {
            return Some(format!(
                "a {other} request cannot change anything here (Sec-Fetch-Site: {other})"
            ))
        }
        None => {}
    }
    match origin.map(str::trim) {
        None => None,
        Some(o) if o.eq_ignore_ascii_case(site) => None,
        Some(o) => Some(format!(
            "a request from {} cannot change anything here",
            o.chars().filter(|c| !c.is_control()).collect::<String>()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SITE: &str = "https://mkfifo.example";

    #[test]
    fn same_origin_passes() {
        assert_eq!(cross_site(SITE, Some(SITE), None), None);
        assert_eq!(cross_site(SITE, Some("HTTPS://MKFIFO.EXAMPLE"), None), None);
        assert_eq!(cross_site(SITE, None, Some("same-origin")), None);
        assert_eq!(
            cross_site(SITE, Some("https://evil.example"), Some("none")),
            None
        );
        assert_eq!(cross_site(SITE, None, None), None);
    }

    #[test]
    fn other_origins_are_refused() {
        assert!(cross_site(SITE, Some("https://evil.example"), None).is_some());
        assert!(cross_site(SITE, Some("null"), None).is_some());
        assert!(cross_site(SITE, Some("http://mkfifo.example"), None).is_some());
        assert!(cross_site(SITE, Some("https://mkfifo.example:8443"), None).is_some());
        assert!(cross_site(SITE, Some(SITE), Some("cross-site")).is_some());
        assert!(cross_site(SITE, Some(SITE), Some("same-site")).is_some());
    }
}
