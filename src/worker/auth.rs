//! Who is asking: the operator (its token), an account (its session cookie or one of its
//! API tokens), or nobody. And the same-origin rule for writes made with the cookie.

use worker::{Env, Request};

use super::http::{not_signed_in, Failure};
use super::objects::{self, AccountKey};
use crate::account::credential::{same, Credential, TOKEN_PREFIX};
use crate::account::{cookie, origin};
use crate::protocol::{Access, AccountOp, Identity};

pub enum Caller {
    Operator,
    Account {
        who: Identity,
        /// The session's cookie value, when the cookie authorized the request.
        session: Option<String>,
    },
    Anonymous,
}

impl Caller {
    /// The access of this caller to FIFOs; 401 for nobody.
    pub fn access(&self) -> Result<Access, Failure> {
        match self {
            Caller::Operator => Ok(Access::Operator),
            Caller::Account { who, .. } => Ok(Access::Account(who.account.clone())),
            Caller::Anonymous => Err(unauthorized()),
        }
    }

    /// Passes the operator only: 401 for nobody, 403 for an account.
    pub fn operator(&self) -> Result<(), Failure> {
        match self {
            Caller::Operator => Ok(()),
            Caller::Account { .. } => Err(Failure::new(
                403,
                "this is the operator's route: it needs the operator token",
            )),
            Caller::Anonymous => Err(unauthorized()),
        }
    }

    /// The account of this caller; 401 for nobody, 403 for the operator, who has none.
    pub fn account(&self) -> Result<&Identity, Failure> {
        match self {
            Caller::Account { who, .. } => Ok(who),
            Caller::Operator => Err(Failure::new(
                403,
                "this is an account's route: the operator token belongs to no account",
            )),
            Caller::Anonymous => Err(unauthorized()),
        }
    }
}

pub fn unauthorized() -> Failure {
    Failure::new(401, "sign in, or send a token (Authorization: Bearer ...)")
}

/// Finds the caller of `req`. A credential that is sent but not good is 401 (nothing is
/// guessed from a bad one); a request without any is [`Caller::Anonymous`].
pub async fn caller(req: &Request, env: &Env) -> Result<Caller, Failure> {
    if let Some(given) = req.headers().get("authorization")? {
        let token = given
            .strip_prefix("Bearer ")
            .ok_or_else(unauthorized)?
            .trim();
        if token.starts_with(TOKEN_PREFIX) {
            let cred = Credential::parse_token(token).ok_or_else(not_signed_in)?;
            let who = identify(
                env,
                &cred,
                AccountOp::Token {
                    secret: cred.secret.clone(),
                },
            )
            .await?;
            return Ok(Caller::Account { who, session: None });
        }
        let expected = env
            .secret("MKFIFO_ADMIN_TOKEN")
            .map(|s| s.to_string())
            .unwrap_or_default();
        if expected.is_empty() || !same(token.as_bytes(), expected.as_bytes()) {
            return Err(not_signed_in());
        }
        return Ok(Caller::Operator);
    }
    let cookies = req.headers().get("cookie")?.unwrap_or_default();
    let Some(value) = cookie::session(&cookies).filter(|v| !v.is_empty()) else {
        return Ok(Caller::Anonymous);
    };
    let cred = Credential::parse(value).ok_or_else(not_signed_in)?;
    let who = identify(
        env,
        &cred,
        AccountOp::Session {
            secret: cred.secret.clone(),
        },
    )
    .await?;
    Ok(Caller::Account {
        who,
        session: Some(value.to_string()),
    })
}

async fn identify(env: &Env, cred: &Credential, op: AccountOp) -> Result<Identity, Failure> {
    let resp = objects::account(env, AccountKey::Id(&cred.account), &op).await?;
    objects::parsed(resp).await
}

/// The origin the request came to, `https://HOST` (`http://` locally).
pub fn site(req: &Request) -> Result<String, Failure> {
    let url = req.url()?;
    Ok(url.origin().ascii_serialization())
}

/// Refuses (403) a write that a browser could have been tricked into by another site:
/// see `crate::account::origin`. Reads, and requests with a bearer token, pass. A
/// WebSocket is checked as a write: a page of another site may open one, with the cookie.
pub fn same_origin(req: &Request) -> Result<(), Failure> {
    let read = matches!(super::method::of(req).as_str(), "GET" | "HEAD");
    if read && !is_upgrade(req)? {
        return Ok(());
    }
    let headers = req.headers();
    let problem = origin::cross_site(
        &site(req)?,
        headers.get("origin")?.as_deref(),
        headers.get("sec-fetch-site")?.as_deref(),
    );
    match problem {
        Some(why) => Err(Failure::new(403, why)),
        None => Ok(()),
    }
}

/// Whether `req` asks to become a WebSocket.
pub fn is_upgrade(req: &Request) -> Result<bool, Failure> {
    Ok(req
        .headers()
        .get("upgrade")?
        .is_some_and(|u| u.eq_ignore_ascii_case("websocket")))
}
