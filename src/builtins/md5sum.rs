//! `md5sum`: prints or checks MD5 digests like GNU md5sum. Spends one step per 64 bytes hashed and one per checked line.

use crate::builtins::common::digest::{run_sum, Algo};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    run_sum(ctx, args, Algo::Md5).await
}
