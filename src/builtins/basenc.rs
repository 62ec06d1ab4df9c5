//! `basenc`: encodes or decodes like GNU basenc (`--base64 --base64url --base32
//! --base32hex --base16 --base2msbf --base2lsbf --z85`, `-d -i -w`). Spends one step per
//! 64 bytes of input.

use crate::builtins::common::baseenc::run_tool;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    run_tool(ctx, args, None).await
}
