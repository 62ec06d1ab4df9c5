//! The Account object: one per account, found by its email address (in lower case). It
//! sends the sign-in links and keeps the account's sessions, API tokens and the names of
//! its FIFOs, all as hashes where they are secrets (see `crate::account`). The FIFO
//! objects know their owner; this list is for showing them.

mod store;

use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

use super::host::{new_request_id, now_ms, random_bytes};
use super::http::{json, not_signed_in, Failure};
use super::mailer;
use crate::account::credential::{hash_secret, Credential, SECRET_BYTES};
use crate::account::{self, letter, next};
use crate::protocol::{self, AccountOp, Identity};
use store::Store;

#[durable_object]
pub struct Account {
    state: State,
    env: Env,
    schema: super::schema::Known,
}

impl DurableObject for Account {
    fn new(state: State, env: Env) -> Self {
        super::install_panic_bridge();
        Account {
            state,
            env,
            schema: Default::default(),
        }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let op = req
            .headers()
            .get(protocol::OP)?
            .and_then(|op| serde_json::from_str::<AccountOp>(&op).ok());
        let mut resp = match op {
            Some(op) => self.run(op).await.or_else(Failure::into_response)?,
            None => Failure::new(400, "no operation").into_response()?,
        };
        resp.headers_mut().set(protocol::OBJECT, "1")?;
        Ok(resp)
    }
}

type Answer = std::result::Result<Response, Failure>;

impl Account {
    fn store(&self) -> Store {
        Store::new(self.state.storage().sql(), self.schema.clone())
    }

    fn id(&self) -> String {
        self.state.id().to_string()
    }

    async fn run(&self, op: AccountOp) -> Answer {
        let store = self.store();
        let now = now_ms();
        match op {
            AccountOp::StartSignin { email, site, next } => {
                self.start_signin(&store, &email, &site, next.as_deref(), now)
                    .await
            }
            AccountOp::CheckSignin { secret } => {
                self.good_signin(&store, &secret, now)?;
                Ok(json(200, &serde_json::json!({}))?)
            }
            AccountOp::FinishSignin { secret } => {
                let email = self.good_signin(&store, &secret, now)?;
                store.use_signin(&hash_secret(&secret), now)?;
                store.create_account(&email, now)?;
                store.drop_expired_sessions(now)?;
                let session = self.new_credential();
                store.add_session(&session.hash(), now, now + account::SESSION_TTL_MS)?;
                Ok(json(
                    200,
                    &serde_json::json!({
                        "session": session.encode(),
                        "email": email,
                        "max_age": account::SESSION_TTL_MS / 1000,
                    }),
                )?)
            }
            AccountOp::Session { secret } => {
                let row = store.account()?.ok_or_else(not_signed_in)?;
                let hash = hash_secret(&secret);
                let expires = store.session_expiry(&hash)?.ok_or_else(not_signed_in)?;
                if expires <= now {
                    store.end_session(&hash)?;
                    return Err(not_signed_in());
                }
                let renewed =
                    expires - now < account::SESSION_TTL_MS - account::SESSION_RENEW_EVERY_MS;
                if renewed {
                    store.renew_session(&hash, now + account::SESSION_TTL_MS)?;
                }
                self.identity(row.email, renewed)
            }
            AccountOp::EndSession { secret } => {
                if store.account()?.is_some() {
                    store.end_session(&hash_secret(&secret))?;
                }
                Ok(Response::empty()?.with_status(204))
            }
            AccountOp::Token { secret } => {
                let row = store.account()?.ok_or_else(not_signed_in)?;
                let token = store
                    .token(&hash_secret(&secret))?
                    .ok_or_else(not_signed_in)?;
                // Last use to the minute: a write per request would be too many.
                if token.last_used_at.is_none_or(|at| now - at >= 60_000) {
                    store.touch_token(token.id, now)?;
                }
                self.identity(row.email, false)
            }
            AccountOp::CreateToken { name } => {
                self.existing(&store)?;
                if let Some(problem) = account::token_name_error(&name) {
                    return Err(Failure::new(400, problem));
                }
                if store.token_count()? >= account::MAX_TOKENS {
                    return Err(Failure::new(
                        409,
                        format!(
                            "an account holds at most {} tokens: revoke one first",
                            account::MAX_TOKENS
                        ),
                    ));
                }
                let token = self.new_credential();
                let info = store.add_token(name.trim(), &token.hash(), now)?;
                Ok(json(
                    201,
                    &serde_json::json!({
                        "id": info.id,
                        "name": info.name,
                        "created_at": info.created_at,
                        "token": token.encode_token(),
                    }),
                )?)
            }
            AccountOp::Tokens => {
                self.existing(&store)?;
                Ok(json(
                    200,
                    &serde_json::json!({ "tokens": store.tokens()? }),
                )?)
            }
            AccountOp::RevokeToken { id } => {
                self.existing(&store)?;
                if store.delete_token(id)? {
                    Ok(Response::empty()?.with_status(204))
                } else {
                    Err(Failure::new(404, format!("no token {id}")))
                }
            }
            AccountOp::AddFifo { name } => {
                self.existing(&store)?;
                store.add_fifo(&name, now)?;
                Ok(Response::empty()?.with_status(204))
            }
            AccountOp::RemoveFifo { name } => {
                if store.account()?.is_some() {
                    store.remove_fifo(&name)?;
                }
                Ok(Response::empty()?.with_status(204))
            }
            AccountOp::Fifos => {
                self.existing(&store)?;
                Ok(json(200, &serde_json::json!({ "fifos": store.fifos()? }))?)
            }
            AccountOp::Describe => {
                let row = self.existing(&store)?;
                Ok(json(
                    200,
                    &serde_json::json!({
                        "email": row.email,
                        "created_at": row.created_at,
                        "fifos": store.fifos()?.len(),
                        "tokens": store.token_count()?,
                    }),
                )?)
            }
            AccountOp::Delete => {
                self.existing(&store)?;
                self.state.storage().delete_all().await?;
                self.schema.forget();
                Ok(Response::empty()?.with_status(204))
            }
        }
    }

