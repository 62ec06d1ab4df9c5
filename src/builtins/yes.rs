//! `yes`: writes its arguments (or `y`) as a line, again and again, until its reader
//! goes away or the step budget stops it; spends 1 step per line and 1 per 8 bytes
//! written. Output is handed on every 64 KiB, so `yes | head -n1` ends at once.

use crate::builtins::common::args::{usage_error, Spec};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "",
    long: &[],
    stop_at_operand: false,
};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "yes", &msg);
            return Ok(1);
        }
    };
    let mut line = if parsed.operands.is_empty() {
        b"y".to_vec()
    } else {
        parsed.operands.join(&b' ')
    };
    line.push(b'\n');
    let per_line = 1 + (line.len() as u64).div_ceil(8);
    // Lines go out in blocks of about 4 KiB, each paid for before it is written.
    let per_block = (4096 / line.len()).max(1);
    let mut block = Vec::with_capacity(per_block * line.len());
    for _ in 0..per_block {
        block.extend_from_slice(&line);
    }
    loop {
        let lines_left = ctx.io.budget.remaining() / per_line;
        if lines_left == 0 {
            ctx.io.budget.spend(per_line)?;
        }
        let n = (per_block as u64).min(lines_left) as usize;
        ctx.io.budget.spend(per_line * n as u64)?;
        ctx.stdout.extend_from_slice(&block[..n * line.len()]);
        ctx.flush_some().await?;
    }
}

#[cfg(test)]
mod tests {
    use crate::budget::Budget;
    use crate::builtins::testing::run_with;
    use crate::builtins::VarList;
    use crate::error::Error;

    #[test]
    fn stops_at_the_budget() {
        let budget = Budget::new(1000);
        let r = run_with(&["yes", "a", "b"], b"", &VarList::default(), &budget);
        assert_eq!(r, Err(Error::StepLimit { limit: 1000 }));
        assert_eq!(budget.used(), 1000);
    }
}
