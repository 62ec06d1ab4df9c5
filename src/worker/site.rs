//! The site a person uses in a browser: the home page, signing in by an emailed link,
//! signing out, making a FIFO from the home page's form, and a FIFO's editor. Pages are HTML
//! (`crate::account::pages`); a failure is a page too, with its status.

use worker::{Env, Headers, Request, Response};

use super::api;
use super::auth::{self, Caller};
use super::host::now_ms;
use super::http::Failure;
use super::objects::{self, AccountKey};
use crate::account::credential::Credential;
use crate::account::next::{next_path, with_next};
use crate::account::{address, cookie, pages};
use crate::envelope::select::form::parse_query;
use crate::protocol::{AccountOp, FifoCall, FifoOp, FifoSummary};

type Answer = Result<Response, Failure>;

/// An HTML answer. Pages are personal (no-store) and never framed (a sign-in button in a
/// frame of another site could be clicked by a trick).
pub fn html(status: u16, body: String) -> Answer {
    let headers = Headers::new();
    headers.set("Content-Type", "text/html; charset=utf-8")?;
    headers.set("Cache-Control", "no-store")?;
    headers.set("X-Frame-Options", "DENY")?;
    headers.set("Content-Security-Policy", "frame-ancestors 'none'")?;
    headers.set("Referrer-Policy", "no-referrer")?;
    Ok(super::http::whole(status, headers, body.into_bytes())?)
}

/// A failure as a page.
pub fn failure_page(failure: Failure) -> Answer {
    let title = match failure.status {
        401 => "Not signed in",
        403 => "Not allowed",
        404 => "Not found",
        429 => "Too many requests",
        400..=499 => "That did not work",
        _ => "Something went wrong",
    };
    let status = failure.status;
    let mut resp = html(status, pages::message(title, &failure.message))?;
    if status == 503 {
        resp.headers_mut().set("Retry-After", "1")?;
    }
    Ok(resp)
}

/// A redirect to `/` after a form, with cookies to set.
fn home_again(cookies: &[String]) -> Answer {
    see_other("/", cookies)
}

/// A redirect to `path` (of this site) after a form, with cookies to set.
fn see_other(path: &str, cookies: &[String]) -> Answer {
    let headers = Headers::new();
    headers.set("Location", path)?;
    headers.set("Cache-Control", "no-store")?;
    for c in cookies {
        headers.append("Set-Cookie", c)?;
    }
    Ok(Response::empty()?.with_status(303).with_headers(headers))
}

/// The home page. A cookie that is no longer good shows the signed-out page and is dropped.
pub async fn home(req: &Request, env: &Env) -> Answer {
    let caller = match auth::caller(req, env).await {
        Ok(c) => c,
        Err(f) if f.status == 401 => {
            let mut resp = html(200, pages::home_signed_out(None))?;
            resp.headers_mut().append("Set-Cookie", &cookie::clear())?;
            return Ok(resp);
        }
        Err(f) => return Err(f),
    };
    match &caller {
        Caller::Account { who, .. } => {
            let fifos = api::list_fifos(env, &who.account).await?;
            html(200, pages::home_signed_in(&who.email, &fifos, now_ms()))
        }
        _ => html(200, pages::home_signed_out(None)),
    }
}

