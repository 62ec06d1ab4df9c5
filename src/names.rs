//! FIFO names: what a FIFO may be called.
//!
//! A name is a DNS label in lower case: 1 to 63 of `a-z`, `0-9` and `-`, starting and
//! ending with a letter or digit. It is the first path segment (`/NAME/...`), the local
//! part of the mail address (`NAME@DOMAIN`) and, in scripts, a command; so names that are
//! already commands, shell words or parts of the site are reserved.

/// The longest name, as for a DNS label.
pub const MAX_LEN: usize = 63;

/// Names used by the site itself, by mail conventions (RFC 2142) or by the shell.
const RESERVED: &[&str] = &[
    "abuse",
    "admin",
    "api",
    "assets",
    "attachment",
    "bin",
    "break",
    "case",
    "command",
    "continue",
    "do",
    "docs",
    "done",
    "editor",
    "elif",
    "else",
    "esac",
    "eval",
    "exec",
    "exit",
    "export",
    "fi",
    "for",
    "function",
    "health",
    "help",
    "hostmaster",
    "if",
    "in",
    "index",
    "local",
    "login",
    "logout",
    "mail",
    "mailer-daemon",
    "no-reply",
    "noreply",
    "postmaster",
    "read",
    "readonly",
    "return",
    "root",
    "security",
    "set",
    "sh",
    "shift",
    "signin",
    "source",
    "static",
    "stats",
    "status",
    "then",
    "time",
    "type",
    "unset",
    "until",
    "webmaster",
    "while",
    "www",
];

/// Why `name` cannot be a FIFO's name, or `None` when it can.
pub fn fifo_name_error(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a FIFO name cannot be empty".into());
    }
    if name.len() > MAX_LEN {
        return Some(format!("a FIFO name has at most {MAX_LEN} characters"));
    }
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    if !name.bytes().all(allowed) {
        return Some(format!(
            "bad FIFO name '{}': use lowercase letters, digits and '-'",
            name.escape_default()
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some(format!(
            "bad FIFO name '{name}': it cannot start or end with '-'"
        ));
    }
    if RESERVED.binary_search(&name).is_ok() || crate::builtins::lookup(name.as_bytes()).is_some() {
        return Some(format!("'{name}' is reserved"));
    }
    None
}

/// Whether `name` can be a FIFO's name.
pub fn is_fifo_name(name: &str) -> bool {
    fifo_name_error(name).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_list_is_sorted() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn good_and_bad_names() {
        for good in ["my-movies", "a", "0", "x1-2y", &"a".repeat(63)] {
            assert_eq!(fifo_name_error(good), None, "{good}");
        }
        for bad in [
            "",
            "My",
            "a_b",
            "a.b",
            "-a",
            "a-",
            "bin",
            "sh",
            "true",
            "postmaster",
            &"a".repeat(64),
            "é",
        ] {
            assert!(fifo_name_error(bad).is_some(), "{bad}");
        }
    }
}
