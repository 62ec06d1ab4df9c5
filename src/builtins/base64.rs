//! `base64`: encodes or decodes base64 like GNU base64 (`-d -i -w`). Spends one step per 64 bytes of input.

use crate::builtins::common::baseenc::{run_tool, Encoding};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    run_tool(ctx, args, Some(Encoding::Base64)).await
}
