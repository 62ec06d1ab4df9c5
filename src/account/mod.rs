//! Accounts: people sign in with an email address and own FIFOs.
//!
//! Everything here is plain Rust, tested natively: the credentials and their hashes
//! ([`credential`]), email addresses ([`address`]), the session cookie ([`cookie`]), the
//! same-origin rule for writes ([`origin`]), the sign-in message ([`letter`]), where a
//! person goes after signing in ([`next`]) and the
//! HTML pages of the site ([`pages`]). The `Account` Durable Object that keeps an
//! account's sessions, tokens and FIFOs is in `worker::account`.
//!
//! The model, in short:
//! - One `Account` object per address, found by the address. Every credential names the
//!   object it belongs to (its id, 64 hex digits) and carries a secret of 256 random bits;
//!   the object keeps only the secret's SHA-256.
//! - A sign-in link is good once, for [`SIGNIN_TTL_MS`]; a session for [`SESSION_TTL_MS`]
//!   after its last use; an API token until it is revoked.

pub mod address;
pub mod cookie;
pub mod credential;
pub mod letter;
pub mod next;
pub mod origin;
pub mod pages;

/// How long a sign-in link stays good: 15 minutes.
pub const SIGNIN_TTL_MS: i64 = 15 * 60 * 1000;

/// How long a session lasts after its last use: 30 days.
pub const SESSION_TTL_MS: i64 = 30 * 24 * 3600 * 1000;

/// A session's expiry is moved forward at most this often (a write per use is too many).
pub const SESSION_RENEW_EVERY_MS: i64 = 3600 * 1000;

/// Sign-in links sent to one address within [`SIGNIN_WINDOW_MS`], at most.
pub const SIGNINS_PER_ADDRESS: usize = 5;
pub const SIGNIN_WINDOW_MS: i64 = 3600 * 1000;

/// How many API tokens an account may hold.
pub const MAX_TOKENS: usize = 100;

/// The seconds a client must wait before the next sign-in link to an address, given when
/// the links in the window were sent (any order); `None` when one may be sent now.
pub fn signin_wait(sent_at: &[i64], now: i64) -> Option<i64> {
    let mut recent: Vec<i64> = sent_at
        .iter()
        .copied()
        .filter(|&t| t > now - SIGNIN_WINDOW_MS)
        .collect();
    if recent.len() < SIGNINS_PER_ADDRESS {
        return None;
    }
    recent.sort_unstable();
    // The wait ends when enough of the oldest have left the window.
    let frees_at = recent[recent.len() - SIGNINS_PER_ADDRESS] + SIGNIN_WINDOW_MS;
    Some(((frees_at - now) + 999) / 1000)
}

/// Whether a token's name is acceptable: 1 to 100 printable characters.
pub fn token_name_error(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some("a token needs a name".into());
    }
    if name.chars().count() > 100 {
        return Some("a token's name has at most 100 characters".into());
    }
    if name.chars().any(char::is_control) {
        return Some("a token's name cannot hold control characters".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signin_window() {
        let now = 10 * SIGNIN_WINDOW_MS;
        assert_eq!(signin_wait(&[], now), None);
        let four: Vec<i64> = (0..4).map(|i| now - i * 1000).collect();
        assert_eq!(signin_wait(&four, now), None);
        // Five within the hour: wait until the oldest is an hour old.
        let five: Vec<i64> = (0..5).map(|i| now - i * 60_000).collect();
        assert_eq!(signin_wait(&five, now), Some(3600 - 4 * 60));
        // Old ones do not count.
        let old: Vec<i64> = (0..9).map(|i| now - SIGNIN_WINDOW_MS - i).collect();
        assert_eq!(signin_wait(&old, now), None);
        // With seven recent, the wait is for the third-oldest to leave.
        let seven: Vec<i64> = (0..7).map(|i| now - i * 60_000).collect();
        assert_eq!(signin_wait(&seven, now), Some(3600 - 4 * 60));
    }

    #[test]
    fn token_names() {
        assert_eq!(token_name_error("ci deploys"), None);
        assert!(token_name_error("").is_some());
        assert!(token_name_error("  ").is_some());
        assert!(token_name_error("a\nb").is_some());
        assert!(token_name_error(&"x".repeat(101)).is_some());
        assert_eq!(token_name_error(&"é".repeat(100)), None);
    }
}
