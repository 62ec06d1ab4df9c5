//! Outgoing mail through the `send_email` binding (`MAIL`): the messages of FIFOs and the
//! sign-in messages of accounts, built by `crate::mail::outbound`.

use worker::{EmailMessage, Env};

use crate::mail::outbound::Built;

/// The binding of `[[send_email]]` in wrangler.toml.
const BINDING: &str = "MAIL";

/// The domain of FIFO addresses (`MKFIFO_DOMAIN`).
pub fn domain(env: &Env) -> String {
    env.var("MKFIFO_DOMAIN")
        .map(|v| v.to_string())
        .unwrap_or_else(|_| "mkfifo.localhost".into())
}

/// Why a message was not sent, and whether trying again cannot help.
pub struct NotSent {
    pub why: String,
    pub lasting: bool,
}

/// Hands a built message for `to` to the binding.
pub async fn send(env: &Env, built: &Built, to: &str) -> Result<(), NotSent> {
    let binding = env.send_email(BINDING).map_err(|e| NotSent {
        why: format!("email is not configured ({e})"),
        lasting: true,
    })?;
    let message = EmailMessage::new(&built.from, to, &built.raw).map_err(|e| NotSent {
        why: String::from(e.message()),
        lasting: true,
    })?;
    binding.send(&message).await.map(|_| ()).map_err(|e| {
        let why = String::from(e.message());
        // An address the account may not send to stays refused; anything else may pass.
        let lasting = ["not verified", "not allowed", "invalid", "not permitted"]
            .iter()
            .any(|w| why.to_ascii_lowercase().contains(w));
        NotSent { why, lasting }
    })
}
