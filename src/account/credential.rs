//! Credentials: sign-in links, session cookies and API tokens.
//!
//! Each names the `Account` object it belongs to and carries a secret:
//!
//! | kind | form |
//! |---|---|
//! | sign-in link token | `ID.SECRET` (in `/_/signin/ID.SECRET`) |
//! | session (the `mkfifo_session` cookie) | `ID.SECRET` |
//! | API token | `mkf_ID.SECRET` |
//!
//! `ID` is the object's id (64 lower-case hex digits), `SECRET` 32 random bytes in
//! unpadded base64url (43 characters). The object stores [`Credential::hash`] only, so
//! that its storage, if read, signs no one in.

use sha2::{Digest, Sha256};

/// The prefix of API tokens: it tells them from the operator's token, and lets secret
/// scanners find one that was pasted somewhere.
pub const TOKEN_PREFIX: &str = "mkf_";

/// The random bytes of a secret.
pub const SECRET_BYTES: usize = 32;

const ID_LEN: usize = 64;

/// A credential taken apart: the account it names and its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    /// The `Account` object's id, as hex.
    pub account: String,
    pub secret: String,
}

impl Credential {
    /// A new credential for `account` from `random` bytes.
    pub fn new(account: &str, random: &[u8; SECRET_BYTES]) -> Self {
        Credential {
            account: account.to_string(),
            secret: data_encoding::BASE64URL_NOPAD.encode(random),
        }
    }

    /// `ID.SECRET`, for a link or a cookie.
    pub fn encode(&self) -> String {
        format!("{}.{}", self.account, self.secret)
    }

    /// `mkf_ID.SECRET`, for an API token.
    pub fn encode_token(&self) -> String {
        format!("{TOKEN_PREFIX}{}", self.encode())
    }

    /// `ID.SECRET` taken apart; `None` when it is not of that form.
    pub fn parse(text: &str) -> Option<Self> {
        let (account, secret) = text.split_once('.')?;
        let hex = |s: &str| {
            s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        let b64url = |s: &str| {
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        };
        let secret_len = data_encoding::BASE64URL_NOPAD.encode_len(SECRET_BYTES);
        (account.len() == ID_LEN && hex(account) && secret.len() == secret_len && b64url(secret))
            .then(|| Credential {
                account: account.to_string(),
                secret: secret.to_string(),
            })
    }

    /// An API token taken apart.
    pub fn parse_token(text: &str) -> Option<Self> {
        Self::parse(text.strip_prefix(TOKEN_PREFIX)?)
    }

    /// What the object stores: the secret's SHA-256 in hex.
    pub fn hash(&self) -> String {
        hash_secret(&self.secret)
    }
}

/// The SHA-256 of a secret, in hex.
pub fn hash_secret(secret: &str) -> String {
    data_encoding::HEXLOWER.encode(&Sha256::digest(secret.as_bytes()))
}

/// Whether two strings are equal, in a time that does not depend on where they differ.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn round_trips() {
        let c = Credential::new(ID, &[7; SECRET_BYTES]);
        assert_eq!(c.secret.len(), 43);
        assert_eq!(Credential::parse(&c.encode()), Some(c.clone()));
        assert_eq!(Credential::parse_token(&c.encode_token()), Some(c.clone()));
        assert!(c.encode_token().starts_with("mkf_"));
        // A token is not a cookie, nor the other way round.
        assert_eq!(Credential::parse(&c.encode_token()), None);
        assert_eq!(Credential::parse_token(&c.encode()), None);
    }

    #[test]
    fn forged_forms_are_refused() {
        let c = Credential::new(ID, &[1; SECRET_BYTES]).encode();
        let bad = [
            String::new(),
            ".".into(),
            c[1..].to_string(),
            format!("{c}x"),
            c.replace('.', ""),
            c.to_uppercase(),
            format!("{}.{}", &ID[..63], &c[65..]),
            format!("{ID}.{}", "=".repeat(43)),
            format!("{ID}.{}/", &c[66..]),
        ];
        for b in bad {
            assert_eq!(Credential::parse(&b), None, "{b}");
        }
    }

    #[test]
    fn hashes_are_of_the_secret() {
        let a = Credential::new(ID, &[1; SECRET_BYTES]);
        let b = Credential::new(ID, &[2; SECRET_BYTES]);
        assert_ne!(a.hash(), b.hash());
        assert_eq!(a.hash().len(), 64);
        assert!(!a.hash().contains(&a.secret));
        assert_eq!(a.secret, "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE");
        // From `printf %s AQEB...AQE | sha256sum`.
        assert_eq!(
            a.hash(),
            "56d5fa7333f6d747db42c239407e5da4c32f4c79f35d092b134fd35a402d9c5c"
        );
    }

    #[test]
    fn same_compares() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
    }
}