    fn existing(&self, store: &Store) -> std::result::Result<store::AccountRow, Failure> {
        store.account()?.ok_or_else(not_signed_in)
    }

    fn identity(&self, email: String, renewed: bool) -> Answer {
        Ok(json(
            200,
            &Identity {
                account: self.id(),
                email,
                renewed,
            },
        )?)
    }

    fn new_credential(&self) -> Credential {
        let mut random = [0u8; SECRET_BYTES];
        random_bytes(&mut random);
        Credential::new(&self.id(), &random)
    }

    /// The address of a sign-in link that may be used now; else why not, as the page says it.
    fn good_signin(
        &self,
        store: &Store,
        secret: &str,
        now: i64,
    ) -> std::result::Result<String, Failure> {
        let row = store.signin(&hash_secret(secret))?.ok_or_else(|| {
            Failure::new(
                400,
                "This sign-in link is not valid. Ask for a new one on the home page.",
            )
        })?;
        if row.used_at.is_some() {
            return Err(Failure::new(
                400,
                "This sign-in link has been used already. Ask for a new one on the home page.",
            ));
        }
        if row.expires_at <= now {
            return Err(Failure::new(400, "This sign-in link has expired: it works for 15 minutes. Ask for a new one on the home page."));
        }
        Ok(row.email)
    }

    /// Sends a sign-in link, unless too many went to this address lately. The answer is
    /// the same whether the account exists or not.
    async fn start_signin(
        &self,
        store: &Store,
        email: &str,
        site: &str,
        next: Option<&str>,
        now: i64,
    ) -> Answer {
        let sent = store.recent_signins(now, account::SIGNIN_WINDOW_MS)?;
        if let Some(wait) = account::signin_wait(&sent, now) {
            let mut resp = json(
                429,
                &serde_json::json!({
                    "error": format!("too many sign-in links for this address: try again in {} minutes", (wait + 59) / 60),
                    "retry_after": wait,
                }),
            )?;
            resp.headers_mut().set("Retry-After", &wait.to_string())?;
            return Ok(resp);
        }
        let link = self.new_credential();
        store.add_signin(&link.hash(), email, now, now + account::SIGNIN_TTL_MS)?;
        // `next` was checked by the Worker; it is checked again when the link is used.
        let url = next::with_next(&format!("{site}/_/signin/{}", link.encode()), next);
        let domain = mailer::domain(&self.env);
        let built = letter::signin(
            email,
            &url,
            site,
            &domain,
            &new_request_id(),
            now.div_euclid(1000),
        )
        .map_err(|e| Failure::new(400, format!("{email}: {e}")))?;
        mailer::send(&self.env, &built, email).await.map_err(|e| {
            Failure::new(
                503,
                format!("the sign-in message could not be sent: {}", e.why),
            )
        })?;
        Ok(json(202, &serde_json::json!({}))?)
    }
}
