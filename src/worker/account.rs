//! The Account object: one per account (named by its email). Sign-in by emailed link and
//! sessions live here in a later version; for now it only answers that it exists.

use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

#[durable_object]
pub struct Account {
    _state: State,
}

impl DurableObject for Account {
    fn new(state: State, _env: Env) -> Self {
        super::install_panic_bridge();
        Account { _state: state }
    }

    async fn fetch(&self, _req: Request) -> Result<Response> {
        Response::error("accounts are not available yet", 501)
    }
}
