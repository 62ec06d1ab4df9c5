//! Email addresses as account names.
//!
//! An account is named by its address in lower case: `Ada@Example.COM` and
//! `ada@example.com` are one account. (RFC 5321 lets the local part be case-sensitive;
//! no mail system in use treats it so, and two accounts for one mailbox would be worse.)
//! Only the plain `local@domain` form is taken: no display names, comments or quoted
//! local parts, which a sign-in form never needs.

/// The longest address (RFC 5321: a path of 256 octets less the angle brackets).
pub const MAX_LEN: usize = 254;

/// The address as an account's name, or why it is not one.
pub fn normalize(input: &str) -> Result<String, String> {
    let address = input.trim().to_lowercase();
    if address.is_empty() {
        return Err("an email address is needed".into());
    }
    if address.len() > MAX_LEN {
        return Err(format!("an email address has at most {MAX_LEN} characters"));
    }
    let Some((local, domain)) = address.rsplit_once('@') else {
        return Err(format!(
            "'{}' is not an email address: it has no @",
            shown(&address)
        ));
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local.chars().all(|c| {
            c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c) || !c.is_ascii()
        });
    if !local_ok {
        return Err(format!(
            "'{}' is not an email address: the part before @ is not a mailbox name",
            shown(&address)
        ));
    }
    let labels_ok = domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || !c.is_ascii())
        });
    if !labels_ok {
        return Err(format!(
            "'{}' is not an email address: the part after @ is not a domain",
            shown(&address)
        ));
    }
    Ok(address)
}

/// An address in a message, without control characters.
fn shown(address: &str) -> String {
    address.chars().filter(|c| !c.is_control()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_addresses() {
        for (given, want) in [
            ("ada@example.com", "ada@example.com"),
            (
                "  Ada.Lovelace+fifo@Example.COM\n",
                "ada.lovelace+fifo@example.com",
            ),
            ("o'brien@mail.example.org", "o'brien@mail.example.org"),
            ("jörg@bücher.example", "jörg@bücher.example"),
            ("x@a-b.co", "x@a-b.co"),
        ] {
            assert_eq!(normalize(given).as_deref(), Ok(want), "{given}");
        }
    }

    #[test]
    fn bad_addresses() {
        for bad in [
            "",
            "ada",
            "@example.com",
            "ada@",
            "ada@localhost",
            "ada@exa mple.com",
            "a da@example.com",
            ".ada@example.com",
            "ada.@example.com",
            "a..da@example.com",
            "ada@-example.com",
            "ada@example..com",
            "ada@example.com\r\nBcc: eve@example.com",
            "\"ada\"@example.com",
            "Ada <ada@example.com>",
        ] {
            assert!(normalize(bad).is_err(), "{bad:?}");
        }
        let long = format!("{}@example.com", "a".repeat(65));
        assert!(normalize(&long).is_err());
        let longer = format!("a@{}.com", "b.".repeat(130));
        assert!(normalize(&longer).is_err());
    }

    #[test]
    fn messages_hold_no_control_characters() {
        let e = normalize("ada\u{7}x").unwrap_err();
        assert!(!e.chars().any(char::is_control), "{e:?}");
    }
}