/// The fields of a form body.
async fn form(req: &mut Request) -> Result<Vec<(String, String)>, Failure> {
    let body = req.bytes().await?;
    Ok(parse_query(&String::from_utf8_lossy(&body)))
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// `POST /_/signin`: sends a link to the address of the form. The answer does not say
/// whether the address has an account.
pub async fn start_signin(mut req: Request, env: &Env) -> Answer {
    let fields = form(&mut req).await?;
    let email = address::normalize(field(&fields, "email")).map_err(|e| Failure::new(400, e))?;
    let op = AccountOp::StartSignin {
        email: email.clone(),
        site: auth::site(&req)?,
        next: next_path(field(&fields, "next")).map(str::to_string),
    };
    let mut resp = objects::account(env, AccountKey::Email(&email), &op).await?;
    let status = resp.status_code();
    if status == 202 {
        return html(200, pages::check_mail(&email));
    }
    let retry_after = resp.headers().get("Retry-After")?;
    let failure = objects::failure_of(status, &resp.bytes().await?);
    let mut page = failure_page(failure)?;
    if let Some(wait) = retry_after {
        page.headers_mut().set("Retry-After", &wait)?;
    }
    Ok(page)
}

/// Carries out `op` (made from the link's secret) on the account a sign-in link names.
/// A link of a malformed or forged form is "not valid", like one the account refuses.
async fn on_signin_link(
    env: &Env,
    token: &str,
    op: impl FnOnce(String) -> AccountOp,
) -> Result<Response, Failure> {
    let cred = Credential::parse(token).ok_or_else(not_valid)?;
    let mut resp = objects::account(env, AccountKey::Id(&cred.account), &op(cred.secret))
        .await
        .map_err(|f| if f.status == 401 { not_valid() } else { f })?;
    let status = resp.status_code();
    if status >= 400 {
        return Err(objects::failure_of(status, &resp.bytes().await?));
    }
    Ok(resp)
}

/// `GET /_/signin/TOKEN`: a button that signs in, if the link is good. Nothing changes.
/// The button's form goes on to the link's `next`.
pub async fn signin_page(req: &Request, env: &Env, token: &str) -> Answer {
    on_signin_link(env, token, |secret| AccountOp::CheckSignin { secret }).await?;
    let next = next_of(req)?;
    html(
        200,
        pages::confirm_signin(&with_next(&req.path(), next.as_deref())),
    )
}

/// The `next` of a sign-in link's query, if it is a path of this site.
fn next_of(req: &Request) -> Result<Option<String>, Failure> {
    let url = req.url()?;
    Ok(parse_query(url.query().unwrap_or(""))
        .into_iter()
        .find(|(k, _)| k == "next")
        .and_then(|(_, v)| next_path(&v).map(str::to_string)))
}

/// `POST /_/signin/TOKEN`: uses the link, sets the session cookie, goes to the link's
/// `next` (a path of this site), or home.
pub async fn finish_signin(req: &Request, env: &Env, token: &str) -> Answer {
    let next = next_of(req)?;
    let resp = on_signin_link(env, token, |secret| AccountOp::FinishSignin { secret }).await?;
    #[derive(serde::Deserialize)]
    struct Session {
        session: String,
        max_age: i64,
    }
    let session: Session = objects::parsed(resp).await?;
    see_other(
        next.as_deref().unwrap_or("/"),
        &[cookie::set(&session.session, session.max_age)],
    )
}

/// `POST /_/signout`: ends the session (if any) and drops the cookie.
pub async fn signout(req: &Request, env: &Env) -> Answer {
    let cookies = req.headers().get("cookie")?.unwrap_or_default();
    if let Some(cred) = cookie::session(&cookies).and_then(Credential::parse) {
        let op = AccountOp::EndSession {
            secret: cred.secret.clone(),
        };
        objects::account(env, AccountKey::Id(&cred.account), &op).await?;
    }
    home_again(&[cookie::clear()])
}

/// `POST /_/fifos`: makes a FIFO from the home page's form (name, envelope).
pub async fn make_fifo(mut req: Request, env: &Env, caller: &Caller) -> Answer {
    caller.account()?;
    let fields = form(&mut req).await?;
    let name = field(&fields, "name").trim().to_string();
    if let Some(problem) = crate::names::fifo_name_error(&name) {
        return Err(Failure::new(400, problem));
    }
    let envelope = field(&fields, "envelope").replace("\r\n", "\n");
    let op = FifoOp::Create { name };
    let mut resp = api::fifo_op(env, caller.access()?, op, Some(envelope.into_bytes())).await?;
    match resp.status_code() {
        201 => home_again(&[]),
        status => Err(objects::failure_of(status, &resp.bytes().await?)),
    }
}

fn not_valid() -> Failure {
    Failure::new(
        400,
        "This sign-in link is not valid. Ask for a new one on the home page.",
    )
}

/// What the editor's page may load: its own script, style and sockets, nothing inline
/// but styles (the code editor sets them on its elements).
const EDITOR_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `GET /_/edit/NAME`: the editor, for whoever may see the FIFO (its owner, the operator);
/// for nobody the sign-in page, which leads back here; 404 for others, as if there were no
/// such FIFO.
pub async fn edit(req: &Request, env: &Env, name: String) -> Answer {
    let here = format!("/_/edit/{name}");
    let signin = || pages::home_signed_out(next_path(&here));
    let caller = match auth::caller(req, env).await {
        Ok(Caller::Anonymous) => return html(200, signin()),
        Ok(c) => c,
        Err(f) if f.status == 401 => {
            let mut resp = html(200, signin())?;
            resp.headers_mut().append("Set-Cookie", &cookie::clear())?;
            return Ok(resp);
        }
        Err(f) => return Err(f),
    };
    let call = FifoCall {
        op: FifoOp::Summary { name },
        by: caller.access()?,
    };
    let fifo: FifoSummary = objects::parsed(objects::fifo(env, &call, None).await?).await?;
    let mut resp = html(200, pages::editor(&fifo.name))?;
    resp.headers_mut()
        .set("Content-Security-Policy", EDITOR_POLICY)?;
    Ok(resp)
}
