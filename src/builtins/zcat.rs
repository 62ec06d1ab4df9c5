//! `zcat`: decompresses to stdout like GNU gzip 1.12, byte for byte. Spends one step per 64 bytes read or written.

use crate::builtins::common::gzip::{run_tool, Mode};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    run_tool(ctx, args, Mode::Zcat).await
}
