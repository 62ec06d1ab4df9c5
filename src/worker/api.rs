//! The JSON API under `/_/api/` (its routes are in `crate::route`). FIFO operations go to
//! the FIFO's object with the caller's access: the operator sees every FIFO, an account
//! only its own, and a FIFO it may not see is a 404 as if there were none. Account
//! operations go to the caller's Account object.

use worker::{Env, Request, Response};

use super::auth::Caller;
use super::http::{json, Failure};
use super::objects::{self, AccountKey};
use crate::protocol::{Access, AccountOp, FifoCall, FifoOp, FifoSummary};
use crate::route::Api;

type Answer = Result<Response, Failure>;

pub async fn handle(route: Api, mut req: Request, env: &Env, caller: &Caller) -> Answer {
    match route {
        Api::Fifo(op @ FifoOp::Live { .. }) => {
            let call = FifoCall {
                op,
                by: caller.access()?,
            };
            objects::fifo_socket(env, &call, super::auth::is_upgrade(&req)?).await
        }
        Api::Fifo(op) => {
            let body = match op {
                FifoOp::Put { .. } | FifoOp::Create { .. } | FifoOp::VarPut { .. } => {
                    Some(req.bytes().await?)
                }
                _ => None,
            };
            fifo_op(env, caller.access()?, op, body).await
        }
        Api::Install { name, envelope } => {
            if !req.bytes().await?.is_empty() {
                return Err(Failure::new(
                    400,
                    "?from= installs a library envelope: send no body with it",
                ));
            }
            let op = FifoOp::Put { name };
            fifo_op(
                env,
                caller.access()?,
                op,
                Some(envelope.as_bytes().to_vec()),
            )
            .await
        }
        Api::ListFifos => {
            let who = caller.account()?;
            let fifos = list_fifos(env, &who.account).await?;
            Ok(json(200, &serde_json::json!({ "fifos": fifos }))?)
        }
        Api::Tokens => on_account(env, caller, AccountOp::Tokens).await,
        Api::CreateToken => {
            #[derive(serde::Deserialize)]
            struct New {
                name: String,
            }
            let body = req.bytes().await?;
            let new: New = serde_json::from_slice(&body).map_err(|e| {
                Failure::new(
                    400,
                    format!("the body must be JSON: {{\"name\": \"...\"}} ({e})"),
                )
            })?;
            on_account(env, caller, AccountOp::CreateToken { name: new.name }).await
        }
        Api::RevokeToken { id } => on_account(env, caller, AccountOp::RevokeToken { id }).await,
        Api::Account => on_account(env, caller, AccountOp::Describe).await,
        Api::DeleteAccount => {
            let who = caller.account()?;
            let access = Access::Account(who.account.clone());
            for name in account_fifos(env, &who.account).await? {
                let gone = fifo_op(env, access.clone(), FifoOp::Delete { name }, None).await?;
                // 404: it was deleted already, or another took the name since.
                if gone.status_code() >= 400 && gone.status_code() != 404 {
                    return Ok(gone);
                }
            }
            on_account(env, caller, AccountOp::Delete).await
        }
    }
}

/// An operation on one FIFO by `access`, keeping the owner's list in step: a FIFO made
/// by an account is added to it, a deleted one taken off.
pub async fn fifo_op(env: &Env, access: Access, op: FifoOp, body: Option<Vec<u8>>) -> Answer {
    let name = op.name().to_string();
    let listed = match (&op, &access) {
        (FifoOp::Put { .. } | FifoOp::Create { .. }, Access::Account(id)) => {
            Some((id.clone(), true))
        }
        (FifoOp::Delete { .. }, Access::Account(id)) => Some((id.clone(), false)),
        _ => None,
    };
    let call = FifoCall { op, by: access };
    let resp = objects::fifo(env, &call, body).await?;
    if let Some((id, added)) = listed.filter(|_| resp.status_code() < 300) {
        let op = if added {
            AccountOp::AddFifo { name }
        } else {
            AccountOp::RemoveFifo { name }
        };
        let noted = objects::account(env, AccountKey::Id(&id), &op).await?;
        if noted.status_code() >= 400 {
            return Err(Failure::new(
                503,
                "the FIFO is changed, but the account's list is not: try again",
            ));
        }
    }
    Ok(resp)
}

async fn on_account(env: &Env, caller: &Caller, op: AccountOp) -> Answer {
    let who = caller.account()?;
    objects::account(env, AccountKey::Id(&who.account), &op).await
}

async fn account_fifos(env: &Env, account: &str) -> Result<Vec<String>, Failure> {
    #[derive(serde::Deserialize)]
    struct Names {
        fifos: Vec<String>,
    }
    let resp = objects::account(env, AccountKey::Id(account), &AccountOp::Fifos).await?;
    Ok(objects::parsed::<Names>(resp).await?.fifos)
}

/// The account's FIFOs with their last Request, from each FIFO's object. A name whose
/// FIFO is gone or no longer the account's (the operator deleted it) leaves the list.
pub async fn list_fifos(env: &Env, account: &str) -> Result<Vec<FifoSummary>, Failure> {
    let names = account_fifos(env, account).await?;
    let access = Access::Account(account.to_string());
    let asks = names.iter().map(|name| {
        let call = FifoCall {
            op: FifoOp::Summary { name: name.clone() },
            by: access.clone(),
        };
        async move { (name, objects::fifo(env, &call, None).await) }
    });
    let mut out = Vec::new();
    for (name, resp) in futures_util::future::join_all(asks).await {
        let resp = resp?;
        if resp.status_code() == 404 {
            let op = AccountOp::RemoveFifo { name: name.clone() };
            objects::account(env, AccountKey::Id(account), &op).await?;
            continue;
        }
        out.push(objects::parsed::<FifoSummary>(resp).await?);
    }
    Ok(out)
}
