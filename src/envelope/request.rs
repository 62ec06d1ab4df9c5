//! One Request, whether it came by HTTP, by mail, from another FIFO or from a script that
//! ran the FIFO as a command; and the CGI variables a script sees of it.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::mail::inbound::Mail;

/// Where a Request came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    #[default]
    Http,
    Email,
    /// A script ran the FIFO as a command (`NAME ARGS`).
    Command,
    /// Another FIFO's envelope sent it here (`To: NAME`, `Reply-To: NAME`, `Errors-To: NAME`).
    Fifo,
    /// The envelope's `Schedule:` ran it (`REQUEST_METHOD=SCHEDULE`, no body).
    Schedule,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Http => "http",
            Source::Email => "email",
            Source::Command => "command",
            Source::Fifo => "fifo",
            Source::Schedule => "schedule",
        }
    }

    pub fn parse(s: &str) -> Source {
        match s {
            "email" => Source::Email,
            "command" => Source::Command,
            "fifo" => Source::Fifo,
            "schedule" => Source::Schedule,
            _ => Source::Http,
        }
    }
}

/// A Request written into a FIFO.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incoming {
    pub fifo: String,
    pub request_id: String,
    pub source: Source,
    pub method: String,
    /// The path after `/NAME` (`/a/b` for `/NAME/a/b`), empty for `/NAME`.
    pub path_info: String,
    /// The raw query string, without `?`.
    pub query: String,
    pub headers: Vec<(String, String)>,
    #[serde(skip)]
    pub body: Vec<u8>,
    /// The body streams into the script instead of being in `body`.
    #[serde(skip)]
    pub body_streams: bool,
    pub remote_addr: String,
    /// `$1...` when the FIFO runs as a command.
    #[serde(default, with = "base64_list")]
    pub args: Vec<Vec<u8>>,
    /// How many FIFOs the Request has passed through before this one.
    pub hops: u32,
    /// For mail: the envelope sender and recipient.
    #[serde(default)]
    pub mail_from: String,
    #[serde(default)]
    pub mail_to: String,
    /// For mail: the message as read (from `body`, the raw message), once it has been.
    #[serde(skip)]
    pub mail: Option<Rc<Mail>>,
    /// The id of the logged Request this one sends again (`REPLAY_OF`), if it is a replay.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub replay_of: String,
}

