//! Where a person goes after signing in: the page they opened signed out (an editor,
//! say), carried as `next` through the sign-in form, the mailed link and its button.
//!
//! Only a path of this site is taken, never a URL: the value comes from a form and a link
//! anyone can make, and sending people on to another site from a trusted page is the open
//! redirect that phishing uses.

/// The longest `next` taken.
const MAX_LEN: usize = 512;

/// `raw` when it is a path of this site: it starts with `/` but not `//` or `/\` (both
/// name another host to a browser), and holds no backslash, space or control character
/// (a browser drops tabs and line breaks from a URL, and reads `\` as `/`, so that
/// `/\t/evil.example` would become `//evil.example`).
pub fn next_path(raw: &str) -> Option<&str> {
    let ok = raw.len() <= MAX_LEN
        && raw.starts_with('/')
        && !raw.starts_with("//")
        && raw
            .bytes()
            .all(|b| b > b' ' && b != b'\\' && b != 0x7f && b.is_ascii());
    ok.then_some(raw)
}

/// `url` with `next` added as its query (`?next=...`), when there is one.
pub fn with_next(url: &str, next: Option<&str>) -> String {
    match next {
        Some(next) => format!("{url}?next={}", encode(next)),
        None => url.to_string(),
    }
}

/// A query value: letters, digits, `-._~/` as they are, every other byte as `%XX`.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::select::form::parse_query;

    #[test]
    fn only_paths_of_the_site() {
        for good in ["/", "/_/edit/my-fifo", "/a/b?c=d&e=f#g", "/_/edit/x%2F"] {
            assert_eq!(next_path(good), Some(good), "{good}");
        }
        for bad in [
            "",
            "edit",
            "https://evil.example/",
            "//evil.example",
            "///evil.example",
            "/\\evil.example",
            "\\\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/ /x",
            "/a\\b",
            "/caf\u{e9}",
            "javascript:alert(1)",
            " /x",
        ] {
            assert_eq!(next_path(bad), None, "{bad:?}");
        }
        assert_eq!(next_path(&format!("/{}", "a".repeat(MAX_LEN))), None);
    }

    #[test]
    fn carried_in_a_query_and_read_back() {
        assert_eq!(with_next("/_/signin/t", None), "/_/signin/t");
        let next = "/_/edit/my-fifo?x=1&y=2 3#top+";
        let url = with_next("https://mkfifo.example/_/signin/t", Some(next));
        assert_eq!(
            url,
            "https://mkfifo.example/_/signin/t?next=/_/edit/my-fifo%3Fx%3D1%26y%3D2%203%23top%2B"
        );
        let query = url.split_once('?').unwrap().1;
        assert_eq!(parse_query(query), vec![("next".into(), next.into())]);
    }
}