impl Incoming {
    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The Request as its envelope runs over it: for mail, the message's text is the body
    /// (see [`Mail`]); any other Request as it is.
    pub fn as_run(&self) -> std::borrow::Cow<'_, Incoming> {
        let Some(mail) = &self.mail else {
            return std::borrow::Cow::Borrowed(self);
        };
        std::borrow::Cow::Owned(Incoming {
            fifo: self.fifo.clone(),
            request_id: self.request_id.clone(),
            source: self.source,
            method: self.method.clone(),
            headers: vec![("Content-Type".into(), mail.content_type.clone())],
            body: mail.stdin.clone(),
            args: self.args.clone(),
            hops: self.hops,
            mail_from: self.mail_from.clone(),
            mail_to: self.mail_to.clone(),
            mail: Some(mail.clone()),
            ..Incoming::default()
        })
    }

    /// The CGI variables of the Request (RFC 3875), `HTTP_*` for each header; for mail,
    /// those that make sense for it (`REQUEST_METHOD=MAIL`, `CONTENT_TYPE` and
    /// `CONTENT_LENGTH` of the text) and the message's own ([`Mail::vars`]).
    pub fn cgi_vars(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        if let Some(mail) = &self.mail {
            let mut vars: Vec<(Vec<u8>, Vec<u8>)> = Vec::with_capacity(8 + mail.vars.len());
            let mut set =
                |k: &str, v: &str| vars.push((k.as_bytes().to_vec(), v.as_bytes().to_vec()));
            set("REQUEST_METHOD", "MAIL");
            set("CONTENT_TYPE", &mail.content_type);
            set("CONTENT_LENGTH", &mail.stdin.len().to_string());
            set("REQUEST_ID", &self.request_id);
            set("FIFO_NAME", &self.fifo);
            set("REQUEST_SOURCE", self.source.as_str());
            for (k, v) in &mail.vars {
                set(k, v);
            }
            return vars;
        }
        let mut vars: Vec<(Vec<u8>, Vec<u8>)> = Vec::with_capacity(12 + self.headers.len());
        let mut set = |k: &str, v: &str| vars.push((k.as_bytes().to_vec(), v.as_bytes().to_vec()));
        set("REQUEST_METHOD", &self.method);
        set("PATH_INFO", &self.path_info);
        set("QUERY_STRING", &self.query);
        set("CONTENT_TYPE", self.header("content-type").unwrap_or(""));
        // The caller's Content-Length when it sent one: a body that streams into the
        // script is not held, so its length is known only from the header, and a chunked
        // one has none (empty, not 0: a script must not take it for an empty body).
        let length = match self.header("content-length") {
            Some(told) => told.to_string(),
            None if self.body_streams => String::new(),
            None => self.body.len().to_string(),
        };
        set("CONTENT_LENGTH", &length);
        set("REMOTE_ADDR", &self.remote_addr);
        set("REQUEST_ID", &self.request_id);
        set("FIFO_NAME", &self.fifo);
        set("REQUEST_SOURCE", self.source.as_str());
        if !self.replay_of.is_empty() {
            set("REPLAY_OF", &self.replay_of);
        }
        if self.source == Source::Email {
            set("FROM", &self.mail_from);
            set("TO", &self.mail_to);
        }
        for (name, value) in &self.headers {
            let lower = name.to_ascii_lowercase();
            // CGI passes these as CONTENT_* already.
            if lower == "content-type" || lower == "content-length" {
                continue;
            }
            set(&format!("HTTP_{}", var_name(name)), value);
        }
        vars
    }
}

/// A header's name as a variable's: `X-GitHub-Event` is `X_GITHUB_EVENT` (in `HTTP_*`, and
/// in `MAIL_*` for mail).
pub fn var_name(header: &str) -> String {
    header
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Arguments are bytes: JSON holds them as base64 strings.
mod base64_list {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(list: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
        list.iter()
            .map(|a| data_encoding::BASE64.encode(a))
            .collect::<Vec<_>>()
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
        let list = Vec::<String>::deserialize(d)?;
        list.iter()
            .map(|a| {
                data_encoding::BASE64
                    .decode(a.as_bytes())
                    .map_err(serde::de::Error::custom)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgi_variables() {
        let req = Incoming {
            fifo: "my-movies".into(),
            request_id: "r1".into(),
            method: "POST".into(),
            path_info: "/a/b".into(),
            query: "x=1".into(),
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("X-GitHub-Event".into(), "push".into()),
                ("user-agent".into(), "curl/8".into()),
            ],
            body: b"{}".to_vec(),
            remote_addr: "192.0.2.1".into(),
            ..Default::default()
        };
        let vars = req.cgi_vars();
        let get = |k: &str| {
            vars.iter()
                .find(|(n, _)| n == k.as_bytes())
                .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
        };
        assert_eq!(get("REQUEST_METHOD").as_deref(), Some("POST"));
        assert_eq!(get("PATH_INFO").as_deref(), Some("/a/b"));
        assert_eq!(get("CONTENT_TYPE").as_deref(), Some("application/json"));
        assert_eq!(get("CONTENT_LENGTH").as_deref(), Some("2"));
        assert_eq!(get("HTTP_X_GITHUB_EVENT").as_deref(), Some("push"));
        assert_eq!(get("HTTP_USER_AGENT").as_deref(), Some("curl/8"));
        assert_eq!(get("HTTP_CONTENT_TYPE"), None);
        assert_eq!(get("FROM"), None);
    }

    #[test]
    fn serializes_args_as_base64() {
        let req = Incoming {
            args: vec![vec![0, 255], b"a b".to_vec()],
            ..Default::default()
        };
        let json = serde_json::to_string(&req).unwrap();
        let back: Incoming = serde_json::from_str(&json).unwrap();
        assert_eq!(back.args, req.args);
    }
}
